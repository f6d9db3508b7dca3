package com.payments.reconciler.workflow;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/** What a quarantined command keeps of a provider's answer, and what a log line may quote of it: never a card number. */
class ProviderContractViolationTest {

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', textBlock = """
            plain 16 digits                 | {"pan":"4111111111111111"}
            grouped by spaces               | card 4111 1111 1111 1111 declined
            grouped by dashes               | 5500-0000-0000-0004
            nineteen digits                 | 6011000990139424123
            twelve digits                   | ref 123456789012 end
            """)
    void aCardNumberInTheAnswerIsMaskedWhereverItIsKept(String scenario, String body) {
        ProviderContractViolation violation = ProviderContractViolation.ofCommand(
                "provider answered 200 for release-hold:a-1: field status is '" + ProviderContractViolation.quote(body) + "'", 200, body);

        assertThat(violation.answer()).as(scenario).contains("[digits masked]").doesNotContainPattern("\\d{12}")
                .doesNotContainPattern("\\d{4}[ -]\\d{4}[ -]\\d{4}");
        assertThat(violation.getMessage()).as(scenario).doesNotContainPattern("\\d{12}").doesNotContainPattern("\\d{4}[ -]\\d{4}[ -]\\d{4}");
    }

    @Test
    void shortNumbersAndIdsAreKeptAsTheyAre() {
        assertThat(ProviderContractViolation.ofCommand("m", 404, "{\"error\":\"NOT_FOUND\",\"code\":40400,\"ref\":\"PRV-00001234\"}").answer())
                .contains("40400", "PRV-00001234").doesNotContain("masked");
    }

    @Test
    void aQuotedValueAndTheBodyAreBounded() {
        String huge = "x".repeat(100_000);
        assertThat(ProviderContractViolation.quote(huge)).hasSizeLessThanOrEqualTo(ProviderContractViolation.QUOTE_LIMIT + 1);
        assertThat(ProviderContractViolation.ofCommand("m", 200, huge).answer()).hasSizeLessThan(ProviderContractViolation.EXCERPT_LIMIT + 100);
        assertThat(ProviderContractViolation.quote("a\nb\u0000c")).isEqualTo("a b c");
    }
}
