package com.payments.reconciler.cdk;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.payments.reconciler.window.WindowConfig;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.LocalTime;
import java.time.ZoneId;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.api.Test;

/** Context → configuration: defaults, cdk.json agreeing with them, and a clear error naming the key for bad values. */
class StackConfigTest {

    @Test
    void defaultsAreNightlyTwoAmUtcAndWhatStartWindowDefaultsTo() {
        StackConfig config = StackConfig.fromContext(key -> null);
        assertThat(config.window()).isEqualTo(WindowConfig.defaults());
        assertThat(config.window().zone()).isEqualTo(ZoneId.of("UTC"));
        assertThat(config.window().localTime()).isEqualTo(LocalTime.of(2, 0));
        assertThat(config.namePrefix()).isEqualTo("reconciler-prod-");
        assertThat(config.providerSecretName()).isEqualTo("reconciler-prod-provider-api-key");
        assertThat(config.alarmEmail()).isEmpty();
        assertThat(WindowConfig.fromEnvironment(config.windowEnvironment())).isEqualTo(config.window());
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
        Map<String, Object> json = Map.of(StackConfig.SHARDS, 16, StackConfig.DRY_RUN, true, StackConfig.WINDOW_HORIZON_DAYS, 7);
        Map<String, Object> cli = Map.of(StackConfig.SHARDS, "16", StackConfig.DRY_RUN, "true", StackConfig.WINDOW_HORIZON_DAYS, "7");
        StackConfig fromJson = StackConfig.fromContext(json::get);
        assertThat(fromJson).isEqualTo(StackConfig.fromContext(cli::get));
        assertThat(fromJson.window().shards()).isEqualTo(16);
        assertThat(fromJson.window().dryRun()).isTrue();
        assertThat(fromJson.window().horizonDays()).isEqualTo(7);
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
    })
    void badValuesAreRefusedNamingTheKey(String key, String value, String form) {
        // The message names the key, the accepted form and the value given, and nothing else (no variable names).
        Map<String, Object> context = Map.of(key, value);
        assertThatThrownBy(() -> StackConfig.fromContext(context::get))
                .isInstanceOf(InvalidContext.class)
                .hasMessageStartingWith("context key '" + key + "' ")
                .hasMessageContaining(form)
                .hasMessageContaining(value)
                .hasMessageNotContainingAny("SCHEDULE_", "GRACE_PERIOD", "SHARDS", "DRY_RUN", "WINDOW_HORIZON")
                .hasMessageContaining("-c " + key + "=")
                .satisfies(e -> assertThat(((InvalidContext) e).key()).isEqualTo(key));
    }
}
