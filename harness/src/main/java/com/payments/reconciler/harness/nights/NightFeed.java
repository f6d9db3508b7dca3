package com.payments.reconciler.harness.nights;

import com.fasterxml.jackson.databind.node.ObjectNode;
import com.payments.reconciler.harness.local.SyntheticEvents;
import com.payments.reconciler.ingest.EventDecoder;
import com.payments.reconciler.workflow.Json;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.SplittableRandom;

/**
 * A card platform's continuous feed over a series of nights (docs/integration.md events): each day
 * {@code perDay} new authorisations; settlements after a delay (most within 1-3 days, a tail to 10 days, which
 * lands after the 72 h grace: late captures), some never; some voided or expired within two days. Every event
 * happens during the platform's day, 4 h to 20 h after the day's window start, so none is timed while a night
 * runs (a night starts at its window start and takes minutes). Times, amounts and delays are drawn from the seed; which
 * authorisations settle (every third in two numbered captures), end, grow (an increment a day later), give part of the hold back
 * (a partial reversal a day later) or stay open is spread evenly over each day's volume: an event is published by the first batch after its
 * time, and the batch a night is preceded by holds every event timed before it. Synthetic ids and amounts only.
 *
 * @param firstDay the first day's window start (its events start 4 h later)
 */
public record NightFeed(Instant firstDay, int days, int perDay, long seed) {

    /** One event as the platform publishes it, at or after {@code at}. */
    public record Event(Instant at, String authorisationId, String type, String body) {
    }

    static final Duration DAY = Duration.ofDays(1);
    static final Duration BUSINESS_START = Duration.ofHours(4);
    static final Duration BUSINESS_LENGTH = Duration.ofHours(16);
    static final double SETTLED_SOON = 0.55;
    static final double SETTLED_LATE = 0.20;
    static final double ENDED = 0.05;
    /** Contract version 2 (docs/integration.md): of the open ones, some grow a day later (a hotel's increment) ... */
    static final double INCREMENTED = 0.05;
    /** ... and some give part of the hold back a day later (a partial reversal); every third settled one is captured in two parts. */
    static final double PARTLY_REVERSED = 0.05;
    private static final String[] CURRENCIES = {"EUR", "GBP", "USD"};
    private static final double GOLDEN = 0.6180339887498949;

    public NightFeed {
        if (days < 1 || perDay < 0) {
            throw new IllegalArgumentException("a feed covers at least one day with a non-negative volume");
        }
    }

    /** Every event of every day, in time order (the duplicates and shuffling are the publisher's). */
    public List<Event> events() {
        SplittableRandom random = new SplittableRandom(seed);
        List<Event> events = new ArrayList<>();
        for (int day = 0; day < days; day++) {
            Instant dayStart = firstDay.plus(DAY.multipliedBy(day));
            for (int i = 0; i < perDay; i++) {
                String id = String.format("auth-d%03d-%06d", day, i);
                Instant at = dayStart.plus(BUSINESS_START).plusMillis(random.nextLong(BUSINESS_LENGTH.toMillis()));
                long amount = 100 + random.nextLong(500_000);
                String currency = CURRENCIES[random.nextInt(CURRENCIES.length)];
                events.add(new Event(at, id, "authorisation.created", SyntheticEvents.event("authorisation.created", "created:" + id, id)
                        .put("amountMinor", amount).put("currency", currency).put("merchantId", "merchant-" + random.nextInt(50))
                        .put("authorisedAt", at.toString()).toString()));
                // Each day's fates spread evenly over the shares (a low-discrepancy sequence, not draws): a constant daily
                // volume then gives every night the same due load, so a night-over-night ratio measures history, not luck.
                double fate = (i * GOLDEN + day * 0.37) % 1.0;
                if (fate < SETTLED_SOON + SETTLED_LATE) {
                    Duration delay = fate < SETTLED_SOON
                            ? Duration.ofMinutes(Duration.ofDays(1).toMinutes() + random.nextLong(Duration.ofDays(2).toMinutes()))
                            : Duration.ofMinutes(Duration.ofDays(3).toMinutes() + random.nextLong(Duration.ofDays(7).toMinutes()));
                    Instant settledAt = duringTheDay(at.plus(delay));
                    if (i % 3 == 0 && amount > 1) {
                        // A split capture: two numbered parts summing to the amount, the second one final.
                        long first = amount / 2;
                        Instant secondAt = duringTheDay(settledAt.plus(Duration.ofMinutes(30)));
                        events.add(new Event(settledAt, id, "settlement.posted", capture(id, 1, first, currency, settledAt, false)));
                        events.add(new Event(secondAt, id, "settlement.posted", capture(id, 2, amount - first, currency, secondAt, true)));
                    } else {
                        events.add(new Event(settledAt, id, "settlement.posted", SyntheticEvents.event("settlement.posted", "settled:" + id, id)
                                .put("amountMinor", amount).put("currency", currency).put("settledAt", settledAt.toString()).toString()));
                    }
                } else if (fate < SETTLED_SOON + SETTLED_LATE + ENDED) {
                    Instant endedAt = duringTheDay(at.plus(Duration.ofMinutes(60 + random.nextLong(Duration.ofHours(47).toMinutes()))));
                    String type = random.nextBoolean() ? "authorisation.voided" : "authorisation.expired";
                    events.add(new Event(endedAt, id, type, SyntheticEvents.event(type, "ended:" + id, id).put("endedAt", endedAt.toString()).toString()));
                } else if (fate < SETTLED_SOON + SETTLED_LATE + ENDED + INCREMENTED + PARTLY_REVERSED) {
                    // A day later (so in a later batch than its create, and before the night it becomes due in): still open,
                    // and still released once due, at its new amount.
                    Instant changedAt = duringTheDay(at.plus(DAY));
                    boolean increment = fate < SETTLED_SOON + SETTLED_LATE + ENDED + INCREMENTED;
                    String type = increment ? EventDecoder.TYPE_INCREMENTED : EventDecoder.TYPE_REVERSED;
                    ObjectNode change = SyntheticEvents.event(type, (increment ? "incremented:" : "reversed:") + id, id).put("currency", currency);
                    if (increment) {
                        change.put("amountMinor", amount + 1 + random.nextLong(100_000)).put("incrementedAt", changedAt.toString());
                    } else {
                        change.put("amountMinor", Math.max(1, amount / 4)).put("reversedAt", changedAt.toString());
                    }
                    events.add(new Event(changedAt, id, type, change.toString()));
                }
            }
        }
        events.sort(Comparator.comparing(Event::at));
        return events;
    }

    private static String capture(String id, int sequence, long amount, String currency, Instant at, boolean last) {
        return SyntheticEvents.event("settlement.posted", "settled:" + id + ":" + sequence, id).put("amountMinor", amount).put("currency", currency)
                .put("settledAt", at.toString()).put("captureSequence", sequence).put("finalCapture", last).toString();
    }

    /** {@code t}, or the next start of the platform's day when {@code t} falls outside it. */
    Instant duringTheDay(Instant t) {
        long sinceFirst = Duration.between(firstDay, t).toMillis();
        long dayIndex = Math.floorDiv(sinceFirst, DAY.toMillis());
        Instant dayStart = firstDay.plus(DAY.multipliedBy(dayIndex));
        Instant open = dayStart.plus(BUSINESS_START);
        Instant close = open.plus(BUSINESS_LENGTH);
        if (t.isBefore(open)) {
            return open;
        }
        return t.isBefore(close) ? t : open.plus(DAY);
    }
}
