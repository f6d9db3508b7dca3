package com.payments.reconciler.workflow;

import com.payments.reconciler.testing.NoAwsClients;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.time.Clock;
import java.time.Duration;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The provider's key retention: one definition of its default, its accepted form and its environment variable. */
class ProviderKeyRetentionTest {

    @ParameterizedTest(name = "{0} → {1}")
    @CsvSource(delimiter = '|', textBlock = """
            PT24H      | PT24H
            P1D        | PT24H
            PT30M      | PT30M
            PT0.001S   | PT0.001S
            P366D      | PT8784H
            ' PT24H '  | PT24H
            """)
    void acceptsAPositiveIsoDurationUpTo366Days(String text, String expected) {
        assertThat(ProviderKeyRetention.parse(text).retention()).isEqualTo(Duration.parse(expected));
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', textBlock = """
            24h
            PT0S
            PT-1H
            P366DT0.001S
            P400D
            ''
            forever
            """)
    void refusesAnythingElseSayingTheAcceptedFormAndTheValue(String text) {
        assertThatThrownBy(() -> ProviderKeyRetention.parse(text)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining(ProviderKeyRetention.ACCEPTED_FORM).hasMessageContaining("'" + text + "'");
    }

    @Test
    void noDurationIsRefusedLikeABadOne() {
        assertThatThrownBy(() -> new ProviderKeyRetention(null)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining(ProviderKeyRetention.ACCEPTED_FORM);
    }

    @Test
    void theEnvironmentCarriesItAndItsAbsenceIsTheDefault() {
        ProviderKeyRetention twelve = new ProviderKeyRetention(Duration.ofHours(12));

        assertThat(ProviderKeyRetention.fromEnvironment(env(twelve.environment()))).isEqualTo(twelve);
        assertThat(ProviderKeyRetention.fromEnvironment(env(Map.of()))).isEqualTo(ProviderKeyRetention.DEFAULT);
        assertThat(ProviderKeyRetention.DEFAULT.retention()).isEqualTo(Duration.ofHours(24));
        assertThatThrownBy(() -> ProviderKeyRetention.fromEnvironment(env(Map.of(EnvVars.PROVIDER_KEY_RETENTION, "PT0S"))))
                .isInstanceOf(IllegalStateException.class).hasMessageContaining(EnvVars.PROVIDER_KEY_RETENTION);
    }

    private static HandlerEnvironment env(Map<String, String> variables) {
        return new HandlerEnvironment(variables, new NoAwsClients("ProviderKeyRetention"), Clock.systemUTC());
    }
}
