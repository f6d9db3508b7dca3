package com.payments.reconciler.cdk;

import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalTime;
import java.time.ZoneId;
import java.time.ZonedDateTime;
import java.time.temporal.ChronoUnit;
import java.time.zone.ZoneOffsetTransition;
import java.time.zone.ZoneRules;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * The dates on which a local time of day does not exist in a zone (a daylight-saving gap: the clocks jump
 * over it), from now on. EventBridge Scheduler skips a cron time that does not exist, so a schedule at such a
 * time loses that night without any error (docs/decisions.md, "A schedule time must exist every day in its zone").
 *
 * <p>Exhaustive by the zone's rules, not by sampling: it walks every transition from {@code from} through one
 * year past the zone's last explicitly listed transition (and at least {@value #MIN_YEARS} years). From then on
 * only the zone's annual {@link ZoneRules#getTransitionRules() transition rules} apply, so every gap a later year
 * can have already occurred in the year walked. The rules are the JDK's tz database; Scheduler's may be newer (see the decision).
 */
public final class DaylightSavingGaps {

    /** At least this many years are walked, so a refusal can name the dates of a few coming years. */
    static final int MIN_YEARS = 3;

    private DaylightSavingGaps() {
    }

    /** Every date from {@code from} on (by the zone's rules) on which {@code time} does not exist, earliest first. */
    public static List<LocalDate> datesWithout(ZoneId zone, LocalTime time, Instant from) {
        List<LocalDate> dates = new ArrayList<>();
        for (ZoneOffsetTransition gap : gapsFrom(zone, from)) {
            // A gap may span midnight: try the time on every date the gap touches.
            for (LocalDate date = gap.getDateTimeBefore().toLocalDate(); !date.isAfter(gap.getDateTimeAfter().toLocalDate()); date = date.plusDays(1)) {
                if (zone.getRules().getValidOffsets(date.atTime(time)).isEmpty() && (dates.isEmpty() || !dates.getLast().equals(date))) {
                    dates.add(date);
                }
            }
        }
        return dates;
    }

    /** Whether {@code time} exists on every date from {@code from} on. */
    public static boolean existsEveryDay(ZoneId zone, LocalTime time, Instant from) {
        return datesWithout(zone, time, from).isEmpty();
    }

    /** The earliest whole minute at or after {@code time} that exists every day (wrapping past midnight), if any. */
    public static Optional<LocalTime> nextTimeThatAlwaysExists(ZoneId zone, LocalTime time, Instant from) {
        LocalTime candidate = time.truncatedTo(ChronoUnit.MINUTES);
        for (int i = 0; i < 24 * 60; i++, candidate = candidate.plusMinutes(1)) {
            if (existsEveryDay(zone, candidate, from)) {
                return Optional.of(candidate);
            }
        }
        return Optional.empty();
    }

    /** The latest whole hour before {@code time} that exists every day (wrapping past midnight), if any. */
    public static Optional<LocalTime> previousHourThatAlwaysExists(ZoneId zone, LocalTime time, Instant from) {
        LocalTime candidate = time.truncatedTo(ChronoUnit.HOURS);
        if (candidate.equals(time)) {
            candidate = candidate.minusHours(1);
        }
        for (int i = 0; i < 24; i++, candidate = candidate.minusHours(1)) {
            if (existsEveryDay(zone, candidate, from)) {
                return Optional.of(candidate);
            }
        }
        return Optional.empty();
    }

    private static List<ZoneOffsetTransition> gapsFrom(ZoneId zone, Instant from) {
        ZoneRules rules = zone.getRules();
        List<ZoneOffsetTransition> listed = rules.getTransitions();
        Instant afterListed = listed.isEmpty() ? from : ZonedDateTime.ofInstant(listed.getLast().getInstant(), zone).plusYears(1).plusDays(1).toInstant();
        Instant minimum = ZonedDateTime.ofInstant(from, zone).plusYears(MIN_YEARS).toInstant();
        Instant until = afterListed.isAfter(minimum) ? afterListed : minimum;
        List<ZoneOffsetTransition> gaps = new ArrayList<>();
        for (ZoneOffsetTransition t = rules.nextTransition(from); t != null && t.getInstant().isBefore(until); t = rules.nextTransition(t.getInstant())) {
            if (t.isGap()) {
                gaps.add(t);
            }
        }
        return gaps;
    }
}
