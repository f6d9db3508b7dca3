package com.payments.reconciler.delivery;

import com.payments.reconciler.workflow.ProviderContractViolation;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Every answer to Adyen's cancel, as a table: status and body in, what the command becomes out. The bodies follow the
 * Checkout API v71 specification (PaymentCancelResponse, ServiceError). The known-bad proof: a mapping that takes any
 * 2xx as acknowledged, or a 422 as retryable, fails rows of this table ({@link #aMappingThatTrustsAny2xxFailsTheTable}).
 */
class AdyenCancelAnswersTest {

    private static final String OPERATION = "release-hold:auth-1";
    private static final String PAYMENT = "993617894903480A";
    private static final String MERCHANT = "TestMerchant";
    private static final String RECEIVED = """
            {"merchantAccount":"TestMerchant","paymentPspReference":"993617894903480A","reference":"release-hold:auth-1",
             "pspReference":"993617894906488A","status":"received"}""";

    /** One row: the answer and what it must mean ({@code Acknowledged(ref)}, {@code Throttled(s)}, {@code Unavailable}, {@code Quarantined}). */
    private record Row(String name, int status, String body, Optional<Duration> retryAfter, boolean transientError, String expected) {
        Row(String name, int status, String body, String expected) {
            this(name, status, body, Optional.empty(), false, expected);
        }

        Row(String name, int status, String body, Optional<Duration> retryAfter, String expected) {
            this(name, status, body, retryAfter, false, expected);
        }

        /** An answer carrying {@code Transient-Error: true}. */
        static Row transientError(String name, int status, String body, String expected) {
            return new Row(name, status, body, Optional.empty(), true, expected);
        }
    }

    private static final String NO_CONNECTION = """
            {"status":500,"errorCode":"905","message":"NO_CONNECTION_AVAILABLE","errorType":"internal"}""";

    static final List<Row> TABLE = List.of(
            new Row("201 received", 201, RECEIVED, "Acknowledged(993617894906488A)"),
            new Row("201 for another payment", 201, RECEIVED.replace("\"993617894903480A\"", "\"OTHERPAYMENT0000\""), "Quarantined"),
            new Row("201 for another merchant account", 201, RECEIVED.replace("\"TestMerchant\"", "\"Other\""), "Quarantined"),
            new Row("201 without the cancel's pspReference", 201, RECEIVED.replace("\"pspReference\":\"993617894906488A\",", ""), "Quarantined"),
            new Row("201 with another status", 201, RECEIVED.replace("\"received\"", "\"cancelled\""), "Quarantined"),
            new Row("201 not JSON", 201, "<html>ok</html>", "Quarantined"),
            new Row("200 (not the documented 201)", 200, RECEIVED, "Quarantined"),
            new Row("422 validation error", 422, """
                    {"status":422,"errorCode":"167","message":"Original pspReference required for this operation","errorType":"validation"}""",
                    "Quarantined"),
            new Row("400 bad request", 400, """
                    {"status":400,"errorCode":"702","message":"bad","errorType":"validation"}""", "Quarantined"),
            new Row("403 forbidden", 403, """
                    {"status":403,"errorCode":"010","message":"Not allowed","errorType":"security"}""", "Quarantined"),
            new Row("404", 404, "", "Quarantined"),
            new Row("429 with Retry-After", 429, "", Optional.of(Duration.ofSeconds(2)), "Throttled(429, PT2S)"),
            new Row("429 without Retry-After", 429, "", "Throttled(429, none)"),
            new Row("503 with Retry-After", 503, "", Optional.of(Duration.ofSeconds(1)), "Throttled(503, PT1S)"),
            new Row("503", 503, "", "Unavailable"),
            // Adyen's own 5xx without Transient-Error (CheckoutService-v71, IOEXCEPTION_RECEIVED): stored under the key as its
            // final result, the cancel possibly acted upon: the outcome is awaited (the notification, or the timeout's escalation).
            new Row("500 internal error (stored under the key)", 500, """
                    {"status":500,"errorCode":"905","message":"x","errorType":"configuration"}""", "Acknowledged(stored-error-500)"),
            new Row("500 IOEXCEPTION_RECEIVED (stored under the key)", 500, """
                    {"status":500,"errorCode":"000","message":"IOEXCEPTION_RECEIVED","errorType":"internal"}""", "Acknowledged(stored-error-500)"),
            new Row("502 with Adyen's ServiceError (stored under the key)", 502, """
                    {"status":502,"errorCode":"000","message":"x","errorType":"internal"}""", "Acknowledged(stored-error-502)"),
            new Row("503 with Adyen's ServiceError and Retry-After", 503, NO_CONNECTION.replace("500", "503"), Optional.of(Duration.ofSeconds(1)),
                    "Throttled(503, PT1S)"),
            new Row("500 naming only errorType (stored under the key)", 500, """
                    {"status":500,"message":"x","errorType":"internal"}""", "Acknowledged(stored-error-500)"),
            new Row("500 naming only errorCode (stored under the key)", 500, """
                    {"status":500,"errorCode":"000","message":"x"}""", "Acknowledged(stored-error-500)"),
            new Row("500 with a gateway's HTML page", 500, "<html>Internal Server Error</html>", "Unavailable"),
            new Row("500 with JSON that is not a ServiceError", 500, "{\"error\":\"x\"}", "Unavailable"),
            new Row("502", 502, "", "Unavailable"),
            new Row("504", 504, "", "Unavailable"),
            new Row("599", 599, "", "Unavailable"),
            new Row("408", 408, "", "Unavailable"),
            // Transient-Error: true (CheckoutService-v71, NO_CONNECTION_AVAILABLE): nothing reached the issuer, the same key
            // is processed as new: retried, whatever the status; 429 stays throttled; a 201 is read as ever.
            Row.transientError("422 with Transient-Error: true", 422, """
                    {"status":422,"errorCode":"167","message":"x","errorType":"validation"}""", "Unavailable"),
            Row.transientError("400 with Transient-Error: true", 400, NO_CONNECTION, "Unavailable"),
            Row.transientError("500 with Transient-Error: true", 500, NO_CONNECTION, "Unavailable"),
            Row.transientError("429 with Transient-Error: true", 429, "", "Throttled(429, none)"),
            Row.transientError("201 received with Transient-Error: true", 201, RECEIVED, "Acknowledged(993617894906488A)"));

    @Test
    void everyAnswerMeansWhatTheTableSays() {
        assertThat(mismatches((Mapping) AdyenCancelAnswersTest::interpret)).isEmpty();
    }

    @Test
    void aMappingThatTrustsAny2xxFailsTheTable() {
        Mapping.Plain trusting = (status, body, retryAfter) -> status / 100 == 2
                ? new ProviderResult.Acknowledged("anything") : interpret(status, body, retryAfter);
        assertThat(mismatches(trusting)).isNotEmpty();
        Mapping.Plain retrying422 = (status, body, retryAfter) -> status == 422
                ? new ProviderResult.Unavailable("422") : interpret(status, body, retryAfter);
        assertThat(mismatches(retrying422)).containsExactly("422 validation error: expected Quarantined, was Unavailable");
    }

    @Test
    void aQuarantinedAnswerNamesAdyensErrorCodeButNeverQuotesTheBody() {
        try {
            interpret(422, "{\"errorCode\":\"167\",\"message\":\"4111 1111 1111 1111\"}", Optional.empty());
        } catch (ProviderContractViolation e) {
            assertThat(e.getMessage()).contains("errorCode 167").doesNotContain("4111");
            assertThat(e.answer()).doesNotContain("4111 1111 1111 1111");
            return;
        }
        throw new AssertionError("a 422 must be outside the contract");
    }

    @Test
    void aMappingThatIgnoresTransientErrorFailsTheTable() {
        Mapping ignoring = (status, body, retryAfter, transientError) -> interpret(status, body, retryAfter, false);
        assertThat(mismatches(ignoring)).containsExactly(
                "422 with Transient-Error: true: expected Unavailable, was Quarantined",
                "400 with Transient-Error: true: expected Unavailable, was Quarantined",
                // Without the header, Adyen's 500 would be taken as stored under the key: the outcome awaited, never sent again.
                "500 with Transient-Error: true: expected Unavailable, was Acknowledged(stored-error-500)");
    }

    /**
     * The known-bad twin of the stored-error rows: a mapping that sends every 5xx again under the same key (the adapter
     * before) would replay Adyen's stored error night after night, the command never leaving PENDING and no person told.
     */
    @Test
    void aMappingThatRetriesAStoredErrorUnderTheSameKeyFailsTheTable() {
        Mapping sameKey = (status, body, retryAfter, transientError) -> status >= 500 && status <= 599 && !transientError
                && !(status == 503 && retryAfter.isPresent())
                ? new ProviderResult.Unavailable("retried") : interpret(status, body, retryAfter, transientError);
        assertThat(mismatches(sameKey)).containsExactly(
                "500 internal error (stored under the key): expected Acknowledged(stored-error-500), was Unavailable",
                "500 IOEXCEPTION_RECEIVED (stored under the key): expected Acknowledged(stored-error-500), was Unavailable",
                "502 with Adyen's ServiceError (stored under the key): expected Acknowledged(stored-error-502), was Unavailable",
                "500 naming only errorType (stored under the key): expected Acknowledged(stored-error-500), was Unavailable",
                "500 naming only errorCode (stored under the key): expected Acknowledged(stored-error-500), was Unavailable");
        // And one that takes any 5xx body as stored would leave a gateway's error (nothing stored) waiting for a notification.
        Mapping anyBody = (status, body, retryAfter, transientError) -> status >= 500 && status <= 599 && !transientError
                && !(status == 503 && retryAfter.isPresent())
                ? ProviderResult.Acknowledged.ofStoredError(status + " errorCode none") : interpret(status, body, retryAfter, transientError);
        assertThat(mismatches(anyBody)).contains("500 with a gateway's HTML page: expected Unavailable, was Acknowledged(stored-error-500)",
                "502: expected Unavailable, was Acknowledged(stored-error-502)");
    }

    @Test
    void theHeaderIsReadAsAnHttpBoolean() {
        assertThat(AdyenCancelAnswers.transientError(Optional.of("true"))).isTrue();
        assertThat(AdyenCancelAnswers.transientError(Optional.of(" TRUE "))).isTrue();
        assertThat(AdyenCancelAnswers.transientError(Optional.of("false"))).isFalse();
        assertThat(AdyenCancelAnswers.transientError(Optional.empty())).isFalse();
    }

    private interface Mapping {
        ProviderResult apply(int status, String body, Optional<Duration> retryAfter, boolean transientError);

        /** A mapping that never reads the header (the older tests' form). */
        interface Plain extends Mapping {
            ProviderResult apply(int status, String body, Optional<Duration> retryAfter);

            @Override
            default ProviderResult apply(int status, String body, Optional<Duration> retryAfter, boolean transientError) {
                return transientError ? interpret(status, body, retryAfter, true) : apply(status, body, retryAfter);
            }
        }
    }

    private static ProviderResult interpret(int status, String body, Optional<Duration> retryAfter) {
        return AdyenCancelAnswers.interpret(OPERATION, PAYMENT, MERCHANT, status, body, retryAfter);
    }

    private static ProviderResult interpret(int status, String body, Optional<Duration> retryAfter, boolean transientError) {
        return AdyenCancelAnswers.interpret(OPERATION, PAYMENT, MERCHANT, status, body, retryAfter, transientError);
    }

    private static List<String> mismatches(Mapping mapping) {
        List<String> out = new ArrayList<>();
        for (Row row : TABLE) {
            String actual;
            try {
                actual = describe(mapping.apply(row.status(), row.body(), row.retryAfter(), row.transientError()));
            } catch (ProviderContractViolation e) {
                actual = e.aboutTheCommand() ? "Quarantined" : "Stopped";
            }
            if (!actual.equals(row.expected())) {
                out.add(row.name() + ": expected " + row.expected() + ", was " + actual);
            }
        }
        return out;
    }

    private static String describe(ProviderResult result) {
        return switch (result) {
            case ProviderResult.Acknowledged a -> "Acknowledged(" + a.namedRequest()
                    .orElseGet(() -> "stored-error-" + a.storedError().split(" ")[0]) + ")";
            case ProviderResult.Released r -> "Released(" + r.providerReference() + ")";
            case ProviderResult.Rejected r -> "Rejected(" + r.code() + ")";
            case ProviderResult.Throttled t -> "Throttled(" + t.status() + ", " + t.retryAfter().map(Duration::toString).orElse("none") + ")";
            case ProviderResult.Unavailable u -> "Unavailable";
        };
    }
}
