package com.payments.reconciler.delivery;

import com.payments.reconciler.audit.InvariantAudit;
import com.payments.reconciler.ingest.IngestEvent;
import com.payments.reconciler.ingest.ProviderOutcomes;
import com.payments.reconciler.lease.LeaseToken;
import com.payments.reconciler.local.provider.SimulatedProvider;
import com.payments.reconciler.store.Tables.ReleaseCommands;
import com.payments.reconciler.testing.LocalDynamo;
import com.payments.reconciler.workflow.Timing;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;

import java.util.List;
import java.util.Map;
import java.util.Optional;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The invariant audit knows IngestEvents' provider.outcome write: made without the lease by design, it is counted in
 * {@code providerOutcomes}, not an I1 finding and not an unfenced write. Known-bad proof: a write without the lease that
 * ends an ACKNOWLEDGED command DELIVERED but is not an outcome (no outcome event id) is an I1 violation
 * ({@link #aLeaselessEndThatIsNotAnOutcomeBreaksI1}).
 */
@ExtendWith(LocalDynamo.class)
class OutcomeWritesAuditTest {

    private final TestContext context = new TestContext(Timing.DELIVER_COMMANDS_TIMEOUT);
    private DeliveryWorld world;

    @AfterEach
    void close() {
        if (world != null) {
            world.close();
        }
    }

    private List<String> acknowledged(LocalDynamo.Engine engine, String... auths) {
        world = new DeliveryWorld(engine, SimulatedProvider.builder(), 1);
        LeaseToken lease = world.acquire("worker-A", Timing.LEASE_DURATION);
        List<String> ops = world.command(lease, id -> Optional.of("PAY" + id.replace("-", "")), auths);
        ProviderClient adyenLike = command -> new ProviderResult.Acknowledged("CANCEL" + command.authorisationId().replace("-", ""));
        world.invoke(world.handler(world.fixedGuard(), 2, adyenLike), lease, 0, null, context);
        return ops;
    }

    @Test
    void anOutcomeWrittenWithoutTheLeaseIsCountedNotAViolation(LocalDynamo.Engine engine) {
        List<String> ops = acknowledged(engine, "auth-1", "auth-2");
        ProviderOutcomes outcomes = new ProviderOutcomes(world.dynamo, engine.tables().releaseCommands(), DeliveryWorld.NO_WAIT, world.clock);
        outcomes.apply(new IngestEvent.ProviderOutcome("adyen-CANCELauth1-success", "auth-1", ops.get(0), "adyen", "CANCELauth1", "PAYauth1",
                true, Optional.empty(), Optional.empty()));
        outcomes.apply(new IngestEvent.ProviderOutcome("adyen-CANCELauth2-failure", "auth-2", ops.get(1), "adyen", "CANCELauth2", "PAYauth2",
                false, Optional.of("Transaction is already captured"), Optional.empty()));

        InvariantAudit.Report report = world.audit(false);
        assertThat(report.violations()).isEmpty();
        assertThat(report.providerOutcomes()).isEqualTo(2);
        assertThat(report.unfencedWrites()).isEmpty();
    }

    @Test
    void aLeaselessEndThatIsNotAnOutcomeBreaksI1(LocalDynamo.Engine engine) {
        List<String> ops = acknowledged(engine, "auth-1");
        world.dynamo.updateItem(b -> b.tableName(engine.tables().releaseCommands())
                .key(Map.of(ReleaseCommands.OPERATION_ID, AttributeValue.fromS(ops.get(0))))
                .updateExpression("SET #status = :delivered REMOVE awaitingShard")
                .expressionAttributeNames(Map.of("#status", ReleaseCommands.STATUS))
                .expressionAttributeValues(Map.of(":delivered", AttributeValue.fromS(ReleaseCommands.STATUS_DELIVERED))));

        InvariantAudit.Report report = world.audit(false);
        assertThat(report.providerOutcomes()).isZero();
        assertThat(report.invariants()).containsEntry("I1", false);
    }
}
