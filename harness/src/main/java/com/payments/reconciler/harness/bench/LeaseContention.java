package com.payments.reconciler.harness.bench;

import com.payments.reconciler.harness.local.SyntheticData;
import com.payments.reconciler.lease.AcquireResult;
import com.payments.reconciler.lease.LeaseStore;
import com.payments.reconciler.lease.LeaseToken;
import com.payments.reconciler.local.faults.DynamoFaults;
import com.payments.reconciler.local.faults.DynamoOperation;
import com.payments.reconciler.local.faults.Fault;
import com.payments.reconciler.reconcile.Candidate;
import com.payments.reconciler.reconcile.CandidateFinder;
import com.payments.reconciler.reconcile.FencedWriter;
import com.payments.reconciler.reconcile.ReleaseOutcome;
import com.payments.reconciler.store.Backoff;
import com.payments.reconciler.store.TableCreator;
import com.payments.reconciler.store.TableNames;
import java.net.URI;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;

/**
 * The hot lease item (docs/design.md §11), simulated: {@code workers} shard writers (a Distributed Map over
 * shards) each run real fenced transactions through {@link FencedWriter} against the local engine; shard
 * {@code s} checks fence replica {@code s mod K}. DynamoDB cancels a transaction with
 * {@code TransactionConflict} when an item it names is part of another ongoing transaction, so every
 * writer on the same replica can collide with the others there. The local engine serialises requests and
 * never conflicts, so the conflicts come from the fault layer's conflict model ({@link DynamoFaults}, a
 * per-attempt TransactionConflict cancellation): an attempt conflicts with probability
 * {@code 1 − (1 − h)^(n − 1)}, where {@code n} is the number of writers sharing its replica and {@code h}
 * the fraction of its time a writer's transaction holds the fence item. {@link FencedWriter} then does what
 * it does on AWS: jittered backoff, a fresh attempt, and {@code StoreContention} after
 * {@code STORE_MAX_ATTEMPTS}. The figures are local-engine throughput under that model, not AWS figures.
 */
public final class LeaseContention {

    private static final Instant NOW = Instant.parse("2026-12-01T02:00:00Z");
    private static final Instant CUTOFF = NOW.minus(Duration.ofHours(72));

    /**
     * @param workers concurrent shard writers
     * @param replicas the fence replica counts K to compare
     * @param transactionsPerWorker fenced releases each writer attempts per K
     * @param holdFraction the model's h: fraction of a writer's time its transaction holds the fence item
     */
    public record Settings(int workers, List<Integer> replicas, int transactionsPerWorker, double holdFraction, long seed) {
        public Settings {
            replicas = List.copyOf(replicas);
        }
    }

    /** One K: the modelled conflict probability and what the writers achieved under it. */
    public record Row(int replicas, int writersPerReplica, double conflictProbability, long committed, long gaveUp,
                      long conflictsInjected, double transactionsPerSecond, double attemptsPerCommit) {
    }

    private final DynamoDbClient dynamo;
    private final URI endpoint;

    public LeaseContention(DynamoDbClient dynamo, URI endpoint) {
        this.dynamo = dynamo;
        this.endpoint = endpoint;
    }

    public static double conflictProbability(int writersPerReplica, double holdFraction) {
        return 1 - Math.pow(1 - holdFraction, writersPerReplica - 1);
    }

    public List<Row> simulate(Settings settings) throws InterruptedException {
        List<Row> rows = new ArrayList<>();
        for (int k : settings.replicas()) {
            rows.add(simulate(settings, k));
        }
        return rows;
    }

    private Row simulate(Settings settings, int replicas) throws InterruptedException {
        TableNames tables = TableNames.withPrefix("bench-k" + replicas + "-");
        new TableCreator(dynamo).createAll(tables);
        int shards = settings.workers();
        new SyntheticData(shards * settings.transactionsPerWorker(), 0.0, 0.0, settings.seed()).load(dynamo, tables, CUTOFF, shards);
        LeaseStore leases = new LeaseStore(dynamo, tables.leases(), Duration.ofHours(2));
        List<LeaseToken> fences = new ArrayList<>();
        for (int r = 0; r < replicas; r++) {
            fences.add(switch (leases.acquire("bench-lease#fence#" + r, "bench/contention", NOW)) {
                case AcquireResult.Acquired acquired -> acquired.lease().token();
                case AcquireResult other -> throw new IllegalStateException("fence replica " + r + " not acquired: " + other);
            });
        }
        int perReplica = (shards + replicas - 1) / replicas;
        double p = conflictProbability(perReplica, settings.holdFraction());
        CandidateFinder finder = new CandidateFinder(dynamo, tables.authorisations());
        List<List<Candidate>> work = new ArrayList<>();
        for (int shard = 0; shard < shards; shard++) {
            work.add(FenceOverhead.allDue(finder, shard, CUTOFF));
        }

        List<DynamoFaults> faults = new ArrayList<>();
        List<Writer> writers = new ArrayList<>();
        for (int shard = 0; shard < shards; shard++) {
            DynamoFaults conflicts = DynamoFaults.builder(settings.seed() * 31 + shard).clock(InstantSource.system())
                    .probability(Fault.TRANSACTION_CONFLICT, p, DynamoOperation.TRANSACT_WRITE_ITEMS).build();
            faults.add(conflicts);
            DynamoDbClient client = BenchClients.dynamo(endpoint, List.of(conflicts));
            writers.add(new Writer(client, new FencedWriter(client, tables, Backoff.standard(settings.seed() + shard)),
                    fences.get(shard % replicas), work.get(shard)));
        }
        CountDownLatch start = new CountDownLatch(1);
        ExecutorService pool = Executors.newFixedThreadPool(shards);
        try {
            List<Future<long[]>> results = new ArrayList<>();
            for (Writer writer : writers) {
                results.add(pool.submit(() -> {
                    start.await();
                    return writer.run();
                }));
            }
            long started = System.nanoTime();
            start.countDown();
            long committed = 0;
            long gaveUp = 0;
            for (Future<long[]> result : results) {
                long[] counts = result.get();
                committed += counts[0];
                gaveUp += counts[1];
            }
            double seconds = (System.nanoTime() - started) / 1e9;
            long conflicts = faults.stream().mapToLong(f -> f.count(Fault.TRANSACTION_CONFLICT, DynamoOperation.TRANSACT_WRITE_ITEMS)).sum();
            return new Row(replicas, perReplica, p, committed, gaveUp, conflicts, committed / seconds,
                    committed == 0 ? Double.NaN : (double) (committed + conflicts) / committed);
        } catch (ExecutionException e) {
            throw new IllegalStateException("a simulated shard writer failed: " + e.getCause(), e.getCause());
        } finally {
            pool.shutdownNow();
            writers.forEach(w -> w.client().close());
        }
    }

    /** One shard's writer: releases its candidates in order through its fence replica. */
    private record Writer(DynamoDbClient client, FencedWriter writer, LeaseToken fence, List<Candidate> candidates) {
        /** {committed, gave up after in-function retries}. */
        long[] run() {
            long committed = 0;
            long gaveUp = 0;
            for (Candidate candidate : candidates) {
                switch (writer.requestRelease(fence, candidate, FenceOverhead.WINDOW_ID, CUTOFF, NOW)) {
                    case ReleaseOutcome.Committed c -> committed++;
                    case ReleaseOutcome.Contention c -> gaveUp++;
                    case ReleaseOutcome other -> throw new IllegalStateException(
                            "simulated release of " + candidate.authorisationId() + " ended " + other);
                }
            }
            return new long[]{committed, gaveUp};
        }
    }
}
