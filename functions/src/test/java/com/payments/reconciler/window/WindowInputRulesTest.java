package com.payments.reconciler.window;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.payments.reconciler.store.AwsClients;
import com.payments.reconciler.workflow.EnvVars;
import com.payments.reconciler.workflow.HandlerEnvironment;
import com.payments.reconciler.workflow.InvalidInput;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalTime;
import java.time.ZoneId;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.NullAndEmptySource;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.Test;

/**
 * The edges of the window rules, as tables: each bound of a window id, an execution name, an execution input and a
 * window configuration accepted on its inside and refused just outside it, with an error naming the field.
 */
class WindowInputRulesTest {

    private static final Instant START = Instant.parse("2026-12-01T02:00:00Z");
    private static final Duration GRACE = Duration.ofHours(72);
    private static final WindowId DEC_1 = WindowId.parse("2026-12-01", "window");

    // ---- window ids -------------------------------------------------------------------------------------------

    @ParameterizedTest
    @CsvSource({"2000-01-01, true", "1999-12-31, false", "9999-12-31, true"})
    void aWindowIdIsADateFromTheYear2000To9999(String date, boolean accepted) {
        if (accepted) {
            assertThat(new WindowId(LocalDate.parse(date)).toString()).isEqualTo(date);
        } else {
            assertThatThrownBy(() -> new WindowId(LocalDate.parse(date))).isInstanceOf(InvalidInput.class)
                    .hasMessageStartingWith("window: must be a date from 2000-01-01 to 9999-12-31");
        }
    }

    @Test
    void theYear10000IsNoWindow() {
        assertThatThrownBy(() -> new WindowId(LocalDate.of(10_000, 1, 1))).isInstanceOf(InvalidInput.class)
                .hasMessageContaining("9999-12-31");
    }

    /** The execution input, the night the first task resolves and a CLI flag accept exactly the same window ids. */
    @ParameterizedTest
    @NullAndEmptySource
    @ValueSource(strings = {"2026-12-01", "2000-01-01", "9999-12-31", "1999-12-31", "2026-2-1", "2026-02-30", "+10000-01-01",
            "2026-12-01T00:00", " 2026-12-01"})
    void theInputAndTheNightAcceptTheWindowIdsAFlagAccepts(String text) {
        String verdict = verdict(() -> WindowId.parse(text, "windowId"));
        assertThat(verdict(() -> new ExecutionInput(text, false))).as("execution input").isEqualTo(verdict);
        assertThat(verdict(() -> new NightWindow(text, START, START.minus(GRACE), GRACE, false, 4))).as("night")
                .isEqualTo(verdict);
        switch (String.valueOf(text)) {
            case "null" -> assertThat(verdict).isEqualTo("windowId: required, a date YYYY-MM-DD");
            case "2000-01-01", "2026-12-01", "9999-12-31" -> assertThat(verdict).isEqualTo("accepted");
            case "1999-12-31" -> assertThat(verdict).isEqualTo("windowId: must be a date from 2000-01-01 to 9999-12-31, was 1999-12-31");
            default -> assertThat(verdict).startsWith("windowId: ");
        }
    }

    private static String verdict(Runnable construct) {
        try {
            construct.run();
            return "accepted";
        } catch (InvalidInput e) {
            return e.getMessage();
        }
    }

    @ParameterizedTest
    @NullAndEmptySource
    @ValueSource(strings = {"  "})
    void aMissingWindowIsRequiredNamingTheField(String text) {
        assertThatThrownBy(() -> WindowId.parse(text, "--window")).isInstanceOf(InvalidInput.class)
                .hasMessage("--window: required, a date YYYY-MM-DD");
    }

    @ParameterizedTest
    @ValueSource(strings = {"2026-12-1", "2026-13-01", "2026-02-30", "01-12-2026", "2026-12-01T00:00"})
    void aMalformedWindowIsRefusedShowingTheValue(String text) {
        assertThatThrownBy(() -> WindowId.parse(text, "--window")).isInstanceOf(InvalidInput.class)
                .hasMessage("--window: must be a date YYYY-MM-DD, was '" + text + "'");
    }

    @Test
    void windowsOrderByDate() {
        WindowId nov30 = WindowId.parse("2026-11-30", "w");
        assertThat(nov30.compareTo(DEC_1)).isNegative();
        assertThat(DEC_1.compareTo(nov30)).isPositive();
        assertThat(DEC_1.compareTo(WindowId.parse("2026-12-01", "w"))).isZero();
    }

    @ParameterizedTest
    @NullAndEmptySource
    @ValueSource(strings = {" "})
    void aMissingScheduledTimeIsRequired(String text) {
        assertThatThrownBy(() -> WindowId.scheduledInstant(text)).isInstanceOf(InvalidInput.class)
                .hasMessageStartingWith("scheduledTime: required");
        assertThatThrownBy(() -> new ScheduledEvent(text)).isInstanceOf(InvalidInput.class)
                .hasMessageStartingWith("scheduledTime: required");
    }

    @Test
    void aScheduledEventKeepsItsTime() {
        assertThat(new ScheduledEvent("2026-12-01T02:00:00Z").scheduledTime()).isEqualTo("2026-12-01T02:00:00Z");
        assertThat(WindowId.scheduledInstant("2026-12-01T03:00:00+01:00")).isEqualTo(START);
        assertThatThrownBy(() -> WindowId.scheduledInstant("2026-12-01T02:00:00")).isInstanceOf(InvalidInput.class)
                .hasMessageStartingWith("scheduledTime: must be an ISO-8601 time with an offset");
    }

    // ---- execution names --------------------------------------------------------------------------------------

    @ParameterizedTest
    @CsvSource({"0, reconcile-2026-12-01, false", "1, reconcile-2026-12-01-rerun-1, true", "999999, reconcile-2026-12-01-rerun-999999, true"})
    void rerunNumbersFrom0To999999Name(int rerun, String name, boolean isRerun) {
        ExecutionName execution = new ExecutionName(DEC_1, rerun);
        assertThat(execution).hasToString(name);
        assertThat(execution.isRerun()).isEqualTo(isRerun);
        assertThat(execution.window()).isEqualTo(DEC_1);
        assertThat(execution.rerun()).isEqualTo(rerun);
        assertThat(ExecutionName.parse(name)).contains(execution);
    }

    @ParameterizedTest
    @ValueSource(ints = {-1, 1_000_000})
    void rerunNumbersOutsideTheRangeAreRefused(int rerun) {
        assertThatThrownBy(() -> new ExecutionName(DEC_1, rerun)).isInstanceOf(InvalidInput.class)
                .hasMessage("rerun: must be 0 (the scheduled run) or a rerun number from 1 to 999999, was " + rerun);
    }

    @Test
    void theScheduledRunAndTheFirstRerun() {
        assertThat(ExecutionName.scheduled(DEC_1)).isEqualTo(new ExecutionName(DEC_1, 0));
        assertThat(ExecutionName.rerun(DEC_1, 1)).isEqualTo(new ExecutionName(DEC_1, 1));
        assertThatThrownBy(() -> ExecutionName.rerun(DEC_1, 0)).isInstanceOf(InvalidInput.class)
                .hasMessage("rerun: must be from 1 to 999999, was 0");
    }

    @ParameterizedTest
    @ValueSource(strings = {"reconcile-2026-02-30", "reconcile-1999-12-31", "reconcile-2026-12-01-rerun-0",
            "reconcile-2026-12-01-rerun-1000000", "nightly-2026-12-01", "reconcile-2026-12-01-", ""})
    void namesThisJobDidNotGiveAreNotOurs(String name) {
        assertThat(ExecutionName.parse(name)).isEmpty();
        assertThatThrownBy(() -> ExecutionName.require(name, "--execution")).isInstanceOf(InvalidInput.class)
                .hasMessage("--execution: must be reconcile-YYYY-MM-DD or reconcile-YYYY-MM-DD-rerun-N, was '" + name + "'");
    }

    @Test
    void noNameIsNoExecutionOfOurs() {
        assertThat(ExecutionName.parse(null)).isEqualTo(Optional.empty());
    }

    @ParameterizedTest
    @CsvSource({
            "arn:aws:states:eu-west-1:123456789012:execution:reconciler:reconcile-2026-12-01, reconcile-2026-12-01",
            "arn:aws:states:eu-west-1:123456789012:execution:reconciler:someone-elses, someone-elses",
            "no-colons, no-colons"})
    void theNameOfAnExecutionArnIsItsLastSegment(String arn, String name) {
        assertThat(ExecutionName.lastSegmentOf(arn)).isEqualTo(name);
    }

    // ---- execution inputs -------------------------------------------------------------------------------------

    private static NightWindow input(String windowId, Instant start, Instant cutoff, Duration grace, Boolean dryRun, Integer shards) {
        return new NightWindow(windowId, start, cutoff, grace, dryRun, shards);
    }

    @Test
    void aCompleteInputKeepsEveryField() {
        NightWindow input = input("2026-12-01", START, START.minus(GRACE), GRACE, true, 64);
        assertThat(input.windowId()).isEqualTo("2026-12-01");
        assertThat(input.windowStart()).isEqualTo(START);
        assertThat(input.cutoff()).isEqualTo(START.minus(GRACE));
        assertThat(input.gracePeriod()).isEqualTo(GRACE);
        assertThat(input.dryRun()).isTrue();
        assertThat(input.shards()).isEqualTo(64);
        assertThat(input("2026-12-01", START, START.minus(GRACE), GRACE, false, 1).dryRun()).isFalse();
    }

    /** Each row breaks one field of an otherwise good input: the error names that field. */
    @Test
    void eachMissingOrMalformedFieldIsRefusedByName() {
        Instant cutoff = START.minus(GRACE);
        record Row(String field, String message, ThrowingInput input) {
        }
        List<Row> rows = List.of(
                new Row("windowId", "windowId: required, a date YYYY-MM-DD", () -> input(null, START, cutoff, GRACE, false, 4)),
                new Row("windowId", "windowId: required, a date YYYY-MM-DD", () -> input(" ", START, cutoff, GRACE, false, 4)),
                new Row("windowId", "windowId: must be a date YYYY-MM-DD, was '2026-12-1'", () -> input("2026-12-1", START, cutoff, GRACE, false, 4)),
                new Row("windowId", "windowId: must be a date YYYY-MM-DD, was '+2026-12-01'", () -> input("+2026-12-01", START, cutoff, GRACE, false, 4)),
                new Row("windowStart", "windowStart: required", () -> input("2026-12-01", null, cutoff, GRACE, false, 4)),
                new Row("gracePeriod", "gracePeriod: required, a positive", () -> input("2026-12-01", START, cutoff, null, false, 4)),
                new Row("gracePeriod", "gracePeriod: required, a positive", () -> input("2026-12-01", START, START, Duration.ZERO, false, 4)),
                new Row("gracePeriod", "gracePeriod: required, a positive", () -> input("2026-12-01", START, START.plusSeconds(1), Duration.ofSeconds(-1), false, 4)),
                new Row("cutoff", "cutoff: required", () -> input("2026-12-01", START, null, GRACE, false, 4)),
                new Row("cutoff", "cutoff: must equal windowStart - gracePeriod = " + cutoff + ", was " + START,
                        () -> input("2026-12-01", START, START, GRACE, false, 4)),
                new Row("dryRun", "dryRun: required, true or false", () -> input("2026-12-01", START, cutoff, GRACE, null, 4)),
                new Row("shards", "shards: must be an integer from 1 to 64, was null", () -> input("2026-12-01", START, cutoff, GRACE, false, null)),
                new Row("shards", "shards: must be an integer from 1 to 64, was 0", () -> input("2026-12-01", START, cutoff, GRACE, false, 0)),
                new Row("shards", "shards: must be an integer from 1 to 64, was 65", () -> input("2026-12-01", START, cutoff, GRACE, false, 65)));
        for (Row row : rows) {
            assertThatThrownBy(row.input::build).as(row.message).isInstanceOf(InvalidInput.class)
                    .hasMessageStartingWith(row.message)
                    .satisfies(e -> assertThat(((InvalidInput) e).field()).isEqualTo(row.field));
        }
    }

    private interface ThrowingInput {
        NightWindow build();
    }

    @Test
    void noInputJsonIsRequired() {
        assertThatThrownBy(() -> NightWindow.parse(null)).isInstanceOf(InvalidInput.class)
                .hasMessage("input: required, the execution input JSON object");
    }

    @Test
    void differingFieldsNameEachChangedFieldInDeclarationOrder() {
        NightWindow base = WindowConfig.defaults().nightFor(DEC_1);
        assertThat(base.differingFields(base)).isEmpty();
        assertThat(base.differingFields(WindowConfig.defaults().withDryRun(true).nightFor(DEC_1))).containsExactly("dryRun");
        assertThat(base.differingFields(WindowConfig.defaults().withShards(8).nightFor(DEC_1))).containsExactly("shards");
        WindowConfig otherGrace = new WindowConfig(WindowConfig.DEFAULT_ZONE, WindowConfig.DEFAULT_LOCAL_TIME, Duration.ofHours(48), 4, false, 30);
        assertThat(base.differingFields(otherGrace.nightFor(DEC_1))).containsExactly("cutoff", "gracePeriod");
        WindowConfig otherTime = new WindowConfig(WindowConfig.DEFAULT_ZONE, LocalTime.of(3, 0), GRACE, 4, false, 30);
        assertThat(base.differingFields(otherTime.nightFor(DEC_1))).containsExactly("windowStart", "cutoff");
        NightWindow otherWindow = input("2026-12-02", START, START.minus(GRACE), GRACE, false, 4);
        assertThat(base.differingFields(otherWindow)).containsExactly("windowId");
        NightWindow everything = input("2026-12-02", START.plusSeconds(60), START.plusSeconds(60).minus(Duration.ofHours(1)),
                Duration.ofHours(1), true, 5);
        assertThat(base.differingFields(everything))
                .containsExactly("windowId", "windowStart", "cutoff", "gracePeriod", "dryRun", "shards");
    }

    // ---- window configuration ---------------------------------------------------------------------------------

    private static WindowConfig config(ZoneId zone, LocalTime time, Duration grace, int shards, int horizonDays) {
        return new WindowConfig(zone, time, grace, shards, false, horizonDays);
    }

    @ParameterizedTest
    @CsvSource({"1, 1", "64, 365"})
    void shardsAndHorizonAreAcceptedAtTheirBounds(int shards, int horizonDays) {
        WindowConfig config = config(ZoneId.of("UTC"), LocalTime.of(2, 0), GRACE, shards, horizonDays);
        assertThat(config.shards()).isEqualTo(shards);
        assertThat(config.horizonDays()).isEqualTo(horizonDays);
    }

    @ParameterizedTest
    @CsvSource({
            "0, 30, SHARDS, 'must be an integer from 1 to 64, was 0'",
            "65, 30, SHARDS, 'must be an integer from 1 to 64, was 65'",
            "4, 0, WINDOW_HORIZON_DAYS, 'must be an integer from 1 to 365, was 0'",
            "4, 366, WINDOW_HORIZON_DAYS, 'must be an integer from 1 to 365, was 366'"})
    void shardsAndHorizonAreRefusedJustOutsideTheirBounds(int shards, int horizonDays, String variable, String message) {
        assertThatThrownBy(() -> config(ZoneId.of("UTC"), LocalTime.of(2, 0), GRACE, shards, horizonDays))
                .isInstanceOf(InvalidInput.class).hasMessage(variable + ": " + message);
    }

    @Test
    void aConfigurationNeedsAZoneATimeAndAPositiveGracePeriod() {
        assertThatThrownBy(() -> config(null, LocalTime.of(2, 0), GRACE, 4, 30)).isInstanceOf(InvalidInput.class)
                .hasMessageStartingWith(EnvVars.SCHEDULE_TIME_ZONE + ": required");
        assertThatThrownBy(() -> config(ZoneId.of("UTC"), null, GRACE, 4, 30)).isInstanceOf(InvalidInput.class)
                .hasMessageStartingWith(EnvVars.SCHEDULE_LOCAL_TIME + ": required");
        for (Duration grace : new Duration[] {null, Duration.ZERO, Duration.ofSeconds(-1)}) {
            assertThatThrownBy(() -> config(ZoneId.of("UTC"), LocalTime.of(2, 0), grace, 4, 30)).as(String.valueOf(grace))
                    .isInstanceOf(InvalidInput.class).hasMessage(EnvVars.GRACE_PERIOD + ": must be a positive ISO-8601 duration such as PT72H, was " + grace);
        }
        assertThat(config(ZoneId.of("UTC"), LocalTime.of(2, 0), Duration.ofSeconds(1), 4, 30).gracePeriod()).isEqualTo(Duration.ofSeconds(1));
    }

    @Test
    void withDryRunAndWithShardsChangeOnlyTheirField() {
        WindowConfig base = WindowConfig.defaults();
        assertThat(base.dryRun()).isFalse();
        assertThat(base.withDryRun(true)).isEqualTo(new WindowConfig(base.zone(), base.localTime(), base.gracePeriod(), base.shards(), true, base.horizonDays()));
        assertThat(base.withDryRun(true).dryRun()).isTrue();
        assertThat(base.withShards(9)).isEqualTo(new WindowConfig(base.zone(), base.localTime(), base.gracePeriod(), 9, false, base.horizonDays()));
    }

    @Test
    void dryRunIsReadStrictlyAndABlankVariableTakesItsDefault() {
        assertThat(WindowConfig.fromEnvironment(Map.of(EnvVars.DRY_RUN, "false")).dryRun()).isFalse();
        assertThat(WindowConfig.fromEnvironment(Map.of(EnvVars.DRY_RUN, "true")).dryRun()).isTrue();
        assertThat(WindowConfig.fromEnvironment(Map.of(EnvVars.DRY_RUN, " true ")).dryRun()).isTrue();
        assertThat(WindowConfig.fromEnvironment(Map.of(EnvVars.SHARDS, "  "))).isEqualTo(WindowConfig.defaults());
        // "trvF" and "faltF" share their hashCode with "true" and "false": the word is matched whole, not by its hash.
        assertThat("trvF".hashCode()).isEqualTo("true".hashCode());
        assertThat("faltF".hashCode()).isEqualTo("false".hashCode());
        for (String notABoolean : new String[] {"TRUE", "False", "1", "trvF", "faltF"}) {
            assertThatThrownBy(() -> WindowConfig.fromEnvironment(Map.of(EnvVars.DRY_RUN, notABoolean))).as(notABoolean)
                    .isInstanceOf(InvalidInput.class).hasMessage(EnvVars.DRY_RUN + ": must be true or false, was '" + notABoolean + "'");
        }
    }

    @Test
    void aHandlerReadsItsConfigurationFromItsEnvironment() {
        AwsClients noAws = new com.payments.reconciler.testing.NoAwsClients("the configuration");
        HandlerEnvironment env = new HandlerEnvironment(Map.of(EnvVars.SHARDS, "16", EnvVars.DRY_RUN, "true"), noAws, Clock.systemUTC());
        assertThat(WindowConfig.fromEnvironment(env)).isEqualTo(WindowConfig.defaults().withShards(16).withDryRun(true));
    }
}
