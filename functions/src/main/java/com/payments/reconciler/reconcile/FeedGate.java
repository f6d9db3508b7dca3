package com.payments.reconciler.reconcile;

import com.payments.reconciler.store.Backoff;
import com.payments.reconciler.store.StoreErrors;
import com.payments.reconciler.store.Tables.Settlements;
import com.payments.reconciler.workflow.FeedNotComplete;
import com.payments.reconciler.workflow.MaxSettlementFeedLag;
import com.payments.reconciler.workflow.StoreContention;
import com.payments.reconciler.workflow.Timing;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.BatchGetItemResponse;
import software.amazon.awssdk.services.dynamodb.model.KeysAndAttributes;

/**
 * Feed completeness (docs/design.md, "Feed completeness"): a settlement the reconciler never stored looks exactly
 * like no settlement, so a night releases only while the settlement feed's watermark ("every settlement posted at or
 * before T has been published") is at least {@code now - maxSettlementFeedLag}. ReconcilePage asks before it commits
 * any release decision, DeliverCommands before any provider call; otherwise {@link FeedNotComplete} ends the run with
 * nothing released, naming the watermark and its age.
 */
public final class FeedGate {

    /** Where the stored watermark comes from: the Settlements table's feed item in the functions, a value in a test. */
    @FunctionalInterface
    public interface WatermarkSource {
        Optional<Instant> settlementWatermark();
    }

    /** The gate's answer for one moment. */
    public sealed interface Verdict {
        record Complete(Instant watermark) implements Verdict {
        }

        /** {@code why} names the watermark (or its absence), its age and the lag allowed. */
        record NotComplete(Optional<Instant> watermark, String why) implements Verdict {
        }
    }

    private final WatermarkSource source;
    private final MaxSettlementFeedLag lag;
    private final Clock clock;

    public FeedGate(WatermarkSource source, MaxSettlementFeedLag lag, Clock clock) {
        this.source = Objects.requireNonNull(source, "source");
        this.lag = Objects.requireNonNull(lag, "lag");
        this.clock = Objects.requireNonNull(clock, "clock");
    }

    /** The deployed gate: the watermark item IngestEvents keeps in Settlements, read strongly consistent. */
    public static FeedGate stored(DynamoDbClient dynamo, String settlementsTable, Backoff backoff, MaxSettlementFeedLag lag, Clock clock) {
        return new FeedGate(() -> readWatermark(dynamo, settlementsTable, backoff), lag, clock);
    }

    /**
     * The rule, pure. Complete when {@code now - lag <= watermark <= now + FEED_WATERMARK_MAX_AHEAD}: every
     * settlement posted before {@code now - lag} is known to have been published. Not complete without a watermark, with
     * an older one, or with one from the future (a publisher's bug that the monotonic store would otherwise keep).
     */
    public static Verdict judge(Optional<Instant> watermark, Instant now, MaxSettlementFeedLag lag) {
        if (watermark.isEmpty()) {
            return new Verdict.NotComplete(watermark, "no feed.watermark for feed '" + Settlements.SETTLEMENTS_FEED
                    + "' was ever ingested (at " + now + ", maxSettlementFeedLag " + lag.lag() + ")");
        }
        Instant at = watermark.get();
        Duration age = Duration.between(at, now);
        if (at.isAfter(now.plus(Timing.FEED_WATERMARK_MAX_AHEAD))) {
            return new Verdict.NotComplete(watermark, "settlement watermark " + at + " is " + age.negated() + " ahead of now (" + now
                    + "), more than the " + Timing.FEED_WATERMARK_MAX_AHEAD + " of clock skew allowed: a publisher's bug cannot vouch for the feed");
        }
        if (at.isBefore(now.minus(lag.lag()))) {
            return new Verdict.NotComplete(watermark, "settlement watermark " + at + " is " + age + " old at " + now
                    + ", more than maxSettlementFeedLag " + lag.lag());
        }
        return new Verdict.Complete(at);
    }

    /** The verdict now. */
    public Verdict verdict() {
        return judge(source.settlementWatermark(), clock.instant(), lag);
    }

    /**
     * Throws {@link FeedNotComplete} unless the feed is complete now; {@code step} says what was about to happen
     * (e.g. "deciding window 2026-12-06"). Returns the watermark it accepted.
     */
    public Instant requireComplete(String step) {
        return switch (verdict()) {
            case Verdict.Complete complete -> complete.watermark();
            case Verdict.NotComplete not -> throw new FeedNotComplete("FeedNotComplete: " + not.why() + "; nothing released before "
                    + step + " (the next run after the feed caught up proceeds; docs/operating.md, runbook)");
        };
    }

    private static Optional<Instant> readWatermark(DynamoDbClient dynamo, String table, Backoff backoff) {
        KeysAndAttributes key = KeysAndAttributes.builder()
                .keys(List.of(Map.of(Settlements.AUTHORISATION_ID, AttributeValue.fromS(Settlements.feedKey(Settlements.SETTLEMENTS_FEED)))))
                .projectionExpression(Settlements.WATERMARK)
                .consistentRead(true)
                .build();
        // BatchGetItem, the read both roles already hold on Settlements: one key, retried while DynamoDB leaves it unprocessed.
        for (int attempt = 1; ; attempt++) {
            BatchGetItemResponse response = StoreErrors.call("read the settlement feed's watermark",
                    () -> dynamo.batchGetItem(b -> b.requestItems(Map.of(table, key))));
            List<Map<String, AttributeValue>> items = response.responses().getOrDefault(table, List.of());
            if (!items.isEmpty()) {
                return watermarkOf(items.getFirst());
            }
            KeysAndAttributes left = response.unprocessedKeys().get(table);
            if (left == null || !left.hasKeys() || left.keys().isEmpty()) {
                return Optional.empty();
            }
            if (attempt >= backoff.maxAttempts()) {
                throw new StoreContention("read the settlement feed's watermark: still unprocessed after " + attempt + " attempts");
            }
            backoff.beforeRetry(attempt);
        }
    }

    /** An unreadable watermark vouches for nothing. */
    static Optional<Instant> watermarkOf(Map<String, AttributeValue> item) {
        AttributeValue value = item.get(Settlements.WATERMARK);
        try {
            return value == null || value.n() == null ? Optional.empty() : Optional.of(Instant.ofEpochMilli(Long.parseLong(value.n())));
        } catch (NumberFormatException e) {
            return Optional.empty();
        }
    }
}
