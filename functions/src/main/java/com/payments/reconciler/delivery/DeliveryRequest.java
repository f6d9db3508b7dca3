package com.payments.reconciler.delivery;

import com.payments.reconciler.lease.LeaseToken;
import com.payments.reconciler.window.NightWindow;
import com.payments.reconciler.workflow.InvalidInput;
import com.payments.reconciler.workflow.LogContext;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.time.format.DateTimeParseException;
import java.util.Map;
import java.util.Optional;

/**
 * Input of one DeliverCommands call: one shard of the outbox's sparse {@code pending-delivery} GSI.
 * No command ids travel through the workflow's state; the function reads them from the index.
 *
 * @param batch the previous call's result for this shard, or absent on the first call
 */
public record DeliveryRequest(NightWindow window, LeaseToken lease, Integer shard, DeliveryBatch batch,
                              String executionStartedAt) implements LogContext {

    public DeliveryRequest(NightWindow window, LeaseToken lease, Integer shard, DeliveryBatch batch) {
        this(window, lease, shard, batch, null);
    }

    public DeliveryRequest {
        if (window == null) {
            throw new InvalidInput("window", "required, the execution input");
        }
        if (lease == null) {
            throw new InvalidInput("lease", "required, {leaseName, ownerId, epoch} from AcquireLease");
        }
        if (shard == null || shard < 0 || shard >= window.shards()) {
            throw new InvalidInput("shard", "required, an integer from 0 to " + (window.shards() - 1) + ", was " + shard);
        }
        if (batch == null) {
            batch = DeliveryBatch.FIRST;
        }
        if (executionStartedAt != null) {
            startedAt(executionStartedAt);
        }
    }

    /** {@code $$.Execution.StartTime}, absent in inputs written before delivery plans (a redrive replays them). */
    public Optional<Instant> executionStart() {
        return executionStartedAt == null ? Optional.empty() : Optional.of(startedAt(executionStartedAt));
    }

    private static Instant startedAt(String value) {
        try {
            return Instant.parse(value);
        } catch (DateTimeParseException e) {
            try {
                return LocalDateTime.parse(value).toInstant(ZoneOffset.UTC);
            } catch (DateTimeParseException notLocal) {
                throw new InvalidInput("executionStartedAt", "an ISO-8601 instant, the execution's $$.Execution.StartTime "
                        + "(e.g. 2026-12-01T02:00:00.123Z), was '" + value + "'");
            }
        }
    }

    @Override
    public Map<String, String> logContext() {
        Map<String, String> fields = LogContext.of(window.windowId(), lease.ownerId(), lease.epoch());
        fields.put("shard", Integer.toString(shard));
        return fields;
    }
}
