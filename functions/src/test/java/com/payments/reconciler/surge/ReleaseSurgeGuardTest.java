package com.payments.reconciler.surge;

import static org.assertj.core.api.Assertions.assertThat;

import com.payments.reconciler.store.Tables.Leases;
import com.payments.reconciler.testing.LocalDynamo;
import com.payments.reconciler.testing.MutableClock;
import com.payments.reconciler.window.WindowId;
import java.time.Instant;
import java.time.LocalDate;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The guard with its night records on the local DynamoDB: three usual nights, then a surge that is held for the
 * scheduled run and for a rerun alike, delivered once approved (who, when, why recorded once); a held night is not
 * history; a later night in range delivers; a window is recorded once, so a rerun's 0 never replaces its count.
 */
@ExtendWith(LocalDynamo.class)
class ReleaseSurgeGuardTest {

    private static final LocalDate FIRST = LocalDate.parse("2026-12-01");
    private NightRecords records;
    private ReleaseSurgeGuard guard;

    @BeforeEach
    void setUp(LocalDynamo.Engine engine) {
        records = new NightRecords(engine.client(), engine.tables().leases());
        guard = new ReleaseSurgeGuard(records, ReleaseSurgePolicy.DEFAULT, new MutableClock(Instant.parse("2026-12-06T02:00:00Z")));
    }

    private static WindowId night(int n) {
        return new WindowId(FIRST.plusDays(n - 1));
    }

    @Test
    void aSurgeIsHeldForEveryRunUntilApprovedAndAHeldNightIsNotHistory() {
        for (int n = 1; n <= 3; n++) {
            assertThat(guard.check(night(n), 100, 100)).as("night " + n + ": guard off below 3 nights of history, then in range")
                    .isInstanceOf(SurgeDecision.Verdict.Deliver.class);
        }
        assertThat(guard.check(night(4), 400, 400)).isInstanceOfSatisfying(SurgeDecision.Verdict.Hold.class, hold -> {
            assertThat(hold.median()).isEqualTo(100.0);
            assertThat(hold.releases()).isEqualTo(400);
        });
        assertThat(guard.check(night(4), 0, 0)).as("the operator's rerun before the approval: still held")
                .isInstanceOf(SurgeDecision.Verdict.Hold.class);
        assertThat(records.read(night(4)).orElseThrow().releases()).as("recorded once: the rerun's 0 did not replace it").isEqualTo(400);

        assertThat(records.approve(night(4), "arn:aws:sts::123456789012:assumed-role/ops/alice", "feed checked", Instant.parse("2026-12-06T08:00:00Z")))
                .isEqualTo(NightRecords.Approval.APPROVED);
        assertThat(records.approve(night(4), "arn:aws:sts::123456789012:assumed-role/ops/bob", "again", Instant.parse("2026-12-06T09:00:00Z")))
                .isEqualTo(NightRecords.Approval.ALREADY_APPROVED);
        NightRecords.Night approved = records.read(night(4)).orElseThrow();
        assertThat(approved.approvedBy()).contains("arn:aws:sts::123456789012:assumed-role/ops/alice");
        assertThat(approved.note()).contains("feed checked");
        assertThat(guard.check(night(4), 0, 0)).as("the rerun after the approval").isInstanceOf(SurgeDecision.Verdict.Deliver.class);
    }

    @Test
    void aLaterNightInRangeDeliversAndTheHeldNightStaysOutOfTheHistory() {
        for (int n = 1; n <= 3; n++) {
            guard.check(night(n), 100, 100);
        }
        assertThat(guard.check(night(4), 400, 400)).isInstanceOf(SurgeDecision.Verdict.Hold.class);
        assertThat(guard.check(night(5), 110, 110)).isInstanceOf(SurgeDecision.Verdict.Deliver.class);
        assertThat(records.lookup(night(6)).history()).as("nights 5, 3, 2, 1; the held night 4 is not history").containsExactly(110L, 100L, 100L, 100L);
        assertThat(records.read(night(4)).orElseThrow().status()).isEqualTo(Leases.NIGHT_HELD);
        assertThat(records.approve(night(5), "someone", "not held", Instant.parse("2026-12-06T09:00:00Z")))
                .as("a night that was not held is not approved").isEqualTo(NightRecords.Approval.NOT_HELD);
        assertThat(records.approve(night(9), "someone", "never judged", Instant.parse("2026-12-06T09:00:00Z"))).isEqualTo(NightRecords.Approval.NO_RECORD);
    }

    /** Known-bad: without the night's own record (a guard that decides every run afresh), the rerun's 0 would deliver a held night. */
    @Test
    void aGuardThatDecidedEachRunAfreshWouldDeliverTheHeldNightOnARerun() {
        SurgeDecision afresh = new SurgeDecision(ReleaseSurgePolicy.DEFAULT);
        for (int n = 1; n <= 3; n++) {
            guard.check(night(n), 100, 100);
        }
        guard.check(night(4), 400, 400);
        assertThat(afresh.decide(0, records.lookup(night(4)).history(), false)).isInstanceOf(SurgeDecision.Verdict.Deliver.class);
        assertThat(guard.check(night(4), 0, 0)).isInstanceOf(SurgeDecision.Verdict.Hold.class);
    }
}
