package com.payments.reconciler.reconcile;

import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.params.provider.Arguments.arguments;

/** An authorisation is not due before max(authorisedAt + grace, holdUntil): a table of cases around both bounds. */
class HoldValidityTest {

    private static final Duration GRACE = Duration.ofHours(72);
    private static final Instant WINDOW_START = Instant.parse("2026-12-01T02:00:00Z");
    private static final Instant CUTOFF = WINDOW_START.minus(GRACE);

    static Stream<Arguments> cases() {
        Instant old = CUTOFF.minusSeconds(3600);
        return Stream.of(
                arguments("no holdUntil, past the grace: due (version 1's rule)", old, null, true),
                arguments("no holdUntil, authorised exactly at the cutoff: not due (the query is strict)", CUTOFF, null, false),
                arguments("a hotel's 31 days, past the grace: not due before holdUntil", old, old.plus(Duration.ofDays(31)), false),
                arguments("holdUntil one millisecond after the window's start: not due", old, WINDOW_START.plusMillis(1), false),
                arguments("holdUntil exactly at the window's start: due", old, WINDOW_START, true),
                arguments("holdUntil already passed: due", old, CUTOFF, true),
                arguments("holdUntil passed but the grace has not: not due", CUTOFF.plusSeconds(1), CUTOFF.plusSeconds(2), false));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("cases")
    void dueInTheWindow(String name, Instant authorisedAt, Instant holdUntil, boolean due) {
        assertThat(HoldValidity.dueInWindow(authorisedAt, Optional.ofNullable(holdUntil), GRACE, WINDOW_START)).isEqualTo(due);
        // Consistent with the due instant: due in the window only if that instant is not after its start.
        if (due) {
            assertThat(HoldValidity.dueAt(authorisedAt, Optional.ofNullable(holdUntil), GRACE)).isBeforeOrEqualTo(WINDOW_START);
        }
    }

    @Test
    void theDueInstantIsTheLaterOfTheTwo() {
        Instant at = Instant.parse("2026-11-01T00:00:00Z");
        assertThat(HoldValidity.dueAt(at, Optional.empty(), GRACE)).isEqualTo(at.plus(GRACE));
        assertThat(HoldValidity.dueAt(at, Optional.of(at.plus(Duration.ofDays(31))), GRACE)).isEqualTo(at.plus(Duration.ofDays(31)));
        assertThat(HoldValidity.dueAt(at, Optional.of(at.plusSeconds(1)), GRACE)).isEqualTo(at.plus(GRACE));
    }

    /** The known-bad rule (version 1's: the grace alone) releases a hotel's hold early; this table would say so. */
    @Test
    void theGraceAloneWouldReleaseAHotelHoldEarly() {
        Instant old = CUTOFF.minusSeconds(3600);
        Optional<Instant> hotel = Optional.of(old.plus(Duration.ofDays(31)));
        boolean graceAlone = old.plus(GRACE).isBefore(WINDOW_START);
        assertThat(graceAlone).isTrue();
        assertThat(HoldValidity.dueInWindow(old, hotel, GRACE, WINDOW_START)).isFalse();
    }
}
