package com.payments.reconciler.cdk;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import software.amazon.awscdk.CfnElement;
import software.amazon.awscdk.Stack;
import software.constructs.IConstruct;

/** The synthesised template as JSON, with the look-ups the stack tests share. */
final class TemplateJson {

    private static final ObjectMapper JSON = new ObjectMapper();
    private final JsonNode root;
    private final Stack stack;

    TemplateJson(SynthesizedStack synthesized) {
        this.root = JSON.valueToTree(synthesized.template.toJSON());
        this.stack = synthesized.stack;
    }

    JsonNode root() {
        return root;
    }

    /** Resources of one type by logical id, in template order. */
    Map<String, JsonNode> resources(String type) {
        Map<String, JsonNode> found = new LinkedHashMap<>();
        root.path("Resources").properties().forEach(e -> {
            if (e.getValue().path("Type").asText().equals(type)) {
                found.put(e.getKey(), e.getValue());
            }
        });
        return found;
    }

    JsonNode resource(String logicalId) {
        JsonNode node = root.path("Resources").path(logicalId);
        if (node.isMissingNode()) {
            throw new AssertionError("no resource " + logicalId);
        }
        return node;
    }

    /** The logical id of a construct's CloudFormation resource (its default child, or itself). */
    String logicalId(IConstruct construct) {
        IConstruct element = construct instanceof CfnElement ? construct : construct.getNode().getDefaultChild();
        return stack.resolve(stack.getLogicalId((CfnElement) element)).toString();
    }

    JsonNode ref(IConstruct construct) {
        return JSON.createObjectNode().put("Ref", logicalId(construct));
    }

    JsonNode getAtt(IConstruct construct, String attribute) {
        ArrayNode args = JSON.createArrayNode().add(logicalId(construct)).add(attribute);
        return JSON.createObjectNode().set("Fn::GetAtt", args);
    }

    /** Every statement of the IAM policies attached to a role (inline AWS::IAM::Policy resources). */
    List<JsonNode> statementsOf(IConstruct role) {
        JsonNode roleRef = ref(role);
        List<JsonNode> statements = new ArrayList<>();
        resources("AWS::IAM::Policy").values().forEach(policy -> {
            boolean attached = false;
            for (JsonNode r : policy.path("Properties").path("Roles")) {
                attached |= r.equals(roleRef);
            }
            if (attached) {
                policy.path("Properties").path("PolicyDocument").path("Statement").forEach(statements::add);
            }
        });
        return statements;
    }

    static List<String> strings(JsonNode node) {
        List<String> values = new ArrayList<>();
        if (node.isArray()) {
            node.forEach(n -> values.add(n.asText()));
        } else if (!node.isMissingNode()) {
            values.add(node.asText());
        }
        return values;
    }

    static List<JsonNode> nodes(JsonNode node) {
        List<JsonNode> values = new ArrayList<>();
        if (node.isArray()) {
            node.forEach(values::add);
        } else if (!node.isMissingNode()) {
            values.add(node);
        }
        return values;
    }

    static JsonNode parse(String json) {
        try {
            return JSON.readTree(json);
        } catch (java.io.IOException e) {
            throw new AssertionError("not JSON: " + json, e);
        }
    }
}
