package com.payments.reconciler.reconcile;

import com.payments.reconciler.testing.Fence;
import com.payments.reconciler.local.moto.MotoServer;
import com.payments.reconciler.store.TableNames;
import com.payments.reconciler.testing.InterleavingHarness;
import com.payments.reconciler.testing.LocalDynamo;
import com.payments.reconciler.local.faults.DynamoFaults;
import com.payments.reconciler.local.faults.DynamoOperation;
import com.payments.reconciler.local.faults.Fault;
import net.jqwik.api.Example;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.lifecycle.AfterContainer;
import net.jqwik.api.lifecycle.BeforeContainer;

import software.amazon.awssdk.core.interceptor.ExecutionInterceptor;

import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Random interleavings of workers over the real store: I1–I5 must hold after every run
 * (docs/design.md §9), and the same harness without the lease check must be able to find a violation.
 */
class FencedInterleavingProperties {

    private static MotoServer moto;
    private static LocalDynamo.Engine engine;

    @BeforeContainer
    static void startEngine() {
        moto = MotoServer.start(LocalDynamo.buildDir().resolve("moto-properties"));
        engine = new LocalDynamo.Engine(moto, TableNames.withPrefix("prop-"), new ArrayList<>());
    }

    @AfterContainer
    static void stopEngine() {
        engine.opened().forEach(c -> c.close());
        moto.close();
    }

    /** Negative-control seeds tried; the first violation ends the search. */
    private static final int CONTROL_SEEDS = 200;

    /**
     * Each worker's client meets the faults DynamoDB produces and moto does not, per attempt and seeded:
     * transaction conflicts, both throttling errors, and responses lost after the write was applied.
     */
    static List<ExecutionInterceptor> faults(long seed) {
        return List.of(DynamoFaults.builder(seed)
                .probability(Fault.TRANSACTION_CONFLICT, 0.05, DynamoOperation.TRANSACT_WRITE_ITEMS)
                .probability(Fault.PROVISIONED_THROUGHPUT_EXCEEDED, 0.02)
                .probability(Fault.THROTTLING, 0.02)
                .probability(Fault.RESPONSE_LOST, 0.04)
                .build());
    }

    @Property(tries = 200, seed = "20261202")
    void invariantsHoldForEveryInterleaving(@ForAll long seed) {
        InterleavingHarness.Outcome outcome = new InterleavingHarness(engine, Fence.LEASE_CHECKED,
                FencedInterleavingProperties::faults).run(seed);
        assertThat(outcome.report().violations()).as("seed %d, trace %s", seed, outcome.trace()).isEmpty();
        closeClients();
    }

    /**
     * The checker can fail: the same harness, the same faults, without the lease check in the transaction.
     * A worker paused past its lease then commits after the takeover (I1), or releases an authorisation
     * that settled while it was paused — which its stale read did not show but the new leader's would (I3).
     */
    @Example
    void withoutTheLeaseCheckTheSameHarnessFindsAStaleCommit() {
        InterleavingHarness harness = new InterleavingHarness(engine, Fence.UNFENCED_NEGATIVE_CONTROL,
                FencedInterleavingProperties::faults);
        List<String> found = new ArrayList<>();
        for (long seed = 1; seed <= CONTROL_SEEDS && found.isEmpty(); seed++) {
            InterleavingHarness.Outcome outcome = harness.run(seed);
            closeClients();
            long s = seed;
            outcome.report().violations().forEach(v -> found.add("seed " + s + " " + v.invariant() + ": " + v.detail()));
        }
        System.out.println("negative control (no lease check): " + found);
        assertThat(found).as("a violation of I1 or I3 within %d seeds", CONTROL_SEEDS)
                .isNotEmpty()
                .anySatisfy(v -> assertThat(v).containsAnyOf(" I1: ", " I3: "));
    }

    private static void closeClients() {
        engine.opened().forEach(c -> c.close());
        engine.opened().clear();
    }
}
