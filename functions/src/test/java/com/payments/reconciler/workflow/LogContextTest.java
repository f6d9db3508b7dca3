package com.payments.reconciler.workflow;

import com.amazonaws.services.lambda.runtime.Context;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.slf4j.MDC;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Every log line of a leader-side task carries its execution, window and epoch; nothing leaks into the next invocation. */
class LogContextTest {

    record TracedInput(String windowId, String ownerId, long epoch) implements LogContext {
        @Override
        public Map<String, String> logContext() {
            return LogContext.of(windowId, ownerId, epoch);
        }
    }

    /** Records the MDC as the handler body sees it; fails on demand, as a handler error would. */
    static final class RecordingHandler extends JsonHandler<TracedInput, String> {
        Map<String, String> seen;
        boolean fail;

        RecordingHandler() {
            super(TracedInput.class);
        }

        @Override
        protected String handle(TracedInput input, Context context) {
            seen = new HashMap<>(MDC.getCopyOfContextMap());
            if (fail) {
                throw new StoreContention("injected");
            }
            return "ok";
        }
    }

    private static final String INPUT = """
            {"windowId": "2026-12-01", "ownerId": "reconcile-2026-12-01-rerun-2/0f8fad5b-d9cb-469f-a165-70867728950e", "epoch": 7}
            """;

    @AfterEach
    void clean() {
        MDC.clear();
    }

    @Test
    void theInvocationLogsWithExecutionWindowAndEpoch() throws Exception {
        RecordingHandler handler = new RecordingHandler();
        handler.handleRequest(new ByteArrayInputStream(INPUT.getBytes(StandardCharsets.UTF_8)), new ByteArrayOutputStream(), null);

        assertThat(handler.seen).containsExactlyInAnyOrderEntriesOf(Map.of(
                "windowId", "2026-12-01", "executionName", "reconcile-2026-12-01-rerun-2", "epoch", "7"));
        assertThat(MDC.getCopyOfContextMap()).as("cleared after the invocation").isNullOrEmpty();
    }

    @Test
    void aFailedInvocationLeavesNoContextBehind() {
        RecordingHandler handler = new RecordingHandler();
        handler.fail = true;

        assertThatThrownBy(() -> handler.handleRequest(new ByteArrayInputStream(INPUT.getBytes(StandardCharsets.UTF_8)),
                new ByteArrayOutputStream(), null)).isInstanceOf(StoreContention.class);
        assertThat(handler.seen).containsEntry("epoch", "7");
        assertThat(MDC.getCopyOfContextMap()).isNullOrEmpty();
    }

    @Test
    void withoutAnOwnerOrEpochOnlyTheWindowIsLogged() {
        assertThat(LogContext.of("2026-12-01", null, null)).containsExactly(Map.entry("windowId", "2026-12-01"));
    }
}
