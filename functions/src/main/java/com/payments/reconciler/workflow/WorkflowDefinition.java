package com.payments.reconciler.workflow;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.Function;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

/**
 * The one owner of the workflow definition, {@code statemachine/reconciler.asl.json} (only this module packages
 * it): loading it, the {@code ${...}} substitutions it uses (one per function the workflow invokes, named by
 * {@link LambdaFunction#aslSubstitution()}), substituting them as {@code definitionSubstitutions} does, the way
 * back from a substitution to its function, and the parsed tree. The CDK stack, the local runner, the bench and
 * the definition's own tests all read the file through this class, so they cannot disagree on what is deployed.
 *
 * @param text the definition as written, substitutions still in place
 */
public record WorkflowDefinition(String text) {

    /** Where the build puts {@code statemachine/reconciler.asl.json} on the classpath. */
    public static final String RESOURCE = "/statemachine/reconciler.asl.json";
    private static final Pattern SUBSTITUTION = Pattern.compile("\\$\\{([A-Za-z0-9_]+)}");

    public WorkflowDefinition {
        if (text == null || text.isBlank()) {
            throw new IllegalArgumentException("a workflow definition needs its ASL text (JSON)");
        }
    }

    /** The file as shipped. */
    public static WorkflowDefinition shipped() {
        try (InputStream in = WorkflowDefinition.class.getResourceAsStream(RESOURCE)) {
            if (in == null) {
                throw new IllegalStateException("the ASL " + RESOURCE + " is not on the classpath; build the functions module (it packages statemachine/*.asl.json)");
            }
            return new WorkflowDefinition(new String(in.readAllBytes(), StandardCharsets.UTF_8));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The {@code ${...}} names the text uses. */
    public Set<String> substitutionsUsed() {
        Set<String> names = new TreeSet<>();
        Matcher m = SUBSTITUTION.matcher(text);
        while (m.find()) {
            names.add(m.group(1));
        }
        return names;
    }

    /**
     * The substitution map for {@code definitionSubstitutions}: each workflow function's name to the value
     * {@code valueOf} gives (the alias ARN, or a local function's ARN). Refuses a text whose substitutions differ
     * from the function list, which would otherwise deploy a definition with a literal {@code ${...}} in it.
     */
    public Map<String, String> substitutions(Function<LambdaFunction, String> valueOf) {
        Map<String, String> values = Arrays.stream(LambdaFunction.values())
                .filter(LambdaFunction::invokedByWorkflow)
                .collect(Collectors.toMap(LambdaFunction::aslSubstitution, valueOf));
        Set<String> used = substitutionsUsed();
        if (!used.equals(values.keySet())) {
            throw new IllegalStateException("the ASL's substitutions " + used + " differ from the workflow's functions "
                    + new TreeSet<>(values.keySet()) + " (LambdaFunction.aslSubstitution)");
        }
        return values;
    }

    /** The text with every workflow function's substitution replaced by {@code valueOf}'s value for it. */
    public String substituted(Function<LambdaFunction, String> valueOf) {
        return substitute(text, substitutions(valueOf));
    }

    /**
     * {@code text} with each {@code ${name}} of {@code values} replaced, as Step Functions applies
     * {@code definitionSubstitutions}; refuses a result that still holds a substitution, naming it.
     */
    public static String substitute(String text, Map<String, String> values) {
        String result = text;
        for (Map.Entry<String, String> e : values.entrySet()) {
            result = result.replace(placeholder(e.getKey()), e.getValue());
        }
        Matcher left = SUBSTITUTION.matcher(result);
        if (left.find()) {
            throw new IllegalStateException("the ASL has a substitution no value fills: " + left.group());
        }
        return result;
    }

    /** The way back: the workflow function whose substitution {@code value} is (a Task's {@code FunctionName} as written). */
    public static Optional<LambdaFunction> functionSubstitutedBy(String value) {
        return Arrays.stream(LambdaFunction.values())
                .filter(f -> f.invokedByWorkflow() && value.equals(placeholder(f.aslSubstitution())))
                .findFirst();
    }

    /** The text parsed (substitutions still in place). */
    public JsonNode tree() {
        return parse(text);
    }

    /** A definition's JSON as a tree; an error names the ASL when it is not JSON. */
    public static JsonNode parse(String asl) {
        try {
            return Json.mapper().readTree(asl);
        } catch (IOException e) {
            throw new UncheckedIOException("the state machine definition is not JSON", e);
        }
    }

    private static String placeholder(String name) {
        return "${" + name + "}";
    }
}
