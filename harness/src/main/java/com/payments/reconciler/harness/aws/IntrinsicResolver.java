package com.payments.reconciler.harness.aws;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.databind.node.TextNode;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * CloudFormation's intrinsic functions, evaluated against {@link LocalResources}: the one resolver for the
 * functions' environment variables and for policy resources and conditions alike, so both name the same
 * local objects. Anything it cannot answer (an unknown logical id or attribute, {@code Fn::ImportValue},
 * an intrinsic not listed here) is an {@link UnresolvableTemplate} naming the path in the template, never
 * a guess: a wrong ARN in a policy would make the IAM proof vacuous.
 */
public final class IntrinsicResolver {

    private static final JsonNodeFactory NODES = JsonNodeFactory.instance;
    /** ${Name}, ${Name.Attribute}, ${AWS::Region}; ${!Literal} is written out as ${Literal}. */
    private static final Pattern SUB_VARIABLE = Pattern.compile("\\$\\{([^}]*)}");

    private final LocalResources local;

    public IntrinsicResolver(LocalResources local) {
        this.local = local;
    }

    /** The value with every intrinsic replaced by its local value. */
    public JsonNode resolve(JsonNode value) {
        return resolve(value, "$");
    }

    /** A value that must resolve to a string (an ARN, a name, an environment variable). */
    public String string(JsonNode value) {
        JsonNode resolved = resolve(value);
        if (!resolved.isValueNode()) {
            throw new UnresolvableTemplate("expected a string, got " + resolved);
        }
        return resolved.asText();
    }

    private JsonNode resolve(JsonNode value, String path) {
        if (value.isArray()) {
            ArrayNode out = NODES.arrayNode();
            for (int i = 0; i < value.size(); i++) {
                out.add(resolve(value.get(i), path + "[" + i + "]"));
            }
            return out;
        }
        if (!value.isObject()) {
            return value;
        }
        if (value.size() == 1) {
            String key = value.fieldNames().next();
            if (key.equals("Ref") || key.startsWith("Fn::")) {
                return intrinsic(key, value.get(key), path + "." + key);
            }
        }
        ObjectNode out = NODES.objectNode();
        for (Iterator<Map.Entry<String, JsonNode>> it = value.fields(); it.hasNext(); ) {
            Map.Entry<String, JsonNode> e = it.next();
            out.set(e.getKey(), resolve(e.getValue(), path + "." + e.getKey()));
        }
        return out;
    }

    private JsonNode intrinsic(String function, JsonNode args, String path) {
        return switch (function) {
            case "Ref" -> TextNode.valueOf(ref(text(args, path), path));
            case "Fn::GetAtt" -> TextNode.valueOf(getAtt(args, path));
            case "Fn::Join" -> TextNode.valueOf(join(args, path));
            case "Fn::Select" -> select(args, path);
            case "Fn::Split" -> split(args, path);
            case "Fn::Sub" -> TextNode.valueOf(sub(args, path));
            case "Fn::ImportValue" -> throw new UnresolvableTemplate(path + ": Fn::ImportValue " + args
                    + " names another stack's export; the local runner has only this stack");
            default -> throw new UnresolvableTemplate(path + ": the intrinsic " + function + " is not supported by the local resolver");
        };
    }

    private String ref(String name, String path) {
        return switch (name) {
            case "AWS::Region" -> local.region();
            case "AWS::AccountId" -> local.accountId();
            case "AWS::Partition" -> local.partition();
            case "AWS::URLSuffix" -> local.urlSuffix();
            default -> {
                if (name.startsWith("AWS::")) {
                    throw new UnresolvableTemplate(path + ": the pseudo parameter " + name + " has no local value");
                }
                yield resource(name, path).ref();
            }
        };
    }

    private LocalResources.Resource resource(String logicalId, String path) {
        return local.resource(logicalId).orElseThrow(() -> new UnresolvableTemplate(path + ": the logical id " + logicalId
                + " is not in the local resource map (known: " + new java.util.TreeSet<>(local.resources().keySet()) + ")"));
    }

    private String getAtt(JsonNode args, String path) {
        String logicalId;
        String attribute;
        if (args.isTextual()) {
            int dot = args.asText().indexOf('.');
            if (dot < 0) {
                throw new UnresolvableTemplate(path + ": Fn::GetAtt wants LogicalId.Attribute, got " + args);
            }
            logicalId = args.asText().substring(0, dot);
            attribute = args.asText().substring(dot + 1);
        } else {
            List<JsonNode> list = list(args, 2, path);
            logicalId = text(list.get(0), path);
            attribute = text(resolve(list.get(1), path + "[1]"), path);
        }
        return attribute(logicalId, attribute, path);
    }

    private String attribute(String logicalId, String attribute, String path) {
        String value = resource(logicalId, path).attributes().get(attribute);
        if (value == null) {
            throw new UnresolvableTemplate(path + ": the local resource " + logicalId + " has no attribute " + attribute);
        }
        return value;
    }

    private String join(JsonNode args, String path) {
        List<JsonNode> list = list(args, 2, path);
        String delimiter = text(list.get(0), path);
        JsonNode values = resolve(list.get(1), path + "[1]");
        if (!values.isArray()) {
            throw new UnresolvableTemplate(path + ": Fn::Join wants a list of values, got " + values);
        }
        List<String> parts = new ArrayList<>();
        values.forEach(v -> parts.add(text(v, path)));
        return String.join(delimiter, parts);
    }

    private JsonNode select(JsonNode args, String path) {
        List<JsonNode> list = list(args, 2, path);
        JsonNode index = resolve(list.get(0), path + "[0]");
        JsonNode values = resolve(list.get(1), path + "[1]");
        int i;
        try {
            i = Integer.parseInt(index.asText());
        } catch (NumberFormatException e) {
            throw new UnresolvableTemplate(path + ": Fn::Select index is not a number: " + index);
        }
        if (!values.isArray() || i < 0 || i >= values.size()) {
            throw new UnresolvableTemplate(path + ": Fn::Select index " + i + " outside " + values);
        }
        return values.get(i);
    }

    private JsonNode split(JsonNode args, String path) {
        List<JsonNode> list = list(args, 2, path);
        String delimiter = text(list.get(0), path);
        String source = text(resolve(list.get(1), path + "[1]"), path);
        ArrayNode out = NODES.arrayNode();
        for (String part : source.split(Pattern.quote(delimiter), -1)) {
            out.add(part);
        }
        return out;
    }

    private String sub(JsonNode args, String path) {
        String template;
        Map<String, String> variables = new java.util.HashMap<>();
        if (args.isTextual()) {
            template = args.asText();
        } else {
            List<JsonNode> list = list(args, 2, path);
            template = text(list.get(0), path);
            JsonNode vars = list.get(1);
            if (!vars.isObject()) {
                throw new UnresolvableTemplate(path + ": Fn::Sub variables must be an object, got " + vars);
            }
            vars.fields().forEachRemaining(e -> variables.put(e.getKey(), text(resolve(e.getValue(), path + "." + e.getKey()), path)));
        }
        Matcher m = SUB_VARIABLE.matcher(template);
        StringBuilder out = new StringBuilder();
        while (m.find()) {
            String name = m.group(1);
            String replacement;
            if (name.startsWith("!")) {
                replacement = "${" + name.substring(1) + "}";
            } else if (variables.containsKey(name)) {
                replacement = variables.get(name);
            } else if (name.startsWith("AWS::")) {
                replacement = ref(name, path);
            } else if (name.contains(".")) {
                int dot = name.indexOf('.');
                replacement = attribute(name.substring(0, dot), name.substring(dot + 1), path);
            } else {
                replacement = ref(name, path);
            }
            m.appendReplacement(out, Matcher.quoteReplacement(replacement));
        }
        m.appendTail(out);
        return out.toString();
    }

    private static List<JsonNode> list(JsonNode args, int size, String path) {
        if (!args.isArray() || args.size() != size) {
            throw new UnresolvableTemplate(path + ": expected a list of " + size + " arguments, got " + args);
        }
        List<JsonNode> out = new ArrayList<>();
        args.forEach(out::add);
        return out;
    }

    private static String text(JsonNode node, String path) {
        if (!node.isValueNode()) {
            throw new UnresolvableTemplate(path + ": expected a string, got " + node);
        }
        return node.asText();
    }
}
