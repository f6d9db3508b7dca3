package com.payments.reconciler.harness.bench;

import com.fasterxml.jackson.databind.JsonNode;
import com.payments.reconciler.workflow.WorkflowDefinition;
import java.util.ArrayList;
import java.util.List;

/**
 * The design this one is compared with: the same workflow, but one Map iteration per authorisation
 * instead of loops over pages and batches — computed from the shipped ASL's shape, not assumed.
 *
 * <p>Walking the success path from {@code StartAt} (a Choice follows its {@code Default}), a Choice that
 * jumps back to an earlier state closes a loop; the states from its target up to it are the loop body. The
 * naive design runs, for every authorisation, the main loop's body once (deciding one) and the delivery
 * Map's iteration once without its loop (delivering one); everything else on the success path runs once
 * per window. So per authorisation it costs the states of those two paths as transitions and their Task
 * states as Lambda invocations; per window, the remaining states (and their tasks).
 */
public record NaiveDesign(List<String> perAuthorisationStates, int perAuthorisationInvocations,
                          List<String> perWindowStates, int perWindowInvocations) {

    public static NaiveDesign of(WorkflowDefinition definition) {
        JsonNode root = definition.tree();
        Path main = Path.walk(root);
        List<String> perItem = new ArrayList<>(main.loopBody());
        int perItemTasks = main.tasksIn(main.loopBody());
        List<String> perWindow = new ArrayList<>();
        int perWindowTasks = 0;
        for (String state : main.states()) {
            if (main.loopBody().contains(state) || main.loopControl().contains(state)) {
                continue;
            }
            perWindow.add(state);
            JsonNode node = main.node(state);
            if ("Task".equals(node.path("Type").asText())) {
                perWindowTasks++;
            }
            if ("Map".equals(node.path("Type").asText())) {
                JsonNode processor = node.has("ItemProcessor") ? node.get("ItemProcessor") : node.get("Iterator");
                Path iteration = Path.walk(processor);
                for (String inner : iteration.states()) {
                    if (!iteration.loopControl().contains(inner)) {
                        perItem.add(inner);
                        if ("Task".equals(iteration.node(inner).path("Type").asText())) {
                            perItemTasks++;
                        }
                    }
                }
            }
        }
        if (perItem.isEmpty()) {
            throw new IllegalStateException("the state machine has no loop over candidates and no Map: nothing to compare with");
        }
        return new NaiveDesign(List.copyOf(perItem), perItemTasks, List.copyOf(perWindow), perWindowTasks);
    }

    public long transitions(long authorisations) {
        return perWindowStates.size() + authorisations * perAuthorisationStates.size();
    }

    /** Invocations by the workflow (StartWindow, invoked by the schedule, is the same in both designs and not included). */
    public long invocations(long authorisations) {
        return perWindowInvocations + authorisations * perAuthorisationInvocations;
    }

    /** The success path of one States object, in order, with its loops. */
    private record Path(JsonNode states0, List<String> states, List<String> loopBody, List<String> loopControl) {

        static Path walk(JsonNode machine) {
            JsonNode states = machine.get("States");
            List<String> order = new ArrayList<>();
            List<String> body = new ArrayList<>();
            List<String> control = new ArrayList<>();
            String current = machine.get("StartAt").asText();
            while (current != null && !order.contains(current)) {
                order.add(current);
                JsonNode state = states.get(current);
                if (state == null) {
                    throw new IllegalStateException("the definition names a state it does not define: " + current);
                }
                String type = state.path("Type").asText();
                if ("Choice".equals(type)) {
                    for (JsonNode choice : state.path("Choices")) {
                        int target = order.indexOf(choice.path("Next").asText());
                        if (target >= 0) {
                            body.addAll(order.subList(target, order.size() - 1));
                            control.add(current);
                        }
                    }
                    current = state.path("Default").asText(null);
                } else if (state.path("End").asBoolean(false) || "Succeed".equals(type) || "Fail".equals(type)) {
                    current = null;
                } else {
                    current = state.path("Next").asText(null);
                }
            }
            return new Path(states, List.copyOf(order), List.copyOf(body), List.copyOf(control));
        }

        JsonNode node(String state) {
            return states0.get(state);
        }

        int tasksIn(List<String> names) {
            return (int) names.stream().filter(n -> "Task".equals(node(n).path("Type").asText())).count();
        }
    }
}
