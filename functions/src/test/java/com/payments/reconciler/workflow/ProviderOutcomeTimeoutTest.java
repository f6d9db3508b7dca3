package com.payments.reconciler.workflow;

import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.function.BiPredicate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The pure providerOutcomeTimeout rule as a table: a command is overdue once it has waited longer than the timeout since
 * its acknowledgement (exactly the timeout is not yet), and the index query's cutoff says the same. Known-bad proofs:
 * a rule that counts "at the timeout" as overdue, and one that never escalates, each fail the table
 * ({@link #theTableCatchesAnInclusiveRule}, {@link #theTableCatchesARuleThatNeverEscalates}).
 */
class ProviderOutcomeTimeoutTest {

    private static final Instant NOW = Instant.parse("2026-12-06T04:00:00Z");

    record Row(String name, Duration timeout, Duration waited, boolean overdue) {
    }

    private static final List<Row> TABLE = List.of(
            new Row("just acknowledged", Duration.ofHours(2), Duration.ZERO, false),
            new Row("an hour, timeout PT2H", Duration.ofHours(2), Duration.ofHours(1), false),
            new Row("exactly the timeout", Duration.ofHours(2), Duration.ofHours(2), false),
            new Row("a millisecond past", Duration.ofHours(2), Duration.ofHours(2).plusMillis(1), true),
            new Row("a day, timeout PT2H", Duration.ofHours(2), Duration.ofDays(1), true),
            new Row("a day, timeout P7D", Duration.ofDays(7), Duration.ofDays(1), false),
            new Row("acknowledged in the future (clock skew)", Duration.ofMinutes(1), Duration.ofMinutes(-5), false));

    /** Which rows a rule gets wrong. */
    private static List<String> wrongRows(BiPredicate<ProviderOutcomeTimeout, Instant> rule) {
        return TABLE.stream()
                .filter(row -> rule.test(new ProviderOutcomeTimeout(row.timeout()), NOW.minus(row.waited())) != row.overdue())
                .map(Row::name).toList();
    }

    @Test
    void theRuleAndTheQueryCutoffFollowTheTable() {
        assertThat(wrongRows((timeout, acknowledgedAt) -> timeout.overdue(acknowledgedAt, NOW))).isEmpty();
        // The index query reads acknowledgedAt < cutoff: the same answer on every row.
        assertThat(wrongRows((timeout, acknowledgedAt) -> acknowledgedAt.toEpochMilli() < timeout.cutoff(NOW).toEpochMilli())).isEmpty();
    }

    @Test
    void theTableCatchesAnInclusiveRule() {
        assertThat(wrongRows((timeout, acknowledgedAt) -> !acknowledgedAt.isAfter(NOW.minus(timeout.timeout()))))
                .containsExactly("exactly the timeout");
    }

    @Test
    void theTableCatchesARuleThatNeverEscalates() {
        assertThat(wrongRows((timeout, acknowledgedAt) -> false)).containsExactly("a millisecond past", "a day, timeout PT2H");
    }

    @Test
    void aValueOutsideTheAcceptedFormIsRefusedNamingIt() {
        assertThat(ProviderOutcomeTimeout.DEFAULT.timeout()).isEqualTo(Duration.ofHours(2));
        assertThat(ProviderOutcomeTimeout.parse(" PT30M ").timeout()).isEqualTo(Duration.ofMinutes(30));
        for (String bad : List.of("2h", "PT0S", "-PT1H", "P8D", "")) {
            assertThatThrownBy(() -> ProviderOutcomeTimeout.parse(bad))
                    .hasMessageContaining(ProviderOutcomeTimeout.ACCEPTED_FORM).hasMessageContaining("'" + bad + "'");
        }
    }
}
