package com.payments.reconciler.reconcile;

import com.payments.reconciler.local.moto.MotoServer;
import com.payments.reconciler.store.TableNames;
import com.payments.reconciler.testing.InterleavingHarness;
import com.payments.reconciler.testing.LocalDynamo;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.lifecycle.AfterContainer;
import net.jqwik.api.lifecycle.BeforeContainer;

import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Random interleavings of workers over the real store: I1–I5 must hold after every run
 * (design §9), and the same harness without the lease check must be able to find a violation.
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

    @Property(tries = 200, seed = "20261202")
    void invariantsHoldForEveryInterleaving(@ForAll long seed) {
        InterleavingHarness.Outcome outcome = new InterleavingHarness(engine, FencedWriter.Fence.LEASE_CHECKED,
                s -> List.of()).run(seed);
        assertThat(outcome.report().violations()).as("seed %d, trace %s", seed, outcome.trace()).isEmpty();
        engine.opened().forEach(c -> c.close());
        engine.opened().clear();
    }
}
