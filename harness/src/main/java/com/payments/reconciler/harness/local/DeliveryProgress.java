package com.payments.reconciler.harness.local;

import java.time.Duration;
import java.time.Instant;
import java.util.Locale;
import java.util.Map;

/**
 * One delivery progress line: the releases the provider performed so far of those the night's reconcile pages requested,
 * the rate since delivery started against the quota, and per shard its releases and rate against its share of the
 * quota (the night splits the quota evenly between the shards delivered at once).
 *
 * @param requested the releases the night's reconcile pages requested (their last page's total)
 * @param shards the night's delivery shards
 * @param quota the requests per second the night is configured with
 * @param concurrentShards how many shards deliver at once (the delivery Map's concurrency, at most the shards)
 * @param started when delivery started (the delivery state was entered)
 */
public record DeliveryProgress(long requested, int shards, double quota, int concurrentShards, Instant started) {

    public DeliveryProgress {
        if (shards < 1 || concurrentShards < 1) {
            throw new IllegalArgumentException("shards and concurrentShards must be at least 1, were " + shards + " and " + concurrentShards);
        }
    }

    /** The line for {@code delivered} (per shard number, releases performed so far) at {@code now}, without shard backlogs. */
    public String line(Map<Integer, Long> delivered, Instant now) {
        return line(delivered, Map.of(), now);
    }

    /**
     * The line for {@code delivered} at {@code now}, each shard's count "n of m" where {@code backlog} has its m (the
     * shard's commands when delivery started).
     */
    public String line(Map<Integer, Long> delivered, Map<Integer, Long> backlog, Instant now) {
        double seconds = Math.max(0.001, Duration.between(started, now).toMillis() / 1000.0);
        long done = delivered.values().stream().mapToLong(Long::longValue).sum();
        StringBuilder line = new StringBuilder(String.format(Locale.ROOT, "  delivery: %,d of %,d released, %.1f/s (quota %s/s)",
                done, requested, done / seconds, number(quota)));
        String share = number(quota / concurrentShards);
        for (int shard = 0; shard < shards; shard++) {
            long n = delivered.getOrDefault(shard, 0L);
            Long of = backlog.get(shard);
            line.append(String.format(Locale.ROOT, "; shard %d: %,d%s, %.1f/s of %s/s", shard, n,
                    of == null ? "" : String.format(Locale.ROOT, " of %,d", of), n / seconds, share));
        }
        return line.toString();
    }

    private static String number(double value) {
        return value == Math.rint(value) ? Long.toString((long) value) : String.format(Locale.ROOT, "%.1f", value);
    }
}
