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
        String name = call.getName();
        var parameters = call.getTarget().getRawParameterTypes();
        return switch (owner) {
            case "java.util.Map" -> name.equals("ofEntries") || name.equals("copyOf") || name.equals("of") && parameters.size() > 2;
            // Set.of(E...) (eleven or more elements) has one parameter, an array.
            case "java.util.Set" -> name.equals("copyOf") || name.equals("of")
                    && (parameters.size() > 1 || parameters.size() == 1 && parameters.getFirst().isArray());
            case "java.util.stream.Collectors" -> List.of("toSet", "toMap", "groupingBy", "toUnmodifiableSet", "toUnmodifiableMap")
                    .contains(name);
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
    void knownBadEachUnorderedWayOfBuildingIsFoundWhereItIs() {
        JavaClasses fixture = new ClassFileImporter().importClasses(UnorderedEnvironment.class);
        assertThat(unorderedFactories(fixture).stream().map(SynthOrderArchitectureTest::callerAndTarget).toList())
                .containsExactlyInAnyOrder("environment Map.of", "actions Set.of", "tags HashMap.<init>", "manySet Set.of",
                        "copied Map.copyOf", "entries Map.ofEntries", "collected Collectors.toUnmodifiableSet",
                        "grouped Collectors.toMap");
    }

    /** "method Owner.target" of a finding, e.g. "environment Map.of". */
    private static String callerAndTarget(String description) {
        java.util.regex.Matcher m = java.util.regex.Pattern
                .compile("UnorderedEnvironment\\.(\\w+)\\(.*?<java\\.util\\.(?:stream\\.)?(\\w+)\\.([\\w<>]+)\\(").matcher(description);
        return m.find() ? m.group(1) + " " + m.group(2) + "." + m.group(3) : description;
    }

    /** Known-bad fixture: one method per unordered way of building a map or set, and one that is fine. */
    static final class UnorderedEnvironment {
        Map<String, String> environment() {
            return Map.of("A", "1", "B", "2");
        }

        Set<String> actions() {
            return Set.of("sqs:SendMessage", "sqs:GetQueueAttributes");
        }

        Map<String, String> tags() {
            return new HashMap<>(Ordered.map(Map.entry("A", "1")));
        }

        Set<String> manySet() {
            return Set.of("a", "b", "c", "d", "e", "f", "g", "h", "i", "j", "k");
        }

        Map<String, String> copied(Map<String, String> any) {
            return Map.copyOf(any);
        }

        Map<String, String> entries() {
            return Map.ofEntries(Map.entry("A", "1"));
        }

        Set<String> collected(List<String> any) {
            return any.stream().collect(java.util.stream.Collectors.toUnmodifiableSet());
        }

        Map<String, String> grouped(List<String> any) {
            return any.stream().collect(java.util.stream.Collectors.toMap(x -> x, x -> x));
        }

        Map<String, String> oneEntryIsFine() {
            return Map.of("A", "1");
        }
    }
}
