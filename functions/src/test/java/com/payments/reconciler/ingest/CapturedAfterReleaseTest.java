package com.payments.reconciler.ingest;

import static org.assertj.core.api.Assertions.assertThat;

import com.payments.reconciler.reconcile.Candidate;
import com.payments.reconciler.store.Backoff;
import com.payments.reconciler.store.Tables.Authorisations;
import com.payments.reconciler.store.Tables.ReleaseCommands;
import com.payments.reconciler.testing.LocalDynamo;
import java.time.Clock;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Predicate;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import software.amazon.awssdk.core.interceptor.Context;
import software.amazon.awssdk.core.interceptor.ExecutionAttributes;
import software.amazon.awssdk.core.interceptor.ExecutionInterceptor;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.GetItemRequest;

/**
 * capturedAfterRelease at ingestion, on the local DynamoDB: a settlement for an authorisation whose release the provider
 * confirmed (command DELIVERED) is counted; one whose command is still PENDING (delivery will cancel it), one never
 * decided, and a duplicate of a counted settlement are not; the command is read only for a decided authorisation.
 */
@ExtendWith(LocalDynamo.class)
class CapturedAfterReleaseTest {

    private LocalDynamo.Engine engine;
    private EventIngestion ingestion;
    private final AtomicInteger commandReads = new AtomicInteger();

    @BeforeEach
    void setUp(LocalDynamo.Engine engine) {
        this.engine = engine;
        ExecutionInterceptor countReads = new ExecutionInterceptor() {
            @Override
            public void beforeExecution(Context.BeforeExecution context, ExecutionAttributes attributes) {
                if (context.request() instanceof GetItemRequest get && get.tableName().equals(engine.tables().releaseCommands())) {
                    commandReads.incrementAndGet();
                }
            }
        };
        DynamoDbClient dynamo = engine.client(countReads);
        ingestion = new EventIngestion(new EventDecoder(), new IngestionDecision(4), new IngestStore(dynamo, engine.tables().authorisations(),
                engine.tables().settlements(), Optional.of(engine.tables().releaseCommands()), Backoff.standard(7)), Optional.empty(), Clock.systemUTC());
    }

    private void decided(String id, String commandStatus) {
        ingestion.ingest(EventIngestionTest.created("c-" + id, id, 2599, "2026-11-20T10:00:00Z"));
        // As the fenced release transaction leaves it: RELEASE_REQUESTED out of the index, and its command.
        engine.client().updateItem(b -> b.tableName(engine.tables().authorisations())
                .key(Map.of(Authorisations.AUTHORISATION_ID, AttributeValue.fromS(id)))
                .updateExpression("SET #s = :rr, version = :two REMOVE pendingShard").expressionAttributeNames(Map.of("#s", Authorisations.STATE))
                .expressionAttributeValues(Map.of(":rr", AttributeValue.fromS(Authorisations.STATE_RELEASE_REQUESTED), ":two", AttributeValue.fromN("2"))));
        engine.client().putItem(b -> b.tableName(engine.tables().releaseCommands()).item(Map.of(
                ReleaseCommands.OPERATION_ID, AttributeValue.fromS(Candidate.operationIdFor(id)),
                ReleaseCommands.AUTHORISATION_ID, AttributeValue.fromS(id),
                ReleaseCommands.STATUS, AttributeValue.fromS(commandStatus))));
    }

    private boolean counted(IngestOutcome outcome) {
        return outcome instanceof IngestOutcome.Accepted accepted && accepted.capturedAfterRelease();
    }

    @Test
    void aSettlementAfterADeliveredReleaseIsCountedOnce() {
        decided("auth-delivered", ReleaseCommands.STATUS_DELIVERED);
        String settlement = EventIngestionTest.settled("s-1", "auth-delivered", "2026-11-25T10:00:00Z");

        assertThat(counted(ingestion.ingest(settlement))).isTrue();
        assertThat(counted(ingestion.ingest(settlement))).as("the same settlement delivered again").isFalse();
    }

    @Test
    void aSettlementBeforeDeliveryOrWithoutADecisionIsNotCounted() {
        decided("auth-pending", ReleaseCommands.STATUS_PENDING);
        assertThat(counted(ingestion.ingest(EventIngestionTest.settled("s-2", "auth-pending", "2026-11-25T10:00:00Z"))))
                .as("PENDING: delivery's fresh read cancels it").isFalse();
        assertThat(commandReads).hasValue(1);

        ingestion.ingest(EventIngestionTest.created("c-open", "auth-open", 2599, "2026-11-20T10:00:00Z"));
        assertThat(counted(ingestion.ingest(EventIngestionTest.settled("s-3", "auth-open", "2026-11-22T10:00:00Z")))).isFalse();
        assertThat(commandReads).as("no command read for an authorisation never decided").hasValue(1);
    }

    /** The rule as a table, and a known-bad rule (counting every decided authorisation) caught by its PENDING row. */
    @Test
    void theRuleCountsOnlyADeliveredRelease() {
        assertThat(rowsWrong(s -> IngestionDecision.releaseMayHaveGone(Optional.of(Authorisations.STATE_RELEASE_REQUESTED))
                && IngestionDecision.capturedAfterRelease(s))).isZero();
        assertThat(rowsWrong(s -> IngestionDecision.releaseMayHaveGone(Optional.of(Authorisations.STATE_RELEASE_REQUESTED))))
                .as("known-bad: counting a decided release that was never sent").isEqualTo(2);
        assertThat(IngestionDecision.releaseMayHaveGone(Optional.of(Authorisations.STATE_AUTHORISED))).isFalse();
        assertThat(IngestionDecision.releaseMayHaveGone(Optional.empty())).isFalse();
    }

    private static int rowsWrong(Predicate<Optional<String>> counts) {
        Map<Optional<String>, Boolean> table = Map.of(
                Optional.of(ReleaseCommands.STATUS_DELIVERED), true,
                Optional.of(ReleaseCommands.STATUS_PENDING), false,
                Optional.of(ReleaseCommands.STATUS_CANCELLED_SETTLED), false);
        return (int) table.entrySet().stream().filter(e -> counts.test(e.getKey()) != e.getValue()).count();
    }
}
