package com.payments.reconciler.harness.aws;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.payments.reconciler.workflow.LambdaFunction;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;

/**
 * The stack's CloudFormation template as the cdk module synthesised it at build time (a resource of the cdk
 * jar, see {@code TemplateArtifact}): its functions, and each role's policy statements, read from the
 * JSON and resolved against local resources by an {@link IntrinsicResolver}.
 */
public final class SynthesizedTemplate {

    /** Where the cdk build puts the templates, and the index naming them (TemplateArtifact's constants). */
    public static final String RESOURCE_DIR = "/com/payments/reconciler/cdk/synth/";
    public static final String INDEX = "templates.txt";
    private static final ObjectMapper JSON = new ObjectMapper();

    private final String name;
    private final JsonNode root;

    private SynthesizedTemplate(String name, JsonNode root) {
        this.name = name;
        this.root = root;
        if (!root.path("Resources").isObject()) {
            throw new IllegalArgumentException(name + " is not a CloudFormation template: no Resources");
        }
    }

    /** The one stack template on the classpath (the cdk artifact). */
    public static SynthesizedTemplate load() {
        String index = read(RESOURCE_DIR + INDEX);
        List<String> names = Arrays.stream(index.split("\n")).map(String::strip).filter(s -> !s.isEmpty()).toList();
        if (names.size() != 1) {
            throw new IllegalStateException("expected one stack template in " + RESOURCE_DIR + INDEX + ", found " + names);
        }
        return parse(names.getFirst(), read(RESOURCE_DIR + names.getFirst()));
    }

    public static SynthesizedTemplate parse(String name, String json) {
        try {
            return new SynthesizedTemplate(name, JSON.readTree(json));
        } catch (IOException e) {
            throw new IllegalArgumentException(name + " is not JSON", e);
        }
    }

    public static SynthesizedTemplate of(String name, JsonNode root) {
        return new SynthesizedTemplate(name, root.deepCopy());
    }

    private static String read(String resource) {
        try (InputStream in = SynthesizedTemplate.class.getResourceAsStream(resource)) {
            if (in == null) {
                throw new IllegalStateException("no " + resource + " on the classpath: the cdk module writes it when it packages "
                        + "(mvn -pl harness -am install -DskipTests builds it)");
            }
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The template's file name, {@code <stack>.template.json}. */
    public String name() {
        return name;
    }

    /** A copy of the whole template (for the integrator's own reads, or a test's mutation). */
    public JsonNode json() {
        return root.deepCopy();
    }

    /** Resources of one type by logical id, in template order. */
    public Map<String, JsonNode> resources(String type) {
        Map<String, JsonNode> found = new LinkedHashMap<>();
        root.path("Resources").properties().forEach(e -> {
            if (e.getValue().path("Type").asText().equals(type)) {
                found.put(e.getKey(), e.getValue());
            }
        });
        return found;
    }

    public JsonNode resource(String logicalId) {
        JsonNode node = root.path("Resources").path(logicalId);
        if (node.isMissingNode()) {
            throw new IllegalArgumentException(name + " has no resource " + logicalId);
        }
        return node;
    }

    /** The five functions, each matched to its {@link LambdaFunction} by its Handler string. */
    public List<TemplateFunction> functions() {
        List<TemplateFunction> specs = new ArrayList<>();
        resources("AWS::Lambda::Function").forEach((id, fn) -> {
            JsonNode p = fn.path("Properties");
            String handler = p.path("Handler").asText();
            LambdaFunction function = Arrays.stream(LambdaFunction.values()).filter(f -> f.handler().equals(handler)).findFirst()
                    .orElseThrow(() -> new IllegalStateException(id + ": handler " + handler + " is none of LambdaFunction's"));
            Map<String, JsonNode> env = new LinkedHashMap<>();
            p.path("Environment").path("Variables").properties().forEach(e -> env.put(e.getKey(), e.getValue()));
            JsonNode reserved = p.path("ReservedConcurrentExecutions");
            if (!reserved.isMissingNode() && !reserved.isInt()) {
                throw new IllegalStateException(id + ": ReservedConcurrentExecutions is not a literal integer: " + reserved);
            }
            specs.add(new TemplateFunction(id, function, handler, p.path("MemorySize").asInt(), p.path("Timeout").asInt(),
                    env, roleOf(id, p.path("Role")), reserved.isInt() ? OptionalInt.of(reserved.asInt()) : OptionalInt.empty()));
        });
        return specs;
    }

    public TemplateFunction function(LambdaFunction function) {
        return functions().stream().filter(f -> f.function() == function).findFirst()
                .orElseThrow(() -> new IllegalStateException(name + " has no function with handler " + function.handler()));
    }

    private static String roleOf(String functionId, JsonNode role) {
        JsonNode getAtt = role.path("Fn::GetAtt");
        if (getAtt.isArray() && getAtt.size() == 2 && getAtt.get(1).asText().equals("Arn")) {
            return getAtt.get(0).asText();
        }
        throw new IllegalStateException(functionId + ": Role is not a role of this stack ({Fn::GetAtt: [Role, Arn]}): " + role);
    }

    /**
     * Every statement that applies to the role, resolved: AWS::IAM::Policy and AWS::IAM::ManagedPolicy resources
     * attached to it through {@code Roles}, its inline {@code Policies}, and managed policies of this stack in
     * its {@code ManagedPolicyArns}. An AWS managed policy (an ARN not defined here) cannot be evaluated and fails.
     */
    public List<PolicyStatement> statementsOfRole(String roleLogicalId, IntrinsicResolver resolver) {
        JsonNode role = resource(roleLogicalId);
        if (!role.path("Type").asText().equals("AWS::IAM::Role")) {
            throw new IllegalArgumentException(roleLogicalId + " is not an AWS::IAM::Role");
        }
        List<PolicyStatement> out = new ArrayList<>();
        JsonNode inline = role.path("Properties").path("Policies");
        for (int i = 0; i < inline.size(); i++) {
            addStatements(out, roleLogicalId + ".Policies[" + i + "]", inline.get(i).path("PolicyDocument"), resolver);
        }
        for (String type : List.of("AWS::IAM::Policy", "AWS::IAM::ManagedPolicy")) {
            resources(type).forEach((id, policy) -> {
                for (JsonNode r : policy.path("Properties").path("Roles")) {
                    if (r.path("Ref").asText().equals(roleLogicalId)) {
                        addStatements(out, id, policy.path("Properties").path("PolicyDocument"), resolver);
                    }
                }
            });
        }
        for (JsonNode arn : role.path("Properties").path("ManagedPolicyArns")) {
            String managed = arn.path("Ref").asText("");
            if (managed.isEmpty() || !resource(managed).path("Type").asText().equals("AWS::IAM::ManagedPolicy")) {
                throw new UnsupportedPolicy(roleLogicalId + ": managed policy " + arn + " is not defined in this template; "
                        + "its statements cannot be evaluated locally");
            }
            addStatements(out, managed, resource(managed).path("Properties").path("PolicyDocument"), resolver);
        }
        return out;
    }

    /** The resource policy of the resource whose {@code Ref} is {@code logicalId} (AWS::SecretsManager::ResourcePolicy), if any. */
    public List<PolicyStatement> resourcePolicyOf(String logicalId, IntrinsicResolver resolver) {
        List<PolicyStatement> out = new ArrayList<>();
        resources("AWS::SecretsManager::ResourcePolicy").forEach((id, policy) -> {
            if (policy.path("Properties").path("SecretId").path("Ref").asText().equals(logicalId)) {
                addStatements(out, id, policy.path("Properties").path("ResourcePolicy"), resolver);
            }
        });
        return out;
    }

    /** The logical id of the secret whose ARN is {@code arn} once resolved, if any. */
    public Optional<String> secretWithArn(String arn, IntrinsicResolver resolver) {
        return resources("AWS::SecretsManager::Secret").keySet().stream()
                .filter(id -> resolver.string(JSON.createObjectNode().put("Ref", id)).equals(arn)).findFirst();
    }

    private static void addStatements(List<PolicyStatement> out, String origin, JsonNode document, IntrinsicResolver resolver) {
        JsonNode statements = resolver.resolve(document.path("Statement"));
        if (statements.isObject()) {
            out.add(PolicyStatement.parse(origin + "#0", statements));
            return;
        }
        for (int i = 0; i < statements.size(); i++) {
            out.add(PolicyStatement.parse(origin + "#" + i, statements.get(i)));
        }
    }

    /**
     * One Lambda function of the template.
     *
     * @param logicalId its logical id
     * @param function which of the five it is (by Handler)
     * @param handler the Handler string
     * @param memorySize MB
     * @param timeoutSeconds seconds
     * @param environment Environment.Variables, unresolved (see {@link #environment(IntrinsicResolver)})
     * @param roleLogicalId the logical id of its execution role
     * @param reservedConcurrency ReservedConcurrentExecutions, if the template sets it
     */
    public record TemplateFunction(String logicalId, LambdaFunction function, String handler, int memorySize, int timeoutSeconds,
                               Map<String, JsonNode> environment, String roleLogicalId, OptionalInt reservedConcurrency) {
        public TemplateFunction {
            environment = java.util.Collections.unmodifiableMap(new LinkedHashMap<>(environment));
        }

        /** The environment with its intrinsics resolved against the local resources. */
        public Map<String, String> environment(IntrinsicResolver resolver) {
            Map<String, String> out = new LinkedHashMap<>();
            environment.forEach((k, v) -> out.put(k, resolver.string(v)));
            return out;
        }
    }
}
