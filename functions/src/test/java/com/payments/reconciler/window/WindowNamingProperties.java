package com.payments.reconciler.window;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.payments.reconciler.workflow.InvalidInput;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalTime;
import java.time.ZoneId;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.IntRange;

/** Window ids, execution names and inputs: valid, deterministic, distinct (docs/design.md §8). */
class WindowNamingProperties {

    private static final String[] ZONES = {"UTC", "Europe/London", "Europe/Berlin", "America/New_York", "Asia/Kolkata", "Australia/Sydney", "Pacific/Chatham"};

    @Provide
    Arbitrary<LocalDate> dates() {
        return Arbitraries.longs().between(LocalDate.of(2020, 1, 1).toEpochDay(), LocalDate.of(2099, 12, 31).toEpochDay()).map(LocalDate::ofEpochDay);
    }

    @Provide
    Arbitrary<ZoneId> zones() {
        return Arbitraries.of(ZONES).map(ZoneId::of);
    }

    @Property(tries = 300)
    void namesAreAlwaysValidAndParseBack(@ForAll("dates") LocalDate date, @ForAll @IntRange(min = 0, max = ExecutionName.MAX_RERUN) int rerun) {
        ExecutionName name = new ExecutionName(new WindowId(date), rerun);
        String text = name.toString();
        assertThat(text).hasSizeBetween(1, ExecutionName.MAX_LENGTH).matches("[0-9A-Za-z-]+");
        assertThat(ExecutionName.parse(text)).contains(name);
    }

    @Property(tries = 300)
    void namesAreDistinctPerWindowAndRerun(@ForAll("dates") LocalDate a, @ForAll("dates") LocalDate b,
                                           @ForAll @IntRange(min = 0, max = 50) int ra, @ForAll @IntRange(min = 0, max = 50) int rb) {
        boolean same = a.equals(b) && ra == rb;
        assertThat(new ExecutionName(new WindowId(a), ra).toString().equals(new ExecutionName(new WindowId(b), rb).toString())).isEqualTo(same);
    }

    /** Every delivery of one occurrence (any offset notation of the nominal instant) gives the same window, name and bytes. */
    @Property(tries = 300)
    void sameOccurrenceGivesByteIdenticalInput(@ForAll("dates") LocalDate date, @ForAll("zones") ZoneId zone,
                                              @ForAll @IntRange(min = 0, max = 23) int hour, @ForAll @IntRange(min = 1, max = 8) int shards) {
        WindowConfig config = new WindowConfig(zone, LocalTime.of(hour, 0), Duration.ofHours(72), shards, false, 30);
        ZonedDateTime nominal = date.atTime(hour, 0).atZone(zone);
        String asZ = nominal.toInstant().toString();
        String asOffset = nominal.format(DateTimeFormatter.ISO_OFFSET_DATE_TIME);
        WindowId fromZ = WindowId.fromScheduledTime(asZ, zone);
        WindowId fromOffset = WindowId.fromScheduledTime(asOffset, zone);
        assertThat(fromZ).isEqualTo(fromOffset);
        // DST gaps move the local time forward; the window date never changes.
        assertThat(fromZ.date()).isEqualTo(nominal.toLocalDate());
        assertThat(config.inputFor(fromZ).toJson()).isEqualTo(config.inputFor(fromOffset).toJson());
        assertThat(ExecutionName.scheduled(fromZ)).isEqualTo(ExecutionName.scheduled(fromOffset));
    }

    /**
     * Whatever instant of the window's local day a start comes from (a delayed delivery, a manual start, a
     * rerun), the input is the one the nominal occurrence gives: the window start is rebuilt from the date.
     */
    @Property(tries = 500)
    void anyInstantOfTheLocalDayGivesTheNominalInput(@ForAll("dates") LocalDate date, @ForAll("zones") ZoneId zone,
                                                     @ForAll @IntRange(min = 0, max = 23) int scheduleHour,
                                                     @ForAll @IntRange(min = 0, max = 24 * 60 - 1) int minuteOfDay) {
        WindowConfig config = new WindowConfig(zone, LocalTime.of(scheduleHour, 30), Duration.ofHours(72), 4, false, 30);
        Instant dayStart = date.atStartOfDay(zone).toInstant();
        Instant nextDay = date.plusDays(1).atStartOfDay(zone).toInstant();
        Instant someInstant = dayStart.plus(Duration.ofMinutes(minuteOfDay));
        // DST days are 23 or 25 hours long: stay inside this local date.
        if (!someInstant.isBefore(nextDay)) {
            someInstant = nextDay.minusSeconds(1);
        }
        Instant nominal = config.windowStart(new WindowId(date));
        String expected = config.inputFor(WindowId.fromScheduledTime(nominal.toString(), zone)).toJson();
        assertThat(config.inputFor(WindowId.fromScheduledTime(someInstant.toString(), zone)).toJson()).isEqualTo(expected);
        assertThat(config.inputFor(WindowId.fromScheduledTime(someInstant.atZone(zone).format(DateTimeFormatter.ISO_OFFSET_DATE_TIME), zone))
                .toJson()).isEqualTo(expected);
        assertThat(expected).isEqualTo("{\"windowId\":\"" + date + "\",\"dryRun\":false}");
        assertThat(config.resolve(ExecutionInput.parse(expected)).windowStart()).isEqualTo(nominal);
    }

    @Property(tries = 200)
    void inputRoundTripsAndIsConsistent(@ForAll("dates") LocalDate date, @ForAll("zones") ZoneId zone,
                                        @ForAll @IntRange(min = 1, max = 240) int graceHours, @ForAll boolean dryRun) {
        WindowConfig config = new WindowConfig(zone, LocalTime.of(2, 0), Duration.ofHours(graceHours), 4, dryRun, 30);
        NightWindow input = config.nightFor(new WindowId(date));
        assertThat(input.cutoff()).isEqualTo(input.windowStart().minus(Duration.ofHours(graceHours)));
        assertThat(NightWindow.parse(input.toJson())).isEqualTo(input);
        assertThat(input.toJson()).startsWith("{\"windowId\":\"" + date + "\",\"windowStart\":\"");
    }

    @Property(tries = 200)
    void startableOnlyFromTheHorizonToItsWindowStart(@ForAll @IntRange(min = -60, max = 5) int offsetDays, @ForAll("zones") ZoneId zone,
                                                     @ForAll @IntRange(min = 0, max = 23) int hourUtc) {
        Instant now = Instant.parse("2026-12-02T00:00:00Z").plus(Duration.ofHours(hourUtc));
        WindowConfig config = new WindowConfig(zone, LocalTime.of(2, 0), Duration.ofHours(72), 4, false, 30);
        LocalDate today = now.atZone(zone).toLocalDate();
        WindowId window = new WindowId(today.plusDays(offsetDays));
        if (config.windowStart(window).isAfter(now) || offsetDays < -30) {
            assertThatThrownBy(() -> config.requireStartable(window, now)).isInstanceOf(InvalidInput.class)
                    .hasMessageStartingWith("window: ");
        } else {
            config.requireStartable(window, now);
        }
    }

    @Property(tries = 200)
    void garbledScheduledTimesAreRejectedNamingTheField(@ForAll("garbled") String scheduledTime) {
        assertThatThrownBy(() -> WindowId.fromScheduledTime(scheduledTime, ZoneId.of("UTC")))
                .isInstanceOf(InvalidInput.class).hasMessageStartingWith("scheduledTime: ");
    }

    @Provide
    Arbitrary<String> garbled() {
        return Arbitraries.oneOf(
                Arbitraries.of("", " ", "2026-12-01", "2026-12-01T02:00:00", "2026-13-01T02:00:00Z", "2026-12-32T02:00:00Z",
                        "yesterday", "1733018400", "2026-12-01 02:00:00Z", "2026-12-01T25:00:00Z"),
                Arbitraries.strings().alpha().ofMinLength(1).ofMaxLength(20));
    }
}
