package com.payments.reconciler.cdk;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.payments.reconciler.window.WindowConfig;
import com.payments.reconciler.workflow.EnvVars;
import com.payments.reconciler.workflow.ProviderQuota;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalTime;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.api.Test;

/** Context → configuration: defaults, cdk.json agreeing with them, and a clear error naming the key for bad values. */
class StackConfigTest {

    @Test
    void defaultsAreNightlyTwoAmUtcAndWhatStartWindowDefaultsTo() {
        StackConfig config = StackConfig.fromContext(key -> null);
        // StartWindow's defaults, but a dry run: the default provider URL is a placeholder.
        assertThat(config.window()).isEqualTo(WindowConfig.defaults().withDryRun(true));
        assertThat(config.window().zone()).isEqualTo(ZoneId.of("UTC"));
        assertThat(config.window().localTime()).isEqualTo(LocalTime.of(2, 0));
        assertThat(config.namePrefix()).isEqualTo("reconciler-prod-");
        assertThat(config.providerSecretName()).isEqualTo("reconciler-prod-provider-api-key");
        assertThat(config.alarmEmail()).isEmpty();
        assertThat(config.providerQuota()).isEqualTo(new ProviderQuota(40, 32));
        assertThat(config.providerQuotaEnvironment()).containsExactly(
                Map.entry(EnvVars.PROVIDER_REQUESTS_PER_SECOND, "40"), Map.entry(EnvVars.PROVIDER_MAX_CONCURRENT_REQUESTS, "32"));
        assertThat(config.providerKeyRetentionEnvironment()).containsExactly(Map.entry(EnvVars.PROVIDER_KEY_RETENTION, "PT24H"));
        assertThat(config.providerOutcomeTimeoutEnvironment()).containsExactly(Map.entry(EnvVars.PROVIDER_OUTCOME_TIMEOUT, "PT2H"));
        assertThat(config.providerAdapterEnvironment()).containsExactly(Map.entry(EnvVars.PROVIDER_ADAPTER, "generic-http"));
        assertThat(config.reserveConcurrency()).isFalse();
        assertThat(config.tableDeletionProtection()).isFalse();
        assertThat(config.window().dryRun()).as("the placeholder provider URL: a dry run").isTrue();
        assertThat(WindowConfig.fromEnvironment(config.windowEnvironment())).isEqualTo(config.window());
    }

    /** provider=stripe reaches DeliverCommands; with it a key retention past Stripe's documented 24 h is refused (known-bad: P2D). */
    @Test
    void stripeIsSelectedAndARetentionPastItsPruningIsRefused() {
        StackConfig stripe = StackConfig.fromContext(key -> key.equals(StackConfig.PROVIDER) ? "stripe" : null);
        assertThat(stripe.providerAdapterEnvironment()).containsExactly(Map.entry(EnvVars.PROVIDER_ADAPTER, "stripe"));
        assertThat(StackConfig.fromContext(key -> Map.<String, Object>of(StackConfig.PROVIDER, "stripe",
                StackConfig.PROVIDER_KEY_RETENTION, "PT12H").get(key)).providerKeyRetention().retention()).isEqualTo(Duration.ofHours(12));
        assertThatThrownBy(() -> StackConfig.fromContext(key -> Map.<String, Object>of(StackConfig.PROVIDER, "stripe",
                StackConfig.PROVIDER_KEY_RETENTION, "P2D").get(key)))
                .isInstanceOf(InvalidContext.class)
                .hasMessageStartingWith("context key '" + StackConfig.PROVIDER_KEY_RETENTION + "' ")
                .hasMessageContaining("at most PT24H with provider=stripe");
        // The generic contract documents no pruning: any retention the key accepts.
        assertThat(StackConfig.fromContext(key -> key.equals(StackConfig.PROVIDER_KEY_RETENTION) ? "P2D" : null)
                .providerKeyRetention().retention()).isEqualTo(Duration.ofDays(2));
    }

    /** providerOutcomeTimeout reaches DeliverCommands' environment as given (the bad values are rows of the refusal table). */
    @Test
    void theOutcomeTimeoutReachesDeliverCommands() {
        StackConfig adyen = StackConfig.fromContext(key -> key.equals(StackConfig.PROVIDER_OUTCOME_TIMEOUT) ? "PT45M" : null);
        assertThat(adyen.providerOutcomeTimeoutEnvironment()).containsExactly(Map.entry(EnvVars.PROVIDER_OUTCOME_TIMEOUT, "PT45M"));
    }

    /** cdk.json's context is the documented defaults, key for key, so `cdk synth` from a fresh clone deploys them. */
    @Test
    void cdkJsonContextIsTheDefaults() throws IOException {
        JsonNode cdkJson = new ObjectMapper().readTree(Path.of(System.getProperty("reconciler.repositoryRoot"), "cdk.json").toFile());
        Map<String, String> context = new HashMap<>();
        cdkJson.path("context").properties().forEach(e -> context.put(e.getKey(), e.getValue().asText()));
        assertThat(context).isEqualTo(StackConfig.defaults());
        // The app is bin/cdk-app (find a JDK 25, absolute output paths), which runs the Maven synthesis.
        assertThat(cdkJson.path("app").asText()).isEqualTo("bin/cdk-app");
        String script = Files.readString(Path.of(System.getProperty("reconciler.repositoryRoot"), "bin", "cdk-app"));
        assertThat(script).contains("bin/find-jdk").contains("-pl cdk -am").contains("-Psynth").contains("CDK_OUTDIR");
        assertThat(StackConfig.fromContext(context::get)).isEqualTo(StackConfig.fromContext(key -> null));
    }

    @Test
    void valuesFromJsonAndFromTheCommandLineReadTheSame() {
        Map<String, Object> json = Map.of(StackConfig.SHARDS, 16, StackConfig.DRY_RUN, true, StackConfig.WINDOW_HORIZON_DAYS, 7,
                StackConfig.PROVIDER_REQUESTS_PER_SECOND, 2.5, StackConfig.PROVIDER_MAX_CONCURRENT_REQUESTS, 4, StackConfig.RESERVE_CONCURRENCY, false);
        Map<String, Object> cli = Map.of(StackConfig.SHARDS, "16", StackConfig.DRY_RUN, "true", StackConfig.WINDOW_HORIZON_DAYS, "7",
                StackConfig.PROVIDER_REQUESTS_PER_SECOND, "2.5", StackConfig.PROVIDER_MAX_CONCURRENT_REQUESTS, "4", StackConfig.RESERVE_CONCURRENCY, "false");
        StackConfig fromJson = StackConfig.fromContext(json::get);
        assertThat(fromJson).isEqualTo(StackConfig.fromContext(cli::get));
        assertThat(fromJson.window().shards()).isEqualTo(16);
        assertThat(fromJson.window().dryRun()).isTrue();
        assertThat(fromJson.window().horizonDays()).isEqualTo(7);
        assertThat(fromJson.providerQuota()).isEqualTo(new ProviderQuota(2.5, 4));
        assertThat(fromJson.providerQuotaEnvironment()).containsEntry(EnvVars.PROVIDER_REQUESTS_PER_SECOND, "2.5");
        assertThat(fromJson.reserveConcurrency()).isFalse();
    }

    @Test
    void overridesFlowIntoTheWindowConfiguration() {
        Map<String, Object> context = Map.of(StackConfig.SCHEDULE_TIME_ZONE, "America/New_York", StackConfig.SCHEDULE_TIME, "23:15",
                StackConfig.GRACE_PERIOD, "P5D", StackConfig.ALARM_EMAIL, "ops@example.com", StackConfig.NAME_PREFIX, "stg-");
        StackConfig config = StackConfig.fromContext(context::get);
        assertThat(config.window().zone()).isEqualTo(ZoneId.of("America/New_York"));
        assertThat(config.window().localTime()).isEqualTo(LocalTime.of(23, 15));
        assertThat(config.window().gracePeriod()).isEqualTo(Duration.ofDays(5));
        assertThat(config.alarmEmail()).contains("ops@example.com");
        assertThat(config.providerSecretName()).isEqualTo("stg-provider-api-key");
        assertThat(config.physicalName("nightly")).isEqualTo("stg-nightly");
    }

    @ParameterizedTest(name = "{0}={1}")
    @CsvSource(delimiter = '|', value = {
            "scheduleTimeZone|Mars/Olympus_Mons|an IANA time zone",
            "scheduleTime|2am|a local time HH:mm",
            "scheduleTime|02:00:30|a local time HH:mm",
            "scheduleTime|25:00|a local time HH:mm",
            "gracePeriod|72h|ISO-8601 duration",
            "gracePeriod|PT0S|a positive ISO-8601 duration",
            "gracePeriod|PT-1H|a positive ISO-8601 duration",
            "shards|four|an integer from 1 to 64",
            "shards|0|an integer from 1 to 64",
            "shards|65|an integer from 1 to 64",
            "dryRun|yes|true or false",
            "windowHorizonDays|0|from 1 to 365",
            "windowHorizonDays|366|from 1 to 365",
            "providerBaseUrl|http://provider.example/api|an https URL",
            "providerBaseUrl|provider.example|an https URL",
            "providerBaseUrl|https://|an https URL",
            "providerSecretName|has spaces in it|1-256 characters",
            "alarmEmail|oncall|an e-mail address",
            "namePrefix|prod env|at most 24 letters",
            "namePrefix|a-prefix-that-is-far-too-long-for-names|at most 24 letters",
            "providerRequestsPerSecond|0|above 0 and at most 10000",
            "providerRequestsPerSecond|10000.5|above 0 and at most 10000",
            "providerRequestsPerSecond|-5|above 0 and at most 10000",
            "providerRequestsPerSecond|forty|a number of requests per second",
            "providerRequestsPerSecond|NaN|a number of requests per second",
            "providerRequestsPerSecond|1e3|a number of requests per second",
            "providerMaxConcurrentRequests|3|an integer from 4 (one per concurrent delivery call) to 1000",
            "providerMaxConcurrentRequests|1001|an integer from 4",
            "providerMaxConcurrentRequests|8.5|an integer from 4",
            "providerMaxConcurrentRequests|many|an integer from 4",
            "providerKeyRetention|24h|an ISO-8601 duration above zero and at most P366D, e.g. PT24H",
            "providerKeyRetention|PT0S|an ISO-8601 duration above zero",
            "providerKeyRetention|PT-1H|an ISO-8601 duration above zero",
            "providerKeyRetention|P400D|at most P366D",
            "maxSettlementFeedLag|6h|an ISO-8601 duration above zero and at most PT24H, e.g. PT6H",
            "maxSettlementFeedLag|PT0S|an ISO-8601 duration above zero",
            "maxSettlementFeedLag|PT25H|at most PT24H",
            "providerOutcomeTimeout|2h|an ISO-8601 duration above zero and at most P7D, e.g. PT2H",
            "providerOutcomeTimeout|PT0S|an ISO-8601 duration above zero",
            "providerOutcomeTimeout|P8D|at most P7D",
            "reserveConcurrency|yes|true or false",
            "tableDeletionProtection|on|true or false",
            "provider|paypal|must be one of generic-http | stripe",
            "provider|Generic-HTTP|must be one of generic-http",
    })
    void badValuesAreRefusedNamingTheKey(String key, String value, String form) {
        // The message names the key, the accepted form and the value given, and nothing else (no variable names).
        Map<String, Object> context = Map.of(key, value);
        assertThatThrownBy(() -> StackConfig.fromContext(context::get))
                .isInstanceOf(InvalidContext.class)
                .hasMessageStartingWith("context key '" + key + "' ")
                .hasMessageContaining(form)
                .hasMessageContaining(value)
                .hasMessageNotContainingAny("SCHEDULE_", "GRACE_PERIOD", "SHARDS", "DRY_RUN", "WINDOW_HORIZON", "PROVIDER_")
                .hasMessageContaining("-c " + key + "=")
                .satisfies(e -> assertThat(((InvalidContext) e).key()).isEqualTo(key));
    }

    /** The feed lag must leave now - lag after every candidate's cutoff: shorter than the grace period. */
    @Test
    void aFeedLagAsLongAsTheGracePeriodIsRefusedNamingTheKey() {
        Map<String, Object> context = Map.of("gracePeriod", "PT12H", "maxSettlementFeedLag", "PT12H");
        assertThatThrownBy(() -> StackConfig.fromContext(context::get))
                .isInstanceOf(InvalidContext.class)
                .hasMessageStartingWith("context key 'maxSettlementFeedLag' ")
                .hasMessageContaining("shorter than gracePeriod (PT12H)");
        Map<String, Object> shorter = Map.of("gracePeriod", "PT12H", "maxSettlementFeedLag", "PT11H");
        assertThat(StackConfig.fromContext(shorter::get).maxSettlementFeedLagEnvironment())
                .containsExactly(Map.entry(EnvVars.MAX_SETTLEMENT_FEED_LAG, "PT11H"));
        assertThat(StackConfig.fromContext(Map.<String, Object>of()::get).maxSettlementFeedLagEnvironment())
                .containsExactly(Map.entry(EnvVars.MAX_SETTLEMENT_FEED_LAG, "PT6H"));
    }

    /** Synthesis "now" for the daylight-saving cases: the refusals name the dates after it. */
    private static final Clock SYNTH_CLOCK = Clock.fixed(Instant.parse("2026-12-03T17:00:00Z"), ZoneOffset.UTC);

    /**
     * EventBridge Scheduler skips a cron time that does not exist on a spring-forward day, so the
     * night would silently not start. Such a time is refused at synth, naming the key, the zone, the time, the
     * dates and times that do exist every day; times in a fall-back overlap exist (Scheduler runs them once).
     */
    @ParameterizedTest(name = "{0} {1}")
    @CsvSource(delimiter = '|', value = {
            "Europe/London|01:30|2027-03-28, 2028-03-26, 2029-03-25|02:00 or 00:00",
            "America/New_York|02:00|2027-03-14, 2028-03-12, 2029-03-11|03:00 or 01:00",
            "America/New_York|02:30|2027-03-14, 2028-03-12, 2029-03-11|03:00 or 01:00",
            "America/New_York|02:59|2027-03-14|03:00 or 01:00",
            // A 30-minute daylight-saving shift: 02:00-02:29 are skipped on the first Sunday of October.
            "Australia/Lord_Howe|02:15|2027-10-03, 2028-10-01, 2029-10-07|02:30 or 01:00",
            "Australia/Lord_Howe|02:00|2027-10-03|02:30 or 01:00",
            // Gaps at midnight: the suggestion before it is on the previous day.
            "America/Havana|00:30|2027-03-14|01:00 or 23:00",
            "America/Santiago|00:00|2027-09-05|01:00 or 23:00",
    })
    void aScheduleTimeThatDoesNotExistOnSpringForwardIsRefusedAtSynth(String zone, String time, String dates, String instead) {
        Map<String, Object> context = Map.of(StackConfig.SCHEDULE_TIME_ZONE, zone, StackConfig.SCHEDULE_TIME, time);
        assertThatThrownBy(() -> StackConfig.fromContext(context::get, SYNTH_CLOCK))
                .isInstanceOf(InvalidContext.class)
                .hasMessageStartingWith("context key 'scheduleTime' must be a local time HH:mm that exists every day in " + zone)
                .hasMessageContaining("was '" + time + "'")
                .hasMessageContaining(dates)
                .hasMessageContaining("use e.g. " + instead)
                .hasMessageContaining("-c scheduleTime=")
                .hasMessageNotContainingAny("SCHEDULE_")
                .satisfies(e -> assertThat(((InvalidContext) e).key()).isEqualTo(StackConfig.SCHEDULE_TIME));
    }

    @ParameterizedTest(name = "{0} {1}")
    @CsvSource(delimiter = '|', value = {
            "UTC|02:00", "UTC|01:30", "UTC|00:00", "UTC|23:59",
            "America/New_York|03:00", "America/New_York|01:59",
            // Fall-back overlap (01:00-01:59 happen twice on the first Sunday of November): exists, Scheduler runs it once.
            "America/New_York|01:30",
            "Europe/London|02:30", "Europe/London|00:59",
            "Asia/Kolkata|02:00", "Asia/Kolkata|02:30",
            "Australia/Lord_Howe|02:30", "Australia/Lord_Howe|01:45",
    })
    void aScheduleTimeThatExistsEveryDayIsAccepted(String zone, String time) {
        Map<String, Object> context = Map.of(StackConfig.SCHEDULE_TIME_ZONE, zone, StackConfig.SCHEDULE_TIME, time);
        StackConfig config = StackConfig.fromContext(context::get, SYNTH_CLOCK);
        assertThat(config.window().zone()).isEqualTo(ZoneId.of(zone));
        assertThat(config.window().localTime()).isEqualTo(LocalTime.parse(time));
    }

    /** The check walks the zone's rules, so a date decades after synthesis is as covered as next March. */
    @Test
    void theDaylightSavingCheckCoversEveryFutureYearByTheZonesRules() {
        Instant from = SYNTH_CLOCK.instant();
        // Exhaustive reference: every date of the next 30 years, looked up directly.
        for (String id : List.of("America/New_York", "Europe/London", "Australia/Lord_Howe", "America/Havana", "Asia/Kolkata", "UTC")) {
            ZoneId zone = ZoneId.of(id);
            for (LocalTime time = LocalTime.of(0, 0); ; time = time.plusMinutes(15)) {
                boolean missingSomeDay = false;
                LocalDate start = LocalDate.ofInstant(from, zone).plusDays(1);
                for (LocalDate date = start; date.isBefore(start.plusYears(30)) && !missingSomeDay; date = date.plusDays(1)) {
                    missingSomeDay = zone.getRules().getValidOffsets(date.atTime(time)).isEmpty();
                }
                assertThat(DaylightSavingGaps.existsEveryDay(zone, time, from)).as("%s %s", id, time).isEqualTo(!missingSomeDay);
                if (time.equals(LocalTime.of(23, 45))) {
                    break;
                }
            }
        }
    }

    @Test
    void theDefaultScheduleTimeExistsEveryDay() {
        assertThat(StackConfig.fromContext(key -> null, SYNTH_CLOCK).window()).isEqualTo(WindowConfig.defaults().withDryRun(true));
        // The stack tests' context (SynthesizedStack): Europe/London at 02:30, after that zone's 01:00-02:00 gap.
        Map<String, Object> stackTests = Map.of(StackConfig.SCHEDULE_TIME_ZONE, "Europe/London", StackConfig.SCHEDULE_TIME, "02:30");
        assertThat(StackConfig.fromContext(stackTests::get, SYNTH_CLOCK).window().localTime()).isEqualTo(LocalTime.of(2, 30));
    }
}
