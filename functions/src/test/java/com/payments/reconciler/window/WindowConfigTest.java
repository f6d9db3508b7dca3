package com.payments.reconciler.window;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.payments.reconciler.workflow.EnvVars;
import com.payments.reconciler.workflow.InvalidInput;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalTime;
import java.time.ZoneId;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The configuration a window's input comes from, and the exact bytes of that input. */
class WindowConfigTest {

    private static final WindowId DEC_1 = WindowId.parse("2026-12-01", "window");

    @Test
    void unsetVariablesTakeTheDocumentedDefaults() {
        WindowConfig config = WindowConfig.fromEnvironment(Map.of(EnvVars.STATE_MACHINE_ARN, "arn:aws:states:eu-west-1:1:stateMachine:r"));
        assertThat(config).isEqualTo(new WindowConfig(ZoneId.of("UTC"), LocalTime.of(2, 0), Duration.ofHours(72), 4, false, 30));
        assertThat(config).isEqualTo(WindowConfig.defaults());
    }

    @Test
    void everyVariableIsRead() {
        WindowConfig config = WindowConfig.fromEnvironment(Map.of(
                EnvVars.SCHEDULE_TIME_ZONE, "Europe/London", EnvVars.SCHEDULE_LOCAL_TIME, "01:30",
                EnvVars.GRACE_PERIOD, "PT48H", EnvVars.SHARDS, "8", EnvVars.DRY_RUN, "true", EnvVars.WINDOW_HORIZON_DAYS, "7"));
        assertThat(config).isEqualTo(new WindowConfig(ZoneId.of("Europe/London"), LocalTime.of(1, 30), Duration.ofHours(48), 8, true, 7));
    }

    @Test
    void theEnvironmentItWritesReadsBackAsTheSameConfiguration() {
        WindowConfig config = new WindowConfig(java.time.ZoneId.of("Europe/London"), java.time.LocalTime.of(2, 30),
                java.time.Duration.ofHours(48), 8, true, 45);
        assertThat(WindowConfig.fromEnvironment(config.toEnvironment())).isEqualTo(config);
        assertThat(WindowConfig.fromEnvironment(WindowConfig.defaults().toEnvironment())).isEqualTo(WindowConfig.defaults());
    }

    @Test
    void malformedVariablesAreErrorsNamingTheVariable() {
        Map<String, String> bad = Map.of(
                EnvVars.SCHEDULE_TIME_ZONE, "Europe/Londres",
                EnvVars.SCHEDULE_LOCAL_TIME, "2am",
                EnvVars.GRACE_PERIOD, "72h",
                EnvVars.SHARDS, "four",
                EnvVars.DRY_RUN, "yes",
                EnvVars.WINDOW_HORIZON_DAYS, "a month");
        bad.forEach((name, value) -> assertThatThrownBy(() -> WindowConfig.fromEnvironment(Map.of(name, value)))
                .as(name).isInstanceOf(InvalidInput.class)
                .hasMessageStartingWith(name + ": must be ").hasMessageContaining("'" + value + "'"));
        for (Map.Entry<String, String> outOfRange : Map.of(EnvVars.GRACE_PERIOD, "PT0S", EnvVars.SHARDS, "0",
                EnvVars.WINDOW_HORIZON_DAYS, "0").entrySet()) {
            assertThatThrownBy(() -> WindowConfig.fromEnvironment(Map.ofEntries(outOfRange)))
                    .as(outOfRange.getKey()).isInstanceOf(InvalidInput.class).hasMessageStartingWith(outOfRange.getKey() + ": ");
        }
    }

    /** Pinned bytes: a change here changes every future execution's input, so it must be deliberate. */
    @Test
    void canonicalInputBytesAndHash() {
        NightWindow input = WindowConfig.defaults().nightFor(DEC_1);
        String json = "{\"windowId\":\"2026-12-01\",\"windowStart\":\"2026-12-01T02:00:00Z\",\"cutoff\":\"2026-11-28T02:00:00Z\","
                + "\"gracePeriod\":\"PT72H\",\"dryRun\":false,\"shards\":4}";
        assertThat(input.toJson()).isEqualTo(json);
        assertThat(input.sha256()).isEqualTo(NightWindow.sha256(json)).hasSize(64).matches("[0-9a-f]+");
        assertThat(NightWindow.parse(json)).isEqualTo(input);
    }

    @Test
    void windowStartIsTheScheduleLocalTimeInTheZoneAcrossDaylightSaving() {
        WindowConfig london = new WindowConfig(ZoneId.of("Europe/London"), LocalTime.of(2, 0), Duration.ofHours(72), 4, false, 30);
        assertThat(london.windowStart(WindowId.parse("2026-07-01", "w"))).isEqualTo(Instant.parse("2026-07-01T01:00:00Z"));
        assertThat(london.windowStart(WindowId.parse("2026-12-01", "w"))).isEqualTo(Instant.parse("2026-12-01T02:00:00Z"));
        // 2026-03-29 01:00-02:00 GMT does not exist in London: 01:30 resolves forward to 02:30 BST.
        WindowConfig gap = new WindowConfig(ZoneId.of("Europe/London"), LocalTime.of(1, 30), Duration.ofHours(72), 4, false, 30);
        assertThat(gap.windowStart(WindowId.parse("2026-03-29", "w"))).isEqualTo(Instant.parse("2026-03-29T01:30:00Z"));
        // 2026-10-25 01:30 happens twice: the earlier (BST) one.
        assertThat(gap.windowStart(WindowId.parse("2026-10-25", "w"))).isEqualTo(Instant.parse("2026-10-25T00:30:00Z"));
        // Scheduler's nominal time for that occurrence (either offset) still names the window of that date.
        assertThat(WindowId.fromScheduledTime("2026-10-25T01:30:00+01:00", ZoneId.of("Europe/London"))).hasToString("2026-10-25");
        assertThat(WindowId.fromScheduledTime("2026-10-25T01:30:00Z", ZoneId.of("Europe/London"))).hasToString("2026-10-25");
    }

    @Test
    void windowIdIsTheLocalDateInTheScheduleZone() {
        assertThat(WindowId.fromScheduledTime("2026-12-01T23:30:00Z", ZoneId.of("Asia/Kolkata"))).hasToString("2026-12-02");
        assertThat(WindowId.fromScheduledTime("2026-12-01T02:00:00Z", ZoneId.of("America/New_York"))).hasToString("2026-11-30");
        assertThat(WindowId.fromScheduledTime("2026-12-01T02:00:00.000Z", ZoneId.of("UTC"))).hasToString("2026-12-01");
    }

    /** The execution input is the window and dry-run: pinned bytes, so a duplicate start has the same input for the same window. */
    @Test
    void theExecutionInputIsTheWindowAndDryRunOnly() {
        ExecutionInput input = WindowConfig.defaults().inputFor(DEC_1);
        assertThat(input.toJson()).isEqualTo("{\"windowId\":\"2026-12-01\",\"dryRun\":false}");
        WindowConfig otherDeployment = new WindowConfig(ZoneId.of("Europe/London"), java.time.LocalTime.of(3, 0), java.time.Duration.ofHours(120), 8, false, 30);
        assertThat(otherDeployment.inputFor(DEC_1).toJson()).as("the deployment's settings are not in the input").isEqualTo(input.toJson());
        assertThat(otherDeployment.resolve(input).gracePeriod()).hasHours(120);
        assertThat(otherDeployment.resolve(input).cutoff()).isEqualTo(otherDeployment.windowStart(DEC_1).minus(java.time.Duration.ofHours(120)));
    }

    @Test
    void executionInputsDifferByWindowAndDryRun() {
        ExecutionInput base = new ExecutionInput("2026-12-01", false);
        assertThat(base.differingFields(new ExecutionInput("2026-12-01", false))).isEmpty();
        assertThat(base.differingFields(new ExecutionInput("2026-12-02", false))).containsExactly("windowId");
        assertThat(base.differingFields(new ExecutionInput("2026-12-01", true))).containsExactly("dryRun");
        assertThat(base.differingFields(new ExecutionInput("2026-12-02", true))).containsExactly("windowId", "dryRun");
        assertThat(base.window()).isEqualTo(DEC_1);
        assertThat(base.sha256()).isEqualTo(ExecutionInput.sha256(base.toJson())).hasSize(64);
        assertThatThrownBy(() -> new ExecutionInput("2026-12-1", false)).isInstanceOf(InvalidInput.class).hasMessageStartingWith("windowId: must be a date");
        assertThatThrownBy(() -> new ExecutionInput(" ", false)).isInstanceOf(InvalidInput.class).hasMessageStartingWith("windowId: required");
        assertThatThrownBy(() -> ExecutionInput.parse(null)).isInstanceOf(InvalidInput.class).hasMessageStartingWith("input: required");
        NightWindow night = WindowConfig.defaults().resolve(base);
        assertThat(night.executionInput()).isEqualTo(base);
        assertThat(night.withShards(9).shards()).isEqualTo(9);
        assertThat(night.withShards(9).differingFields(night)).containsExactly("shards");
    }

    /** Known bad: an input carrying a grace, shards or a cutoff (a tampered console start) is refused naming the field. */
    @Test
    void anInputCarryingDeployedSettingsIsRefusedNamingTheField() {
        for (String field : new String[] {"\"gracePeriod\":\"PT1H\"", "\"shards\":1", "\"cutoff\":\"2026-11-30T01:00:00Z\"", "\"zone\":\"UTC\""}) {
            String tampered = "{\"windowId\":\"2026-12-01\",\"dryRun\":false," + field + "}";
            String name = field.substring(1, field.indexOf('"', 1));
            assertThatThrownBy(() -> ExecutionInput.parse(tampered)).isInstanceOf(InvalidInput.class)
                    .hasMessage(name + ": unknown field; " + ExecutionInput.ACCEPTED_FORM);
        }
        assertThatThrownBy(() -> ExecutionInput.parse("{\"windowId\":\"2026-12-01\"}")).isInstanceOf(InvalidInput.class)
                .hasMessageStartingWith("dryRun: required");
    }

    @Test
    void executionInputIsParsedStrictly() {
        String good = WindowConfig.defaults().nightFor(DEC_1).toJson();
        assertThatThrownBy(() -> NightWindow.parse(good.replace("}", ",\"attempt\":2}")))
                .isInstanceOf(InvalidInput.class).hasMessageStartingWith("attempt: unknown field");
        assertThatThrownBy(() -> NightWindow.parse(good.replace("\"shards\":4", "\"shards\":\"4\"")))
                .isInstanceOf(InvalidInput.class).hasMessageStartingWith("shards: ");
        assertThatThrownBy(() -> NightWindow.parse(good.replace("\"cutoff\":\"2026-11-28T02:00:00Z\"", "\"cutoff\":\"2026-11-29T02:00:00Z\"")))
                .isInstanceOf(InvalidInput.class).hasMessageStartingWith("cutoff: must equal windowStart - gracePeriod");
        assertThatThrownBy(() -> NightWindow.parse(good.replace("\"windowId\":\"2026-12-01\"", "\"windowId\":\"2026-12-1\"")))
                .isInstanceOf(InvalidInput.class).hasMessageStartingWith("windowId: ");
        assertThatThrownBy(() -> NightWindow.parse(good.replace(",\"dryRun\":false", "")))
                .isInstanceOf(InvalidInput.class).hasMessageStartingWith("dryRun: required");
        assertThatThrownBy(() -> NightWindow.parse(good.replace("\"gracePeriod\":\"PT72H\"", "\"gracePeriod\":\"3 days\"")))
                .isInstanceOf(InvalidInput.class).hasMessageStartingWith("gracePeriod: ");
    }

    @Test
    void namesOutsideOurFormAreNotOurs() {
        for (String other : new String[] {"reconcile-2026-12-01-rerun-0", "reconcile-2026-02-30", "reconcile-2026-12-01-rerun-01",
                "Reconcile-2026-12-01", "reconcile-2026-12-01-retry-1", "reconcile-2026-12-01-rerun-1x", "manual-test", ""}) {
            assertThat(ExecutionName.parse(other)).as(other).isEmpty();
        }
        assertThatThrownBy(() -> ExecutionName.require("reconcile-yesterday", "execution"))
                .isInstanceOf(InvalidInput.class).hasMessageStartingWith("execution: must be reconcile-YYYY-MM-DD");
        assertThat(ExecutionName.require("reconcile-2026-12-01-rerun-3", "execution")).isEqualTo(ExecutionName.rerun(DEC_1, 3));
    }

    /** Starting a window early shortens the grace period, so nothing may start before its window start. */
    @Test
    void aManualStartOfTomorrowsWindowIsRefusedUntilItsWindowStart() {
        WindowConfig config = WindowConfig.defaults();
        WindowId tomorrow = WindowId.parse("2026-12-02", "--window");

        assertThatThrownBy(() -> config.requireStartable(tomorrow, Instant.parse("2026-12-01T03:00:00Z")))
                .isInstanceOf(InvalidInput.class)
                .hasMessage("window: 2026-12-02 cannot start before its window start 2026-12-02T02:00:00Z "
                        + "(starting it earlier would shorten the grace period PT72H); now is 2026-12-01T03:00:00Z");
        assertThatThrownBy(() -> config.requireStartable(tomorrow, Instant.parse("2026-12-02T01:59:59Z")))
                .as("today's window before its scheduled time").isInstanceOf(InvalidInput.class);
        config.requireStartable(tomorrow, Instant.parse("2026-12-02T02:00:00Z"));
    }

    @Test
    void theLatestStartedWindowIsYesterdaysUntilTodaysWindowStart() {
        WindowConfig london = new WindowConfig(ZoneId.of("Europe/London"), LocalTime.of(2, 0), Duration.ofHours(72), 4, false, 30);

        assertThat(london.latestStartedWindow(Instant.parse("2026-12-02T01:59:59Z"))).isEqualTo(WindowId.parse("2026-12-01", "w"));
        assertThat(london.latestStartedWindow(Instant.parse("2026-12-02T02:00:00Z"))).isEqualTo(WindowId.parse("2026-12-02", "w"));
        // 02:00 London in summer is 01:00Z.
        assertThat(london.latestStartedWindow(Instant.parse("2026-07-02T01:00:00Z"))).isEqualTo(WindowId.parse("2026-07-02", "w"));
    }
}
