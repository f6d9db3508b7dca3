package com.payments.reconciler.statemachine;

import com.fasterxml.jackson.databind.JsonNode;
import com.payments.reconciler.workflow.LambdaFunction;
import com.payments.reconciler.workflow.WorkflowDefinition;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** The shipped ASL as a tree, with the lookups the definition tests share. */
final class Asl {

    final JsonNode root;

    private Asl(JsonNode root) {
        this.root = root;
    }

    /** A definition built or mutated in a test (e.g. an old failure path, to show a check can fail). */
    static Asl of(JsonNode root) {
        return new Asl(root);
    }

    static Asl shipped() {
        return new Asl(WorkflowDefinition.shipped().tree());
    }

    /** Every state by name, Map iterations included, with the Map state that encloses it (or null). */
    Map<String, Located> states() {
        Map<String, Located> all = new LinkedHashMap<>();
        collect(root.get("States"), null, all);
        return all;
    }

    record Located(String name, JsonNode state, Located enclosingMap) {
        String type() {
            return state.path("Type").asText();
        }
    }

    private static void collect(JsonNode states, Located enclosing, Map<String, Located> into) {
        Iterator<Map.Entry<String, JsonNode>> fields = states.fields();
        while (fields.hasNext()) {
            Map.Entry<String, JsonNode> entry = fields.next();
            Located located = new Located(entry.getKey(), entry.getValue(), enclosing);
            into.put(entry.getKey(), located);
            JsonNode processor = entry.getValue().path("ItemProcessor").path("States");
            if (!processor.isMissingNode()) {
                collect(processor, located, into);
            }
        }
    }

    List<Located> tasks() {
        return states().values().stream().filter(s -> s.type().equals("Task")).toList();
    }

    /** The function a Task invokes, from its {@code ${...}} substitution. */
    static LambdaFunction functionOf(Located task) {
        String name = task.state().path("Parameters").path("FunctionName").asText();
        return WorkflowDefinition.functionSubstitutedBy(name)
                .orElseThrow(() -> new AssertionError("task " + task.name() + " invokes an unknown function " + name));
    }

    static List<JsonNode> list(JsonNode array) {
        List<JsonNode> out = new ArrayList<>();
        array.forEach(out::add);
        return out;
    }

    static List<String> names(JsonNode retrierOrCatcher) {
        return list(retrierOrCatcher.path("ErrorEquals")).stream().map(JsonNode::asText).toList();
    }
}
