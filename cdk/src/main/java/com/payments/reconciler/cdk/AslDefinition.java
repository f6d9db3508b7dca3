package com.payments.reconciler.cdk;

import com.payments.reconciler.workflow.LambdaFunction;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.Function;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

/**
 * The workflow definition, {@code statemachine/reconciler.asl.json} as shipped (the build copies it onto
 * this module's classpath), and its {@code ${...}} substitutions: one per function the workflow invokes,
 * named by {@link LambdaFunction#aslSubstitution()}. Inlined in the template (not an S3 asset), so the
 * deployed definition is reviewable in the template and testable against the file.
 */
public final class AslDefinition {

    public static final String RESOURCE = "/statemachine/reconciler.asl.json";
    private static final Pattern SUBSTITUTION = Pattern.compile("\\$\\{([A-Za-z0-9_]+)}");

    private AslDefinition() {
    }

    public static String text() {
        try (InputStream in = AslDefinition.class.getResourceAsStream(RESOURCE)) {
            if (in == null) {
                throw new IllegalStateException("the ASL " + RESOURCE + " is not on the classpath; build the cdk module (it copies statemachine/*.asl.json)");
            }
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The {@code ${...}} names the file uses. */
    public static Set<String> substitutionsUsed(String asl) {
        Set<String> names = new TreeSet<>();
        Matcher m = SUBSTITUTION.matcher(asl);
        while (m.find()) {
            names.add(m.group(1));
        }
        return names;
    }

    /**
     * The substitution map for {@code definitionSubstitutions}: each workflow function's name to the value
     * {@code arnOf} gives (the alias ARN). Refuses a file whose substitutions differ from the function list,
     * which would otherwise deploy a definition with a literal {@code ${...}} in it.
     */
    public static Map<String, String> substitutions(String asl, Function<LambdaFunction, String> arnOf) {
        Map<String, String> values = Arrays.stream(LambdaFunction.values())
                .filter(LambdaFunction::invokedByWorkflow)
                .collect(Collectors.toMap(LambdaFunction::aslSubstitution, arnOf));
        Set<String> used = substitutionsUsed(asl);
        if (!used.equals(values.keySet())) {
            throw new IllegalStateException("the ASL's substitutions " + used + " differ from the workflow's functions "
                    + new TreeSet<>(values.keySet()) + " (LambdaFunction.aslSubstitution)");
        }
        return values;
    }
}
