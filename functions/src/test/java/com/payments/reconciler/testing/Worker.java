package com.payments.reconciler.testing;

import com.payments.reconciler.lease.AcquireResult;
import com.payments.reconciler.lease.Lease;
import com.payments.reconciler.lease.LeaseStore;
import com.payments.reconciler.reconcile.Candidate;
import com.payments.reconciler.reconcile.CandidateFinder;
import com.payments.reconciler.reconcile.FencedWriter;
import com.payments.reconciler.reconcile.ReleaseOutcome;
import com.payments.reconciler.store.Backoff;
import com.payments.reconciler.store.TableNames;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * One copy of the worker, built from the production components: it acquires, reads candidates and
 * writes through the fenced path, on its own client and the shared test clock.
 */
public final class Worker {

    public static final String LEASE = "hold-release-reconciler";
    public static final String WINDOW = "2026-12-01";

    private final String name;
    private final LeaseStore leases;
    private final CandidateFinder finder;
    private final FencedWriter writer;
    private final Clock clock;
    private final int shards;
    private Lease lease;
    private int attempt;

    public Worker(String name, DynamoDbClient dynamo, TableNames tables, Clock clock, Duration leaseDuration, int shards,
                  Fence fence) {
        this.name = name;
        this.leases = new LeaseStore(dynamo, tables.leases(), leaseDuration);
        this.finder = new CandidateFinder(dynamo, tables.authorisations());
        this.writer = new FencedWriter(fence.writerClient(dynamo, tables), tables, new Backoff(name.hashCode(), d -> { }, 6,
                Duration.ofMillis(1), Duration.ofMillis(5)));
        this.clock = clock;
        this.shards = shards;
    }

    /** A new acquisition attempt with a new owner id, as each execution's MintOwnerId does. */
    public AcquireResult acquire() {
        attempt++;
        AcquireResult result = leases.acquire(LEASE, name + "/attempt-" + attempt, clock.instant());
        if (result instanceof AcquireResult.Acquired acquired) {
            lease = acquired.lease();
        }
        return result;
    }

    public Lease lease() {
        return lease;
    }

    public Lease renew() {
        lease = leases.renew(lease.token(), clock.instant());
        return lease;
    }

    /** Every candidate before the cutoff, all shards, in pages of {@code pageSize}. */
    public List<Candidate> readAll(Instant cutoff, int pageSize) {
        List<Candidate> all = new ArrayList<>();
        for (int shard = 0; shard < shards; shard++) {
            Map<String, software.amazon.awssdk.services.dynamodb.model.AttributeValue> key = Map.of();
            do {
                CandidateFinder.Page page = finder.page(shard, cutoff, key, pageSize);
                all.addAll(page.candidates());
                key = page.nextKey();
            } while (!key.isEmpty());
        }
        return all;
    }

    public ReleaseOutcome release(Candidate candidate, Instant cutoff) {
        return writer.requestRelease(lease.token(), candidate, WINDOW, cutoff, clock.instant());
    }

    /** Decides a batch in one fenced transaction (split only on cancellation), as ReconcilePage does. */
    public List<ReleaseOutcome> releaseAll(List<Candidate> candidates, Instant cutoff) {
        return writer.requestReleases(lease.token(), candidates, WINDOW, cutoff, clock.instant());
    }

    public String name() {
        return name;
    }
}
