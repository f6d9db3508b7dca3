package com.payments.reconciler.window;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.payments.reconciler.workflow.InvalidInput;
import com.payments.reconciler.workflow.Json;
import com.payments.reconciler.workflow.JsonHandler;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;

/**
 * The night a task decides with (docs/design.md §8): the {@link ExecutionInput}'s window and dry-run resolved against the
 * functions' deployed configuration by {@link WindowConfig#resolve}, once per execution, by AcquireLease; the later tasks
 * receive it from the workflow's state (AcquireLease's output), never from the execution input, and the execution's history
 * shows the grace and cutoff the night used. Every task reads the cutoff from here, never from its own clock.
 *
 * @param windowId the schedule's nominal date, {@code YYYY-MM-DD}
 * @param windowStart the window's nominal start: its date at the schedule's configured local time, in the
 *                    schedule's zone ({@link WindowConfig#windowStart}), never the instant a delivery carried
 * @param cutoff {@code windowStart - gracePeriod}: authorisations older than this with no settlement are released
 * @param gracePeriod how long a settlement may take to arrive
 * @param dryRun decide and report, change nothing
 * @param shards shards of the sparse GSIs to read
 */
public record NightWindow(String windowId, Instant windowStart, Instant cutoff, Duration gracePeriod,
                             Boolean dryRun, Integer shards) {

    public static final int MAX_SHARDS = 64;
    private static final ObjectMapper JSON = Json.mapper();

    public NightWindow {
        WindowId.parse(windowId, "windowId");
        if (windowStart == null) {
            throw new InvalidInput("windowStart", "required, an ISO-8601 instant such as 2026-12-01T02:00:00Z");
        }
        if (gracePeriod == null || gracePeriod.isNegative() || gracePeriod.isZero()) {
            throw new InvalidInput("gracePeriod", "required, a positive ISO-8601 duration such as PT72H");
        }
        if (cutoff == null) {
            throw new InvalidInput("cutoff", "required, an ISO-8601 instant (windowStart - gracePeriod)");
        }
        if (!cutoff.equals(windowStart.minus(gracePeriod))) {
            throw new InvalidInput("cutoff", "must equal windowStart - gracePeriod = " + windowStart.minus(gracePeriod)
                    + ", was " + cutoff);
        }
        if (dryRun == null) {
            throw new InvalidInput("dryRun", "required, true or false");
        }
        if (shards == null || shards < 1 || shards > MAX_SHARDS) {
            throw new InvalidInput("shards", "must be an integer from 1 to " + MAX_SHARDS + ", was " + shards);
        }
    }

    /**
     * Canonical JSON: fields in declaration order, instants in UTC ({@code Z}), durations ISO-8601, no
     * whitespace. The same window and configuration always give the same bytes, which is what lets
     * Step Functions recognise a duplicate start (same name, same input).
     */
    public String toJson() {
        try {
            return JSON.writeValueAsString(this);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("execution input not serialisable", e);
        }
    }

    /** This night reading {@code value} shards (the highest a night ever ran with: LeaseStore.recordShards). */
    public NightWindow withShards(int value) {
        return new NightWindow(windowId, windowStart, cutoff, gracePeriod, dryRun, value);
    }

    /** The execution input this night was resolved from: its window and dry-run. */
    public ExecutionInput executionInput() {
        return new ExecutionInput(windowId, dryRun);
    }

    /** The sha256 of {@link #toJson()}: what logs show instead of the input itself. */
    public String sha256() {
        return sha256(toJson());
    }

    public static String sha256(String text) {
        try {
            byte[] digest = MessageDigest.getInstance("SHA-256").digest(text.getBytes(StandardCharsets.UTF_8));
            return HexFormat.of().formatHex(digest);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    /** Parses an execution input strictly (unknown, missing or mistyped fields are errors naming them). */
    public static NightWindow parse(String json) {
        if (json == null) {
            throw new InvalidInput("input", "required, the execution input JSON object");
        }
        return JsonHandler.parse(json.getBytes(StandardCharsets.UTF_8), NightWindow.class);
    }

    /** The fields in which two inputs differ, by name (for the "configuration changed" warning). */
    public List<String> differingFields(NightWindow other) {
        List<String> fields = new ArrayList<>();
        if (!windowId.equals(other.windowId)) fields.add("windowId");
        if (!windowStart.equals(other.windowStart)) fields.add("windowStart");
        if (!cutoff.equals(other.cutoff)) fields.add("cutoff");
        if (!gracePeriod.equals(other.gracePeriod)) fields.add("gracePeriod");
        if (!dryRun.equals(other.dryRun)) fields.add("dryRun");
        if (!shards.equals(other.shards)) fields.add("shards");
        return fields;
    }
}
