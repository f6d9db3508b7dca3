package com.payments.reconciler.delivery;

import com.payments.reconciler.lease.LeaseToken;
import com.payments.reconciler.local.provider.ProviderFaults;
import com.payments.reconciler.local.provider.SimulatedProvider;
import com.payments.reconciler.testing.LocalDynamo;
import com.payments.reconciler.workflow.Timing;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Prints what parallel delivery buys when the provider takes a while to answer (every response delayed
 * by {@link #PROVIDER_LATENCY}): commands per second at parallelism 1 and at
 * {@link Timing#DELIVERY_PARALLELISM}, against moto (one request at a time) on this machine. Figures
 * only; what is asserted is that every command was delivered once.
 *
 * <p>Not run by {@code mvn verify}: its name matches no Surefire include, and the test guard accepts that only
 * because {@code build-support/tests-not-run-by-surefire.txt} lists it. Run it with
 * {@code mvn -B -pl local-engines,functions test -Dtest=DeliveryThroughputBenchmark -Dsurefire.failIfNoSpecifiedTests=false}.
 */
@ExtendWith(LocalDynamo.class)
class DeliveryThroughputBenchmark {

    private static final int COMMANDS = 40;
    private static final Duration PROVIDER_LATENCY = Duration.ofMillis(50);

    @Test
    void parallelDeliveryAgainstASlowProvider(LocalDynamo.Engine engine) {
        StringBuilder figures = new StringBuilder("delivery benchmark (" + COMMANDS + " commands, provider latency "
                + PROVIDER_LATENCY.toMillis() + " ms):");
        for (int parallelism : new int[]{1, Timing.DELIVERY_PARALLELISM}) {
            engine.reset();
            try (DeliveryWorld w = new DeliveryWorld(engine, SimulatedProvider.builder()
                    .faults(new ProviderFaults(0, 0, 1.0, PROVIDER_LATENCY, 1)), 1)) {
                LeaseToken lease = w.acquire("bench", Timing.LEASE_DURATION);
                w.command(lease, DeliveryWorld.ids("bench-" + parallelism, COMMANDS).toArray(String[]::new));
                DeliverCommandsHandler handler = w.handler(w.fixedGuard(), parallelism);

                long started = System.nanoTime();
                DeliveryBatch result = w.invoke(handler, lease, 0, null, new TestContext(Timing.DELIVER_COMMANDS_TIMEOUT));
                double seconds = (System.nanoTime() - started) / 1e9;

                assertThat(result.totals().delivered()).isEqualTo(COMMANDS);
                assertThat(w.effects()).allSatisfy(e -> assertThat(e.performed()).isEqualTo(1));
                figures.append("%n  parallelism %d: %.2f s, %.1f commands/s".formatted(parallelism, seconds, COMMANDS / seconds));
            }
        }
        System.out.println(figures);
    }
}
