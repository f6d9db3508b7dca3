package com.payments.reconciler.window;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.payments.reconciler.workflow.AcceptedForm;
import com.payments.reconciler.workflow.InvalidInput;
import com.payments.reconciler.workflow.Json;
import com.payments.reconciler.workflow.JsonHandler;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * The execution input: the window and dry-run, nothing else (docs/decisions.md, "Configuration from the deployment only").
 * The cutoff, grace period, shards and zone come from the functions' deployed environment ({@link WindowConfig}); the first
 * task resolves them into a {@link NightWindow} that the later tasks receive from the workflow's state, never from whoever
 * started the execution. An input with any other field (a {@code gracePeriod}, {@code shards}, {@code cutoff}) is refused
 * with {@code InvalidInput} naming the field, before anything is written. Byte-identical for the same window and dry-run,
 * which is what lets Step Functions recognise a duplicate start (same name, same input).
 *
 * @param windowId the schedule's nominal date, {@code YYYY-MM-DD}
 * @param dryRun decide and report, change nothing
 */
@AcceptedForm(ExecutionInput.ACCEPTED_FORM)
public record ExecutionInput(String windowId, Boolean dryRun) {

    /** What an execution input may contain, for the error that names a field it may not. */
    public static final String ACCEPTED_FORM = "the input is {\"windowId\": \"YYYY-MM-DD\", \"dryRun\": true|false} and nothing else: "
            + "the cutoff, grace period, shards and zone come from the deployed stack";
    private static final ObjectMapper JSON = Json.mapper();

    public ExecutionInput {
        WindowId.parse(windowId, "windowId");
        if (dryRun == null) {
            throw new InvalidInput("dryRun", "required, true or false");
        }
    }

    public WindowId window() {
        return WindowId.parse(windowId, "windowId");
    }

    /** Canonical JSON: fields in declaration order, no whitespace; the same window and dry-run always give the same bytes. */
    public String toJson() {
        try {
            return JSON.writeValueAsString(this);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("execution input not serialisable", e);
        }
    }

    /** The sha256 of {@link #toJson()}: what logs show instead of the input itself. */
    public String sha256() {
        return sha256(toJson());
    }

    public static String sha256(String text) {
        return NightWindow.sha256(text);
    }

    /** Parses an execution input strictly (an unknown, missing or mistyped field is an error naming it). */
    public static ExecutionInput parse(String json) {
        if (json == null) {
            throw new InvalidInput("input", "required, the execution input JSON object");
        }
        return JsonHandler.parse(json.getBytes(StandardCharsets.UTF_8), ExecutionInput.class);
    }

    /** The fields in which two inputs differ, by name (for the "input differs" warning). */
    public List<String> differingFields(ExecutionInput other) {
        List<String> fields = new ArrayList<>();
        if (!windowId.equals(other.windowId)) fields.add("windowId");
        if (!dryRun.equals(other.dryRun)) fields.add("dryRun");
        return fields;
    }
}
