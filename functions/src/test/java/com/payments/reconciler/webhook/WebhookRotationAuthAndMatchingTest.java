package com.payments.reconciler.webhook;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.payments.reconciler.workflow.EmfMetrics;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Optional;
import java.util.function.Supplier;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The receiver's three checks besides the signature itself, each as a table of requests and answers, each with its
 * known-bad twin:
 * <ul>
 *   <li>HMAC key rotation: the secret's {@code previousHmacKey} is accepted beside {@code hmacKey}; a third key is not.
 *       Twin: a secret read without the previous key refuses every notification Adyen still signs with it.</li>
 *   <li>Basic auth on the function URL: refused (401, nothing queued) without the secret's credentials. Twin: a handler
 *       that admits any request queues the outcome of an unauthenticated one.</li>
 *   <li>Matching: an outcome for another merchant account is refused (422, nothing queued); the payment
 *       ({@code originalReference}) travels as {@code paymentReference} for ingestion's condition. Twin: a reader that
 *       looks at merchantReference only queues the foreign merchant account's outcome.</li>
 * </ul>
 */
class WebhookRotationAuthAndMatchingTest {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String CURRENT = "44782DEF547AAA06C910C43932B1EB0C71FC68D9D0C057550C48EC2ACF6BA056";
    private static final String PREVIOUS = "00112233445566778899AABBCCDDEEFF00112233445566778899AABBCCDDEEFF";
    private static final String STRANGER = "0000000000000000000000000000000000000000000000000000000000000001";
    private static final String MERCHANT = "TestMerchant";
    private static final String SECRET = """
            {"hmacKey":"%s","previousHmacKey":"%s","basicAuthUsername":"adyen-webhook","basicAuthPassword":"s3cret-pass"}"""
            .formatted(CURRENT, PREVIOUS);
    private static final Clock CLOCK = Clock.fixed(Instant.parse("2026-12-06T03:00:00Z"), ZoneOffset.UTC);

    private final List<String> queue = new ArrayList<>();

    static String notification(String key, String merchantAccount, String originalReference) {
        ObjectNode item = JSON.createObjectNode()
                .put("eventCode", "CANCELLATION").put("success", "true")
                .put("eventDate", "2026-12-06T03:00:00+01:00").put("merchantAccountCode", merchantAccount)
                .put("merchantReference", "release-hold:auth-1").put("originalReference", originalReference)
                .put("pspReference", "8815658961765255").put("reason", "");
        item.putObject("amount").put("value", 1250).put("currency", "EUR");
        item.putObject("additionalData").put("hmacSignature", new AdyenSignature(key).sign(item));
        ObjectNode root = JSON.createObjectNode().put("live", "false");
        root.putArray("notificationItems").addObject().set("NotificationRequestItem", item);
        return root.toString();
    }

    static String basic(String user, String password) {
        return "Basic " + Base64.getEncoder().encodeToString((user + ":" + password).getBytes(StandardCharsets.UTF_8));
    }

    static String urlEvent(Optional<String> authorization, String body) {
        ObjectNode event = JSON.createObjectNode();
        event.putObject("requestContext").putObject("http").put("method", "POST");
        ObjectNode headers = event.putObject("headers").put("content-type", "application/json");
        authorization.ifPresent(a -> headers.put("authorization", a));
        event.put("body", body).put("isBase64Encoded", false);
        return event.toString();
    }

    private record Row(String name, Optional<String> authorization, String body, int status, int queued) {
    }

    private static final Optional<String> GOOD = Optional.of(basic("adyen-webhook", "s3cret-pass"));

    static final List<Row> TABLE = List.of(
            new Row("current key, credentials", GOOD, notification(CURRENT, MERCHANT, "PAYMENTPSP000001"), 200, 1),
            new Row("previous key during the rotation", GOOD, notification(PREVIOUS, MERCHANT, "PAYMENTPSP000001"), 200, 1),
            new Row("a third key", GOOD, notification(STRANGER, MERCHANT, "PAYMENTPSP000001"), 401, 0),
            new Row("no Authorization header", Optional.empty(), notification(CURRENT, MERCHANT, "PAYMENTPSP000001"), 401, 0),
            new Row("a wrong password", Optional.of(basic("adyen-webhook", "s3cret-pasS")), notification(CURRENT, MERCHANT, "PAYMENTPSP000001"), 401, 0),
            new Row("a wrong username", Optional.of(basic("adyen", "s3cret-pass")), notification(CURRENT, MERCHANT, "PAYMENTPSP000001"), 401, 0),
            new Row("a bearer token instead", Optional.of("Bearer s3cret-pass"), notification(CURRENT, MERCHANT, "PAYMENTPSP000001"), 401, 0),
            new Row("not base64", Optional.of("Basic %%%"), notification(CURRENT, MERCHANT, "PAYMENTPSP000001"), 401, 0),
            new Row("another merchant account", GOOD, notification(CURRENT, "OtherMerchant", "PAYMENTPSP000001"), 422, 0),
            new Row("no originalReference", GOOD, notification(CURRENT, MERCHANT, ""), 422, 0));

    private List<String> mismatches(Supplier<WebhookSecret> secret) {
        return mismatches(secret, false);
    }

    private List<String> mismatches(Supplier<WebhookSecret> secret, boolean skipBasicAuth) {
        List<String> out = new ArrayList<>();
        for (Row row : TABLE) {
            queue.clear();
            AdyenWebhookReceiver receiver = new AdyenWebhookReceiver(() -> secret.get().verifier(), queue::add,
                    new EmfMetrics(CLOCK, "AdyenWebhook", line -> { }), MERCHANT);
            AdyenWebhookHandler handler = new AdyenWebhookHandler(secret, receiver);
            int status;
            try {
                status = skipBasicAuth ? receiver.receive(row.body()).status()
                        : handler.handle(urlEvent(row.authorization(), row.body())).status();
            } catch (IOException e) {
                throw new IllegalStateException(e);
            }
            if (status != row.status() || queue.size() != row.queued()) {
                out.add(row.name() + ": expected " + row.status() + "/" + row.queued() + ", was " + status + "/" + queue.size());
            }
        }
        return out;
    }

    @Test
    void everyRequestIsAnsweredAsTheTableSays() {
        WebhookSecret secret = WebhookKey.parse(SECRET);
        assertThat(mismatches(() -> secret)).isEmpty();
    }

    @Test
    void theQueuedOutcomeCarriesThePaymentForIngestionsCondition() throws IOException {
        WebhookSecret secret = WebhookKey.parse(SECRET);
        new AdyenWebhookHandler(() -> secret, new AdyenWebhookReceiver(secret::verifier, queue::add,
                new EmfMetrics(CLOCK, "AdyenWebhook", line -> { }), MERCHANT))
                .handle(urlEvent(GOOD, notification(CURRENT, MERCHANT, "PAYMENTPSP000001")));
        assertThat(JSON.readTree(queue.getFirst()).path("paymentReference").asText()).isEqualTo("PAYMENTPSP000001");
    }

    @Test
    void aSecretReadWithoutThePreviousKeyRefusesTheRotationsNotifications() {
        WebhookSecret full = WebhookKey.parse(SECRET);
        WebhookSecret currentOnly = new WebhookSecret(new AdyenSignature(CURRENT), full.basicAuth());
        assertThat(mismatches(() -> currentOnly)).containsExactly("previous key during the rotation: expected 200/1, was 401/0");
    }

    @Test
    void aHandlerThatAdmitsAnyRequestQueuesAnUnauthenticatedOutcome() {
        // The handler before basic auth: the body straight to the receiver, whatever the Authorization header.
        WebhookSecret secret = WebhookKey.parse(SECRET);
        assertThat(mismatches(() -> secret, true)).containsExactly(
                "no Authorization header: expected 401/0, was 200/1",
                "a wrong password: expected 401/0, was 200/1",
                "a wrong username: expected 401/0, was 200/1",
                "a bearer token instead: expected 401/0, was 200/1",
                "not base64: expected 401/0, was 200/1");
    }

    @Test
    void aReaderOfMerchantReferenceOnlyQueuesAForeignMerchantAccountsOutcome() throws IOException {
        com.fasterxml.jackson.databind.JsonNode item = JSON.readTree(notification(CURRENT, "OtherMerchant", "PAYMENTPSP000001"))
                .path("notificationItems").get(0).path("NotificationRequestItem");
        assertThat(ProviderOutcome.read(item, MERCHANT)).isInstanceOf(ProviderOutcome.Reading.Mismatch.class);
        // The twin: the same reading with the account check taken out (the account it expects = the one sent).
        assertThat(ProviderOutcome.read(item, "OtherMerchant")).isInstanceOf(ProviderOutcome.Reading.Outcome.class);
    }

    @Test
    void aSecretWithoutBasicAuthCredentialsIsRefusedNamingTheField() {
        assertThatThrownBy(() -> WebhookKey.parse("{\"hmacKey\":\"" + CURRENT + "\"}"))
                .hasMessageContaining("basicAuthUsername").hasMessageNotContaining(CURRENT);
        assertThatThrownBy(() -> WebhookKey.parse("{\"hmacKey\":\"" + CURRENT + "\",\"basicAuthUsername\":\"u\"}"))
                .hasMessageContaining("basicAuthPassword");
        assertThatThrownBy(() -> WebhookKey.parse("{\"hmacKey\":\"" + CURRENT + "\",\"previousHmacKey\":\"zz\","
                + "\"basicAuthUsername\":\"u\",\"basicAuthPassword\":\"p\"}")).hasMessageContaining("hexadecimal");
    }
}
