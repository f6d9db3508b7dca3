package com.payments.reconciler.harness.bench;

import com.payments.reconciler.harness.local.SyntheticData;
import com.payments.reconciler.lease.AcquireResult;
import com.payments.reconciler.lease.LeaseStore;
import com.payments.reconciler.lease.LeaseToken;
import com.payments.reconciler.local.faults.UnfencedControl;
import com.payments.reconciler.reconcile.Candidate;
import com.payments.reconciler.reconcile.CandidateFinder;
import com.payments.reconciler.reconcile.FencedWriter;
import com.payments.reconciler.reconcile.ReleaseOutcome;
import com.payments.reconciler.store.Backoff;
import com.payments.reconciler.store.TableCreator;
import com.payments.reconciler.store.TableNames;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;

/**
 * Releases per second through the real {@link FencedWriter} transaction, in the batches ReconcilePage sends
 * ({@link FencedWriter#RELEASES_PER_TRANSACTION} per transaction), with the lease ConditionCheck
 * and without it (the same writer sending through {@link UnfencedControl}, which strips the check on the wire:
 * what a plain lock-client design writes), on the same engine, the same tables and the same kind of
 * data: the authorisations are split alternately between the two variants, and repetitions alternate
 * which variant goes first (ABBA), so drift of the engine or the machine falls on both alike.
 */
public final class FenceOverhead {

    static final String WINDOW_ID = "2026-12-01";
    private static final Instant NOW = Instant.parse("2026-12-01T02:00:00Z");
    private static final Instant CUTOFF = NOW.minus(Duration.ofHours(72));
    private static final int SHARDS = 4;
    private static final int WARM_UP = 20;

    /**
     * @param repetitions interleaved repetitions (each runs both variants once)
     * @param releasesPerRepetition releases per variant per repetition
     */
    public record Settings(int repetitions, int releasesPerRepetition, long seed) {
    }

    /** Per-repetition rates and their ratios; the figure is the median ratio. */
    public record Result(int repetitions, int releasesPerRepetition, double fencedPerSecond, double unfencedPerSecond,
                         double medianRatio, double minRatio, double maxRatio) {
    }

    private final DynamoDbClient dynamo;

    public FenceOverhead(DynamoDbClient dynamo) {
        this.dynamo = dynamo;
    }

    public Result measure(Settings settings) {
        TableNames tables = TableNames.withPrefix("bench-fence-");
        new TableCreator(dynamo).createAll(tables);
        int perVariant = settings.repetitions() * settings.releasesPerRepetition() + WARM_UP;
        new SyntheticData(2 * perVariant, 0.0, 0.0, settings.seed()).load(dynamo, tables, CUTOFF, SHARDS);
        List<Candidate> all = candidates(tables);
        List<Candidate> fencedData = new ArrayList<>();
        List<Candidate> unfencedData = new ArrayList<>();
        for (int i = 0; i < all.size(); i++) {
            (i % 2 == 0 ? fencedData : unfencedData).add(all.get(i));
        }
        LeaseToken lease = switch (new LeaseStore(dynamo, tables.leases(), Duration.ofHours(2)).acquire("bench-fence", "bench/fence", NOW)) {
            case AcquireResult.Acquired acquired -> acquired.lease().token();
            case AcquireResult other -> throw new IllegalStateException("the benchmark's lease was not acquired: " + other);
        };
        Variant fenced = new Variant(new FencedWriter(dynamo, tables, Backoff.standard(settings.seed())), fencedData, lease);
        Variant unfenced = new Variant(new FencedWriter(new UnfencedControl(dynamo, tables.leases()), tables,
                Backoff.standard(settings.seed() + 1)), unfencedData, lease);
        fenced.run(WARM_UP);
        unfenced.run(WARM_UP);

        double[] ratios = new double[settings.repetitions()];
        long fencedNanos = 0;
        long unfencedNanos = 0;
        for (int r = 0; r < settings.repetitions(); r++) {
            long f;
            long u;
            if (r % 2 == 0) {
                f = fenced.run(settings.releasesPerRepetition());
                u = unfenced.run(settings.releasesPerRepetition());
            } else {
                u = unfenced.run(settings.releasesPerRepetition());
                f = fenced.run(settings.releasesPerRepetition());
            }
            fencedNanos += f;
            unfencedNanos += u;
            ratios[r] = (double) u / f;
        }
        double[] sorted = ratios.clone();
        Arrays.sort(sorted);
        double median = sorted.length % 2 == 1 ? sorted[sorted.length / 2] : (sorted[sorted.length / 2 - 1] + sorted[sorted.length / 2]) / 2;
        long releases = (long) settings.repetitions() * settings.releasesPerRepetition();
        return new Result(settings.repetitions(), settings.releasesPerRepetition(), releases / (fencedNanos / 1e9),
                releases / (unfencedNanos / 1e9), median, sorted[0], sorted[sorted.length - 1]);
    }

    private List<Candidate> candidates(TableNames tables) {
        CandidateFinder finder = new CandidateFinder(dynamo, tables.authorisations());
        List<Candidate> all = new ArrayList<>();
        for (int shard = 0; shard < SHARDS; shard++) {
            all.addAll(allDue(finder, shard, CUTOFF));
        }
        all.sort(Comparator.comparing(Candidate::authorisationId));
        return all;
    }

    /** Every candidate of one shard due before {@code cutoff}, read through the real finder, in id order. */
    static List<Candidate> allDue(CandidateFinder finder, int shard, Instant cutoff) {
        List<Candidate> candidates = new ArrayList<>();
        Map<String, AttributeValue> start = Map.of();
        do {
            CandidateFinder.Page page = finder.page(shard, cutoff, start, 1000);
            candidates.addAll(page.candidates());
            start = page.nextKey();
        } while (!start.isEmpty());
        candidates.sort(Comparator.comparing(Candidate::authorisationId));
        return candidates;
    }

    /** One variant's writer and its own candidates, consumed in order. */
    private static final class Variant {
        private final FencedWriter writer;
        private final List<Candidate> candidates;
        private final LeaseToken lease;
        private int next;

        Variant(FencedWriter writer, List<Candidate> candidates, LeaseToken lease) {
            this.writer = writer;
            this.candidates = candidates;
            this.lease = lease;
        }

        /** Releases the next {@code count} candidates in production-sized batches; returns the elapsed nanoseconds. */
        long run(int count) {
            long started = System.nanoTime();
            for (int done = 0; done < count; ) {
                int size = Math.min(FencedWriter.RELEASES_PER_TRANSACTION, count - done);
                List<Candidate> batch = candidates.subList(next, next + size);
                List<ReleaseOutcome> outcomes = writer.requestReleases(lease, batch, WINDOW_ID, CUTOFF, NOW);
                for (int k = 0; k < size; k++) {
                    if (!(outcomes.get(k) instanceof ReleaseOutcome.Committed)) {
                        throw new IllegalStateException("benchmark release of " + batch.get(k).authorisationId() + " did not commit: " + outcomes.get(k));
                    }
                }
                next += size;
                done += size;
            }
            return System.nanoTime() - started;
        }
    }
}
