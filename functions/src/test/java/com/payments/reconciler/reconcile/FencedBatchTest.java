package com.payments.reconciler.reconcile;

import com.payments.reconciler.testing.Fence;
import com.payments.reconciler.audit.AppliedWrite;
import com.payments.reconciler.lease.AcquireResult;
import com.payments.reconciler.lease.LeaseToken;
import com.payments.reconciler.local.faults.DynamoFaults;
import com.payments.reconciler.local.faults.DynamoOperation;
import com.payments.reconciler.local.faults.Fault;
import com.payments.reconciler.store.Backoff;
import com.payments.reconciler.store.Tables.Authorisations;
import com.payments.reconciler.store.Tables.ReleaseCommands;
import com.payments.reconciler.testing.Ingestion;
import com.payments.reconciler.testing.LocalDynamo;
import com.payments.reconciler.testing.MutableClock;
import com.payments.reconciler.testing.Worker;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;

import static com.payments.reconciler.store.Attr.n;
import static com.payments.reconciler.store.Attr.s;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Batched protected writes (docs/design.md §4): one lease check and many releases or marks per transaction; a
 * cancelled batch is split by its cancellation reasons, every item ends with its own outcome, and a
 * takeover refuses the whole batch.
 */
@ExtendWith(LocalDynamo.class)
class FencedBatchTest {

    private static final Instant T0 = Instant.parse("2026-12-01T02:00:00Z");
    private static final Instant CUTOFF = T0.minus(Duration.ofHours(72));
    private static final Duration LEASE = Duration.ofMinutes(5);
    private static final Backoff NO_WAIT = new Backoff(1, d -> { }, 6, Duration.ofMillis(1), Duration.ofMillis(5));

    private LocalDynamo.Engine engine;
    private MutableClock clock;
    private Ingestion ingestion;

    @BeforeEach
    void setUp(LocalDynamo.Engine engine) {
        this.engine = engine;
        this.clock = new MutableClock(T0);
        this.ingestion = new Ingestion(engine.client(), engine.tables(), 1);
    }

    @Test
    void aFullBatchCommitsInOneTransactionWithOneLeaseCheck() {
        Worker a = leader("worker-A", engine.client());
        List<Candidate> batch = authorise("auth", FencedWriter.RELEASES_PER_TRANSACTION, a);
        long before = transactions();

        List<ReleaseOutcome> outcomes = a.releaseAll(batch, CUTOFF);

        assertThat(outcomes).isEqualTo(batch.stream().map(c -> (ReleaseOutcome) new ReleaseOutcome.Committed(c.operationId(), false)).toList());
        List<AppliedWrite> committed = transactionsSince(before);
        assertThat(committed).hasSize(1);
        assertThat(committed.getFirst().request().get("TransactItems")).hasSize(FencedWriter.TRANSACTION_ITEM_LIMIT);
        batch.forEach(c -> {
            assertThat(ingestion.authorisation(c.authorisationId()).get(Authorisations.STATE).s()).isEqualTo(Authorisations.STATE_RELEASE_REQUESTED);
            assertThat(command(c.operationId()).get(ReleaseCommands.EPOCH).n()).isEqualTo("1");
        });
        assertThat(a.readAll(CUTOFF, 100)).isEmpty();
    }

    @Test
    void aCancelledBatchIsSplitAndEveryCandidateEndsWithItsOwnOutcome() {
        Worker a = leader("worker-A", engine.client());
        List<Candidate> batch = authorise("auth", 6, a);
        ingestion.settle("auth-00", T0);                                   // settled after it was read
        bumpVersion("auth-01", false);                                      // changed, still releasable
        bumpVersion("auth-02", true);                                       // changed, no longer AUTHORISED
        putForeignCommand(batch.get(3));                                    // an earlier run commanded it
        long before = transactions();

        List<ReleaseOutcome> outcomes = a.releaseAll(batch, CUTOFF);

        assertThat(outcomes.get(0)).isEqualTo(new ReleaseOutcome.Settled("auth-00"));
        assertThat(outcomes.get(1)).isEqualTo(new ReleaseOutcome.Committed(batch.get(1).operationId(), false));
        assertThat(outcomes.get(2)).isInstanceOf(ReleaseOutcome.Stale.class);
        assertThat(outcomes.get(3)).isEqualTo(new ReleaseOutcome.AlreadyCommanded(batch.get(3).operationId(), 0));
        assertThat(outcomes.subList(4, 6)).containsExactly(new ReleaseOutcome.Committed(batch.get(4).operationId(), false),
                new ReleaseOutcome.Committed(batch.get(5).operationId(), false));
        assertThat(transactionsSince(before)).as("the releasable three, committed together once the others were split off").hasSize(1);
        assertThat(ingestion.authorisation("auth-00").get(Authorisations.STATE).s()).isEqualTo(Authorisations.STATE_AUTHORISED);
        assertThat(command(batch.get(0).operationId())).isEmpty();
        assertThat(command(batch.get(3).operationId()).get(ReleaseCommands.ISSUED_BY).s()).isEqualTo("an-earlier-run");
        assertThat(ingestion.authorisation("auth-01").get(Authorisations.VERSION).n()).isEqualTo("3");
    }

    @Test
    void afterATakeoverTheWholeBatchIsFencedAndNothingIsWritten() {
        Worker a = leader("worker-A", engine.client());
        List<Candidate> batch = authorise("auth", 5, a);
        clock.advance(LEASE.plusSeconds(1));
        Worker b = leader("worker-B", engine.client());
        long writesAtTakeover = engine.writes().getLast().seq();

        List<ReleaseOutcome> outcomes = a.releaseAll(batch, CUTOFF);

        assertThat(outcomes).hasSize(5).allSatisfy(o -> assertThat(o).isEqualTo(new ReleaseOutcome.Fenced(b.lease().token().ownerId(), 2)));
        assertThat(engine.writes()).filteredOn(w -> w.seq() > writesAtTakeover).isEmpty();
    }

    @Test
    void aBatchReplayedAfterItCommittedIsRecognisedAsOurs() {
        Worker a = leader("worker-A", engine.client());
        List<Candidate> batch = authorise("auth", 4, a);
        assertThat(a.releaseAll(batch, CUTOFF)).allSatisfy(o -> assertThat(o).isInstanceOf(ReleaseOutcome.Committed.class));
        long before = transactions();

        List<ReleaseOutcome> replay = a.releaseAll(batch, CUTOFF);    // moto keeps no tokens: the conditions answer

        assertThat(replay).isEqualTo(batch.stream().map(c -> (ReleaseOutcome) new ReleaseOutcome.Committed(c.operationId(), true)).toList());
        assertThat(transactionsSince(before)).isEmpty();
    }

    @Test
    void aLostResponseIsAnsweredByTheBatchTokenNotAppliedAgain() {
        DynamoFaults faults = DynamoFaults.builder(7).clock(clock).build();
        faults.inject(DynamoOperation.TRANSACT_WRITE_ITEMS, 1, Fault.RESPONSE_LOST);
        Worker a = leader("worker-A", engine.clientWithoutBackoff(faults));
        List<Candidate> batch = authorise("auth", 5, a);
        long before = transactions();

        List<ReleaseOutcome> outcomes = a.releaseAll(batch, CUTOFF);

        assertThat(outcomes).isEqualTo(batch.stream().map(c -> (ReleaseOutcome) new ReleaseOutcome.Committed(c.operationId(), false)).toList());
        assertThat(faults.tokenReplays()).isEqualTo(1);
        assertThat(transactionsSince(before)).hasSize(1);
    }

    @Test
    void marksAreRecordedInOneTransactionAndACommandAlreadyFinalIsSplitOff() {
        Worker a = leader("worker-A", engine.client());
        List<Candidate> batch = authorise("auth", 3, a);
        a.releaseAll(batch, CUTOFF);
        FencedWriter writer = new FencedWriter(engine.client(), engine.tables(), NO_WAIT);
        LeaseToken lease = a.lease().token();
        List<DeliveryMark> marks = batch.stream().map(c -> new DeliveryMark(c.operationId(),
                new DeliveryRecord.Result.Delivered("ref-" + c.authorisationId()), 1)).toList();
        assertThat(writer.recordDeliveries(lease, List.of(marks.get(1)), clock.instant())).containsExactly(DeliveryRecord.Recorded.INSTANCE);
        long before = transactions();

        List<DeliveryRecord> outcomes = writer.recordDeliveries(lease, marks, clock.instant());

        assertThat(outcomes).containsExactly(DeliveryRecord.Recorded.INSTANCE,
                new DeliveryRecord.AlreadyFinal(ReleaseCommands.STATUS_DELIVERED, true), DeliveryRecord.Recorded.INSTANCE);
        assertThat(transactionsSince(before)).hasSize(1);
        batch.forEach(c -> assertThat(command(c.operationId()).get(ReleaseCommands.STATUS).s()).isEqualTo(ReleaseCommands.STATUS_DELIVERED));
        assertThat(command(batch.get(1).operationId()).get(ReleaseCommands.ATTEMPTS).n()).as("marked once").isEqualTo("1");
    }

    @Test
    void marksAfterATakeoverAreAllFencedAndNothingIsWritten() {
        Worker a = leader("worker-A", engine.client());
        List<Candidate> batch = authorise("auth", 3, a);
        a.releaseAll(batch, CUTOFF);
        clock.advance(LEASE.plusSeconds(1));
        Worker b = leader("worker-B", engine.client());
        long writesAtTakeover = engine.writes().getLast().seq();
        FencedWriter writer = new FencedWriter(engine.client(), engine.tables(), NO_WAIT);

        List<DeliveryRecord> outcomes = writer.recordDeliveries(a.lease().token(), batch.stream().map(c -> new DeliveryMark(
                c.operationId(), new DeliveryRecord.Result.Rejected("CARD_CLOSED", "closed"), 1)).toList(), clock.instant());

        assertThat(outcomes).hasSize(3).containsOnly(new DeliveryRecord.Fenced(b.lease().token().ownerId(), 2));
        assertThat(engine.writes()).filteredOn(w -> w.seq() > writesAtTakeover).isEmpty();
    }

    @Test
    void aBatchIsRefusedBeforeAnythingIsSentWhenItExceedsTheLimitOrNamesAnItemTwice() {
        Worker a = leader("worker-A", engine.client());
        List<Candidate> all = authorise("auth", FencedWriter.RELEASES_PER_TRANSACTION + 1, a);
        long before = engine.writes().getLast().seq();

        assertThatThrownBy(() -> a.releaseAll(all, CUTOFF)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("1 to 33 items, was 34");
        assertThatThrownBy(() -> a.releaseAll(List.of(all.get(0), all.get(0)), CUTOFF)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("names each authorisation once");
        assertThatThrownBy(() -> a.releaseAll(List.of(), CUTOFF)).isInstanceOf(IllegalArgumentException.class);
        assertThat(engine.writes().getLast().seq()).isEqualTo(before);
    }

    /** A stale item re-read from the cancellation is malformed; it is skipped by id, the rest commit. */
    @Test
    void aMalformedAuthorisationReReadDuringABatchIsSkippedAndTheRestCommit() {
        Worker a = leader("worker-A", engine.client());
        List<Candidate> batch = authorise("auth", 3, a);
        // A newer version, still AUTHORISED and due, but with its currency garbled by whoever wrote it.
        engine.client().updateItem(b -> b.tableName(engine.tables().authorisations())
                .key(Map.of(Authorisations.AUTHORISATION_ID, s("auth-01")))
                .updateExpression("SET version = :two, #currency = :garbled")
                .expressionAttributeNames(Map.of("#currency", Authorisations.CURRENCY))
                .expressionAttributeValues(Map.of(":two", n(2), ":garbled", s("euro"))));

        List<ReleaseOutcome> outcomes = a.releaseAll(batch, CUTOFF);

        assertThat(outcomes.get(0)).isEqualTo(new ReleaseOutcome.Committed(batch.get(0).operationId(), false));
        assertThat(outcomes.get(1)).isInstanceOfSatisfying(ReleaseOutcome.Malformed.class, m -> {
            assertThat(m.authorisationId()).isEqualTo("auth-01");
            assertThat(m.problem()).contains(Authorisations.CURRENCY);
        });
        assertThat(outcomes.get(2)).isEqualTo(new ReleaseOutcome.Committed(batch.get(2).operationId(), false));
        assertThat(ingestion.authorisation("auth-01").get(Authorisations.STATE).s()).isEqualTo(Authorisations.STATE_AUTHORISED);
    }

    private Worker leader(String name, DynamoDbClient client) {
        Worker worker = new Worker(name, client, engine.tables(), clock, LEASE, 1, Fence.LEASE_CHECKED);
        assertThat(worker.acquire()).isInstanceOf(AcquireResult.Acquired.class);
        return worker;
    }

    /** {@code count} authorisations {prefix}-00.., read back as the worker sees them, in id order. */
    private List<Candidate> authorise(String prefix, int count, Worker reader) {
        for (int i = 0; i < count; i++) {
            ingestion.authorise("%s-%02d".formatted(prefix, i), 1_000 + i, CUTOFF.minusSeconds(60 + i));
        }
        List<Candidate> all = new ArrayList<>(reader.readAll(CUTOFF, 100));
        all.sort(Comparator.comparing(Candidate::authorisationId));
        assertThat(all).hasSize(count);
        return all;
    }

    private void bumpVersion(String id, boolean noLongerPending) {
        Map<String, AttributeValue> key = Map.of(Authorisations.AUTHORISATION_ID, s(id));
        if (noLongerPending) {
            engine.client().updateItem(b -> b.tableName(engine.tables().authorisations()).key(key)
                    .updateExpression("SET version = :two, #state = :settled REMOVE pendingShard")
                    .expressionAttributeNames(Map.of("#state", Authorisations.STATE))
                    .expressionAttributeValues(Map.of(":two", n(2), ":settled", s(Authorisations.STATE_SETTLED))));
        } else {
            engine.client().updateItem(b -> b.tableName(engine.tables().authorisations()).key(key)
                    .updateExpression("SET version = :two").expressionAttributeValues(Map.of(":two", n(2))));
        }
    }

    private void putForeignCommand(Candidate candidate) {
        engine.client().putItem(b -> b.tableName(engine.tables().releaseCommands()).item(Map.of(
                ReleaseCommands.OPERATION_ID, s(candidate.operationId()),
                ReleaseCommands.AUTHORISATION_ID, s(candidate.authorisationId()),
                ReleaseCommands.STATUS, s(ReleaseCommands.STATUS_DELIVERED),
                ReleaseCommands.EPOCH, n(0),
                ReleaseCommands.ISSUED_BY, s("an-earlier-run"))));
    }

    private Map<String, AttributeValue> command(String operationId) {
        return engine.client().getItem(b -> b.tableName(engine.tables().releaseCommands()).consistentRead(true)
                .key(Map.of(ReleaseCommands.OPERATION_ID, s(operationId)))).item();
    }

    private long transactions() {
        List<AppliedWrite> writes = engine.writes();
        return writes.isEmpty() ? 0 : writes.getLast().seq();
    }

    private List<AppliedWrite> transactionsSince(long seq) {
        return engine.writes().stream().filter(w -> w.seq() > seq && w.operation().equals("TransactWriteItems")).toList();
    }
}
