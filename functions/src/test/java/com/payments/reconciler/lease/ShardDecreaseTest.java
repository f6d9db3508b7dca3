package com.payments.reconciler.lease;

import static org.assertj.core.api.Assertions.assertThat;

import com.payments.reconciler.reconcile.Candidate;
import com.payments.reconciler.reconcile.CandidateFinder;
import com.payments.reconciler.reconcile.Shards;
import com.payments.reconciler.store.Backoff;
import com.payments.reconciler.testing.Ingestion;
import com.payments.reconciler.testing.LocalDynamo;
import com.payments.reconciler.window.ExecutionInput;
import com.payments.reconciler.window.NightWindow;
import com.payments.reconciler.window.WindowConfig;
import com.payments.reconciler.workflow.Timing;
import java.time.Duration;
import java.time.LocalTime;
import java.time.ZoneId;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.IntStream;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Lowering {@code shards} on a deployed stack: a pending authorisation ingestion filed in shard 6 of 8 is still read by a
 * night deployed with 4, because AcquireLease resolves the night's shards as the highest value any night ran with
 * ({@link LeaseStore#recordShards}). The known-bad case, a night that reads only the deployed count (the code before), reads no shard
 * that holds it: the authorisation would never be released, escalated or counted.
 */
@ExtendWith(LocalDynamo.class)
class ShardDecreaseTest {

    private static final String LEASE = "hold-release-reconciler";
    private static final ExecutionInput NIGHT_INPUT = new ExecutionInput("2026-12-01", false);
    private LocalDynamo.Engine engine;
    private String stranded;

    @BeforeEach
    void setUp(LocalDynamo.Engine engine) {
        this.engine = engine;
        // An authorisation due tonight, filed under 8 shards in a shard a 4-shard night does not read.
        stranded = IntStream.range(0, 100).mapToObj(i -> "auth-" + i).filter(id -> Shards.of(id, 8) >= 4).findFirst().orElseThrow();
        new Ingestion(engine.client(), engine.tables(), 8).authorise(stranded, 1_000,
                deployedWith(8).resolve(NIGHT_INPUT).cutoff().minus(Duration.ofHours(1)));
    }

    @Test
    void aNightDeployedWithFewerShardsStillReadsEveryShardANightRanWith() {
        LeaseStore history = new LeaseStore(engine.client(), engine.tables().leases(), Timing.LEASE_DURATION, Backoff.standard());
        assertThat(history.recordShards(LEASE, 8)).as("the night deployed with 8").isEqualTo(8);

        NightWindow lowered = deployedWith(4).resolve(NIGHT_INPUT);
        NightWindow read = lowered.withShards(history.recordShards(LEASE, lowered.shards()));

        assertThat(read.shards()).isEqualTo(8);
        assertThat(pendingRead(read)).contains(stranded);
        assertThat(history.recordShards(LEASE, 2)).as("never lowered by a later value").isEqualTo(8);
    }

    @Test
    void knownBadANightReadingOnlyTheDeployedCountMissesTheHigherShard() {
        NightWindow deployedOnly = deployedWith(4).resolve(NIGHT_INPUT);
        assertThat(pendingRead(deployedOnly)).doesNotContain(stranded);
        LeaseStore fresh = new LeaseStore(engine.client(), engine.tables().leases(), Timing.LEASE_DURATION, Backoff.standard());
        assertThat(fresh.recordShards(LEASE, 4)).as("no night ran with 8 here: nothing to read beyond 4").isEqualTo(4);
    }

    private static WindowConfig deployedWith(int shards) {
        return new WindowConfig(ZoneId.of("UTC"), LocalTime.of(2, 0), Duration.ofHours(72), shards, false, 30);
    }

    /** The authorisation ids a night's reads find: every page of each shard it reads, as ReconcilePage walks them. */
    private List<String> pendingRead(NightWindow night) {
        CandidateFinder finder = new CandidateFinder(engine.client(), engine.tables().authorisations());
        List<String> ids = new ArrayList<>();
        for (int shard = 0; shard < night.shards(); shard++) {
            finder.page(shard, night.cutoff(), null, 100).candidates().stream().map(Candidate::authorisationId).forEach(ids::add);
        }
        return ids;
    }
}
