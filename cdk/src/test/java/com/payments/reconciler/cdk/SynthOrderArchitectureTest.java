package com.payments.reconciler.cdk;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.domain.JavaConstructorCall;
import com.tngtech.archunit.core.domain.JavaMethodCall;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.Location;
import java.util.List;
import java.util.Map;
import java.util.HashMap;
import java.util.Set;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The template is the same on every synth: `cdk diff` after a synth that changed nothing shows nothing. {@code Map.of}
 * and {@code Set.of} with more than one element iterate in an order salted per JVM, and what the stack builds from them
 * (environment variables, policy conditions, math-expression metrics) is written in that order; so are hashed maps and
 * sets. So the stack's code builds multi-element maps in the order written ({@link Ordered}), never with those.
 */
class SynthOrderArchitectureTest {

    static List<String> unorderedFactories(JavaClasses classes) {
        var factories = classes.stream().flatMap(c -> c.getMethodCallsFromSelf().stream())
                .filter(SynthOrderArchitectureTest::unordered).map(JavaMethodCall::getDescription);
        var hashed = classes.stream().flatMap(c -> c.getConstructorCallsFromSelf().stream())
                .filter(call -> HASHED.contains(call.getTargetOwner().getName())).map(JavaConstructorCall::getDescription);
        return Stream.concat(factories, hashed).distinct().sorted().toList();
    }

    private static final Set<String> HASHED = Set.of("java.util.HashMap", "java.util.HashSet");

    private static boolean unordered(JavaMethodCall call) {
        String owner = call.getTargetOwner().getName();
        int parameters = call.getTarget().getRawParameterTypes().size();
        return switch (owner) {
            case "java.util.Map" -> call.getName().equals("ofEntries") || call.getName().equals("of") && parameters > 2;
            case "java.util.Set" -> call.getName().equals("of") && parameters > 1 || call.getName().equals("copyOf");
            case "java.util.stream.Collectors" -> call.getName().equals("toSet") || call.getName().equals("toMap")
                    || call.getName().equals("groupingBy");
            default -> false;
        };
    }

    @Test
    void theStacksCodeBuildsNoMultiElementMapOrSetInAPerJvmOrder() {
        JavaClasses stackCode = new ClassFileImporter().importLocations(
                Set.of(Location.of(ReconcilerStack.class.getProtectionDomain().getCodeSource().getLocation())));
        assertThat(stackCode.contain(ReconcilerStack.class)).isTrue();
        assertThat(unorderedFactories(stackCode)).isEmpty();
    }

    @Test
    void knownBadAMapOfTwoEntriesASetOfTwoAndAHashMapAreFound() {
        JavaClasses fixture = new ClassFileImporter().importClasses(UnorderedEnvironment.class);
        assertThat(unorderedFactories(fixture)).hasSize(3);
    }

    /** Known-bad fixture: an environment and a set of actions built as the stack must not. */
    static final class UnorderedEnvironment {
        Map<String, String> environment() {
            return Map.of("A", "1", "B", "2");
        }

        Set<String> actions() {
            return Set.of("sqs:SendMessage", "sqs:GetQueueAttributes");
        }

        Map<String, String> tags() {
            return new HashMap<>(Map.of("A", "1"));
        }

        Map<String, String> oneEntryIsFine() {
            return Map.of("A", "1");
        }
    }
}
