package com.payments.reconciler.surge;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The release-surge guard's decision as a table: releases, history (newest first), approval → held or delivered. */
class ReleaseSurgeDecisionTest {

    interface Decider {
        SurgeDecision.Verdict decide(long releases, List<Long> history, boolean approved);
    }

    record Row(String why, long releases, List<Long> history, boolean approved, boolean held) {
    }

    static final List<Long> WEEK = List.of(100L, 110L, 90L, 105L, 95L, 100L, 98L);

    static final List<Row> TABLE = List.of(
            new Row("in range: at the median", 100, WEEK, false, false),
            new Row("exactly the factor times the median is not above it", 200, WEEK, false, false),
            new Row("above the factor times the median", 201, WEEK, false, true),
            new Row("the partial-loss night: 4 x the median", 400, WEEK, false, true),
            new Row("approved: delivered whatever the count", 400, WEEK, true, false),
            new Row("no history: guard off", 10_000, List.of(), false, false),
            new Row("two nights of history: guard off", 10_000, List.of(5L, 5L), false, false),
            new Row("three nights of history: guard on", 10_000, List.of(5L, 5L, 5L), false, true),
            new Row("below the floor of 20, however small the median", 19, List.of(1L, 1L, 1L), false, false),
            new Row("at the floor and above the factor", 20, List.of(1L, 1L, 1L), false, true),
            new Row("a quiet history of zeros: any night at the floor is held", 20, List.of(0L, 0L, 0L, 0L), false, true),
            new Row("only the newest 7 nights count (the old huge ones are out)", 300,
                    List.of(100L, 100L, 100L, 100L, 100L, 100L, 100L, 1_000L, 1_000L, 1_000L), false, true),
            new Row("the median, not the mean: one huge night does not lift the bar", 250,
                    List.of(100L, 100L, 100L, 100L, 100L, 100L, 5_000L), false, true),
            new Row("an even count of nights: the mean of the two middle ones (150 -> bar 300)", 301,
                    List.of(100L, 200L, 100L, 200L), false, true));

    static List<String> disagreements(Decider decider) {
        List<String> wrong = new ArrayList<>();
        for (Row row : TABLE) {
            boolean held = decider.decide(row.releases(), row.history(), row.approved()) instanceof SurgeDecision.Verdict.Hold;
            if (held != row.held()) {
                wrong.add(row.why() + ": " + (held ? "held" : "delivered") + ", expected " + (row.held() ? "held" : "delivered"));
            }
        }
        return wrong;
    }

    @Test
    void theDecisionFollowsTheTable() {
        assertThat(disagreements(new SurgeDecision(ReleaseSurgePolicy.DEFAULT)::decide)).isEmpty();
    }

    /** Known-bad: a guard that compares with the mean and has no floor, as a first draft might. */
    @Test
    void theTableCatchesAGuardWithTheMeanAndNoFloor() {
        Decider bad = (releases, history, approved) -> {
            if (approved || history.size() < 3) {
                return new SurgeDecision.Verdict.Deliver("", releases, java.util.Optional.empty());
            }
            double mean = history.stream().limit(7).mapToLong(Long::longValue).average().orElse(0);
            return releases > 2.0 * mean ? new SurgeDecision.Verdict.Hold(releases, mean, 2.0, 0, history.size())
                    : new SurgeDecision.Verdict.Deliver("", releases, java.util.Optional.of(mean));
        };
        assertThat(disagreements(bad)).containsExactlyInAnyOrder(
                "exactly the factor times the median is not above it: held, expected delivered",
                "below the floor of 20, however small the median: held, expected delivered",
                "the median, not the mean: one huge night does not lift the bar: delivered, expected held");
    }

    /** Known-bad: a guard that ignores the approval holds an approved night for ever. */
    @Test
    void theTableCatchesAGuardThatIgnoresTheApproval() {
        SurgeDecision real = new SurgeDecision(ReleaseSurgePolicy.DEFAULT);
        Decider bad = (releases, history, approved) -> real.decide(releases, history, false);
        assertThat(disagreements(bad)).containsExactly("approved: delivered whatever the count: held, expected delivered");
    }

    @Test
    void theHoldMessageNamesTheReleasesTheMedianAndTheFactor() {
        SurgeDecision.Verdict verdict = new SurgeDecision(ReleaseSurgePolicy.DEFAULT).decide(400, WEEK, false);
        assertThat(((SurgeDecision.Verdict.Hold) verdict).message("2026-12-06"))
                .contains("400 releases decided", "2.0 x the median 100.0", "last 7 completed nights", "approve --window 2026-12-06");
    }

    @Test
    void aFactorOutsideItsRangeIsRefusedNamingTheSetting() {
        assertThatThrownBy(() -> ReleaseSurgePolicy.withFactor("1.0")).hasMessageContaining("releaseSurgeFactor must be a number above 1.0");
        assertThatThrownBy(() -> ReleaseSurgePolicy.withFactor("two")).hasMessageContaining("releaseSurgeFactor").hasMessageContaining("'two'");
        assertThat(ReleaseSurgePolicy.withFactor("3").factor()).isEqualTo(3.0);
    }
}
