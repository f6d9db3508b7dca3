package com.payments.reconciler.delivery;

import com.payments.reconciler.workflow.ProviderContractViolation;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Stripe's answers, table by table, in the shapes of Stripe's OpenAPI specification (stripe/openapi: the
 * {@code payment_intent} resource of fixtures3.json, trimmed to the fields that matter here, and the {@code error}
 * envelope {@code {"error": {"type", "code", "message", "payment_intent"?}}}). Each row is an answer and what the
 * adapter makes of it; the rows that must be refused (another PaymentIntent, a 200 that did not cancel, an idempotency
 * error, a state the cancel cannot meet) are the known-bad inputs, each shown to end outside the contract.
 */
class StripeAnswersTest {

    private static final String PI = "pi_1PgafyB7WZ01zgkWSjxsAJo3";
    private static final String OP = "release-hold:auth-1";
    private static final Instant NOW = Instant.parse("2026-12-06T02:00:00Z");

    /** A PaymentIntent as Stripe's fixture shapes it. */
    static String intent(String id, String status, String cancellationReason, Long canceledAt) {
        return """
                {"id":"%s","object":"payment_intent","amount":1099,"amount_capturable":%d,"amount_received":0,\
                "canceled_at":%s,"cancellation_reason":%s,"capture_method":"manual","created":1234567890,\
                "currency":"eur","livemode":false,"metadata":{},"payment_method_types":["card"],"status":"%s"}"""
                .formatted(id, status.equals("requires_capture") ? 1099 : 0, canceledAt == null ? "null" : canceledAt.toString(),
                        cancellationReason == null ? "null" : "\"" + cancellationReason + "\"", status);
    }

    static String error(String type, String code, String paymentIntent) {
        return """
                {"error":{"type":"%s"%s,"message":"You cannot cancel this PaymentIntent because it has a status of ...",\
                "doc_url":"https://stripe.com/docs/error-codes"%s}}"""
                .formatted(type, code == null ? "" : ",\"code\":\"" + code + "\"", paymentIntent == null ? "" : ",\"payment_intent\":" + paymentIntent);
    }

    record Row(String name, int status, String body, String retryAfter, ProviderResult expected) {
        @Override
        public String toString() {
            return name;
        }
    }

    static List<Row> cancelAnswers() {
        return List.of(
                new Row("200 canceled: released, the PaymentIntent its reference", 200, intent(PI, "canceled", "abandoned", 1765000000L), null,
                        new ProviderResult.Released(PI)),
                new Row("400 unexpected state, already canceled: released", 400,
                        error("invalid_request_error", "payment_intent_unexpected_state", intent(PI, "canceled", "automatic", 1765000000L)), null,
                        new ProviderResult.Released(PI)),
                new Row("400 unexpected state, succeeded (captured): rejected HOLD_CAPTURED", 400,
                        error("invalid_request_error", "payment_intent_unexpected_state", intent(PI, "succeeded", null, null)), null,
                        new ProviderResult.Rejected(ForgottenKeys.CODE_CAPTURED,
                                "Stripe: PaymentIntent " + PI + " was captured (status succeeded): there is nothing left to release")),
                new Row("429 with Retry-After: throttled for that long", 429, error("invalid_request_error", "rate_limit", null), "2",
                        new ProviderResult.Throttled(429, Optional.of(Duration.ofSeconds(2)))),
                new Row("429 without Retry-After: throttled, the pacing's own wait", 429, error("invalid_request_error", "lock_timeout", null), null,
                        new ProviderResult.Throttled(429, Optional.empty())),
                new Row("409 same key in flight: unavailable", 409, error("idempotency_error", null, null), null,
                        new ProviderResult.Unavailable("Stripe answered 409")),
                new Row("500 api_error: unavailable", 500, error("api_error", null, null), null, new ProviderResult.Unavailable("Stripe answered 500")),
                new Row("503 HTML page: unavailable", 503, "<html>", null, new ProviderResult.Unavailable("Stripe answered 503")));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("cancelAnswers")
    void cancelAnswersMeanWhatTheTableSays(Row row) {
        assertThat(StripeAnswers.cancel(PI, OP, row.status(), row.body(), Optional.ofNullable(row.retryAfter()), NOW)).isEqualTo(row.expected());
    }

    record Refused(String name, int status, String body, String field) {
        @Override
        public String toString() {
            return name;
        }
    }

    static List<Refused> answersOutsideTheContract() {
        return List.of(
                new Refused("200 for another PaymentIntent", 200, intent("pi_other", "canceled", "abandoned", 1L), "field id is 'pi_other'"),
                new Refused("200 still requires_capture", 200, intent(PI, "requires_capture", null, null), "field status is 'requires_capture'"),
                new Refused("200 not a PaymentIntent", 200, "{\"id\":\"" + PI + "\",\"object\":\"charge\",\"status\":\"canceled\"}", "field object is 'charge'"),
                new Refused("200 not JSON", 200, "<html>ok</html>", "not a JSON object"),
                new Refused("400 idempotency_error: the key was used with other parameters", 400, error("idempotency_error", null, null),
                        "different request under this Idempotency-Key"),
                new Refused("400 unexpected state without the PaymentIntent", 400,
                        error("invalid_request_error", "payment_intent_unexpected_state", null), "field error.payment_intent is required"),
                new Refused("400 unexpected state of another PaymentIntent", 400,
                        error("invalid_request_error", "payment_intent_unexpected_state", intent("pi_other", "canceled", null, null)),
                        "field error.payment_intent.id is 'pi_other'"),
                new Refused("400 unexpected state processing", 400,
                        error("invalid_request_error", "payment_intent_unexpected_state", intent(PI, "processing", null, null)),
                        "field error.payment_intent.status is 'processing'"),
                new Refused("400 parameter_invalid_empty", 400, error("invalid_request_error", "parameter_invalid_empty", null),
                        "error.code 'parameter_invalid_empty'"),
                new Refused("402 card_error", 402, error("card_error", "card_declined", null), "error.type 'card_error'"),
                new Refused("403 without an error object", 403, "{\"message\":\"forbidden\"}", "field error is required"),
                // Not "the hold does not exist": a test key against live holds, or another account's key, answers the same.
                new Refused("404 resource_missing", 404, error("invalid_request_error", "resource_missing", null),
                        "a key of the other mode (test or live) or of another account"));
    }

    /** The command's hold as the adapter expects it back: 1099 EUR (the fixture's amount), a test-mode key. */
    private static final StripeAnswers.Expected HOLD = new StripeAnswers.Expected(PI, OP, Optional.of(1099L), Optional.of("EUR"),
            Optional.of(false));

    /** A cancelled PaymentIntent's amount, currency and mode against the command's; one row each way. */
    record Checked(String name, int status, String body, String shouldRetry, String expected) {
        @Override
        public String toString() {
            return name;
        }
    }

    static List<Checked> checkedAnswers() {
        String canceled = intent(PI, "canceled", "abandoned", 1765000000L);
        return List.of(
                new Checked("200 canceled, the command's amount and currency (eur for EUR)", 200, canceled, null, "Released"),
                new Checked("200 canceled, another amount", 200, canceled.replace("\"amount\":1099", "\"amount\":5000"), null,
                        "Quarantined: field amount is 5000"),
                new Checked("200 canceled, another currency", 200, canceled.replace("\"eur\"", "\"usd\""), null,
                        "Quarantined: field currency is 'usd'"),
                new Checked("200 canceled, live mode for a test key", 200, canceled.replace("\"livemode\":false", "\"livemode\":true"), null,
                        "Quarantined: field livemode is true"),
                new Checked("400 already canceled, another amount", 400, error("invalid_request_error", "payment_intent_unexpected_state",
                        canceled.replace("\"amount\":1099", "\"amount\":5000")), null, "Quarantined: field error.payment_intent.amount is 5000"),
                new Checked("200 canceled, no amount or currency (the local fake)", 200,
                        canceled.replace("\"amount\":1099,", "").replace("\"currency\":\"eur\",", ""), null, "Released"),
                new Checked("400 lock_timeout with Stripe-Should-Retry: true", 400, error("invalid_request_error", "lock_timeout", null), "true",
                        "Unavailable"),
                new Checked("400 lock_timeout with Stripe-Should-Retry: false", 400, error("invalid_request_error", "lock_timeout", null), "false",
                        "Quarantined: outside the adapter's contract"),
                new Checked("400 idempotency_error with Stripe-Should-Retry: true", 400, error("idempotency_error", null, null), "true",
                        "Quarantined: different request under this Idempotency-Key"));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("checkedAnswers")
    void aCancelledPaymentIntentMustBeTheCommandsHold(Checked row) {
        assertThat(outcome(HOLD, row)).isEqualTo(row.expected());
    }

    /** Known-bad twin: the check by id alone (before the fix) releases the other amount, currency and mode. */
    @Test
    void theIdAloneReleasesAnotherHold() {
        StripeAnswers.Expected idOnly = StripeAnswers.Expected.only(PI, OP);
        List<String> released = checkedAnswers().stream().filter(row -> outcome(idOnly, row).equals("Released")).map(Checked::name).toList();
        assertThat(released).contains("200 canceled, another amount", "200 canceled, another currency",
                "200 canceled, live mode for a test key", "400 already canceled, another amount");
    }

    private static String outcome(StripeAnswers.Expected expected, Checked row) {
        try {
            ProviderResult result = StripeAnswers.cancel(expected, row.status(), row.body(), Optional.empty(),
                    Optional.ofNullable(row.shouldRetry()), NOW);
            return result.getClass().getSimpleName();
        } catch (ProviderContractViolation v) {
            String message = v.getMessage();
            for (String part : List.of("field amount is 5000", "field currency is 'usd'", "field livemode is true",
                    "field error.payment_intent.amount is 5000", "outside the adapter's contract", "different request under this Idempotency-Key")) {
                if (message.contains(part)) {
                    return "Quarantined: " + part;
                }
            }
            return "Quarantined: " + message;
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("answersOutsideTheContract")
    void answersOutsideTheContractQuarantineTheCommand(Refused row) {
        assertThatThrownBy(() -> StripeAnswers.cancel(PI, OP, row.status(), row.body(), Optional.empty(), NOW))
                .isInstanceOfSatisfying(ProviderContractViolation.class, v -> {
                    assertThat(v.aboutTheCommand()).isTrue();
                    assertThat(v.answer()).contains("[status " + row.status());
                })
                .hasMessageContaining(row.field())
                .hasMessageContaining(OP)
                .hasMessageNotContaining("You cannot cancel");
    }

    @Test
    void lookupTranslatesStripeStatesIntoTheContractsHoldStates() {
        assertThat(StripeAnswers.lookup(PI, OP, 200, intent(PI, "canceled", "abandoned", 1L), Optional.empty(), NOW))
                .isEqualTo(new HoldLookup.Answered(Optional.of(ForgottenKeys.RELEASED), Optional.of(PI), 200, intent(PI, "canceled", "abandoned", 1L)));
        assertThat(((HoldLookup.Answered) StripeAnswers.lookup(PI, OP, 200, intent(PI, "requires_capture", null, null), Optional.empty(), NOW))
                .status()).contains(ForgottenKeys.ACTIVE);
        assertThat(((HoldLookup.Answered) StripeAnswers.lookup(PI, OP, 200, intent(PI, "succeeded", null, null), Optional.empty(), NOW))
                .status()).contains(ForgottenKeys.CAPTURED);
        // Known-bad: a state the contract has no word for passes through, and ForgottenKeys finds it outside the contract.
        HoldLookup processing = StripeAnswers.lookup(PI, OP, 200, intent(PI, "processing", null, null), Optional.empty(), NOW);
        assertThat(ForgottenKeys.afterLookup(processing, OP)).isInstanceOf(ForgottenKeys.Step.OutsideContract.class);
        assertThat(StripeAnswers.lookup(PI, OP, 404, error("invalid_request_error", "resource_missing", null), Optional.empty(), NOW))
                .isInstanceOf(HoldLookup.NotOffered.class);
        assertThat(StripeAnswers.lookup(PI, OP, 429, error("invalid_request_error", "rate_limit", null), Optional.of("1"), NOW))
                .isEqualTo(new HoldLookup.NoAnswer(new ProviderResult.Throttled(429, Optional.of(Duration.ofSeconds(1)))));
        assertThat(StripeAnswers.lookup(PI, OP, 502, "", Optional.empty(), NOW))
                .isEqualTo(new HoldLookup.NoAnswer(new ProviderResult.Unavailable("Stripe answered 502")));
        assertThatThrownBy(() -> StripeAnswers.lookup(PI, OP, 200, intent("pi_other", "canceled", null, null), Optional.empty(), NOW))
                .isInstanceOf(ProviderContractViolation.class).hasMessageContaining("field id is 'pi_other'");
    }

    @Test
    void aCancellationIsOursOnlyWithOurReasonAndNotBeforeOurFirstAttempt() {
        Instant first = Instant.parse("2026-12-06T02:00:00.400Z");
        assertThat(StripeAnswers.cancelledByUs(Optional.of("abandoned"), Optional.of(Instant.parse("2026-12-06T02:00:00Z")), Optional.of(first))).isTrue();
        assertThat(StripeAnswers.cancelledByUs(Optional.of("automatic"), Optional.of(Instant.parse("2026-12-06T02:00:01Z")), Optional.of(first))).isFalse();
        assertThat(StripeAnswers.cancelledByUs(Optional.of("abandoned"), Optional.of(Instant.parse("2026-12-05T02:00:00Z")), Optional.of(first))).isFalse();
        assertThat(StripeAnswers.cancelledByUs(Optional.empty(), Optional.empty(), Optional.empty())).isFalse();
    }
}
