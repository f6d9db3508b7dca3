package com.payments.reconciler.delivery;

import com.sun.net.httpserver.HttpServer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A 5xx to Stripe's cancel, the reviewer's finding: Stripe stores a 5xx under the idempotency key once the endpoint started
 * executing and replays it for that key, so re-sending under the same key cannot end the command for at least 24 hours.
 * A scripted Stripe (a local HTTP server that stores each key's first answer, as Stripe does) answers the cancel with a
 * 500; the adapter looks the PaymentIntent up before deciding, and honours {@code Stripe-Should-Retry}. Table of what the
 * lookup shows and what the command becomes; the known-bad twin is the same key sent again, answered the stored 500 each
 * time ({@link #theSameKeyAloneReplaysTheStored500}).
 */
class StripeStoredServerErrorTest {

    private static final String PI = "pi_3MtwBwLkdIwHu7ix28a3tqPa";
    private static final Instant T0 = Instant.parse("2026-12-06T02:00:00Z");
    private static final Clock CLOCK = Clock.fixed(T0, ZoneOffset.UTC);

    private HttpServer server;
    /** What the scripted Stripe saw: "POST key" and "GET". */
    private final List<String> seen = new ArrayList<>();
    /** Each key's stored answer: Stripe replays it for the same key. */
    private final Map<String, int[]> stored = new HashMap<>();
    private String state;
    private int cancellations;

    @AfterEach
    void stop() {
        if (server != null) {
            server.stop(0);
        }
    }

    private static String intent(String status) {
        return "{\"id\":\"" + PI + "\",\"object\":\"payment_intent\",\"amount\":1250,\"currency\":\"eur\",\"livemode\":false,"
                + "\"status\":\"" + status + "\",\"cancellation_reason\":" + (status.equals("canceled") ? "\"abandoned\"" : "null")
                + ",\"canceled_at\":" + (status.equals("canceled") ? "1765000000" : "null") + "}";
    }

    /**
     * Starts the scripted Stripe: the first cancel under the first key is answered 500 (with {@code shouldRetry} when
     * given) and stored; the PaymentIntent is then in {@code stateAfter500}; any later new key cancels it if it still
     * requires capture.
     */
    private StripeAdapter start(String stateAfter500, Optional<String> shouldRetry) throws IOException {
        server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        server.createContext("/v1/payment_intents/", exchange -> {
            String method = exchange.getRequestMethod();
            String key = exchange.getRequestHeaders().getFirst("Idempotency-Key");
            int status;
            String body;
            if (method.equals("GET")) {
                seen.add("GET");
                status = 200;
                body = intent(state);
            } else {
                seen.add("POST " + key);
                if (stored.containsKey(key) && stored.get(key)[0] == 500) {
                    status = 500;
                    body = "{\"error\":{\"type\":\"api_error\",\"message\":\"An unknown error occurred\"}}";
                } else if (stored.isEmpty()) {
                    stored.put(key, new int[]{500});
                    state = stateAfter500;
                    status = 500;
                    body = "{\"error\":{\"type\":\"api_error\",\"message\":\"An unknown error occurred\"}}";
                } else if (state.equals("requires_capture")) {
                    state = "canceled";
                    cancellations++;
                    stored.put(key, new int[]{200});
                    status = 200;
                    body = intent(state);
                } else {
                    status = 400;
                    body = "{\"error\":{\"type\":\"invalid_request_error\",\"code\":\"payment_intent_unexpected_state\","
                            + "\"payment_intent\":" + intent(state) + "}}";
                }
                if (status == 500) {
                    shouldRetry.ifPresent(v -> exchange.getResponseHeaders().add("Stripe-Should-Retry", v));
                }
            }
            assertThat(exchange.getRequestHeaders().getFirst("Stripe-Version")).isEqualTo(StripeAdapter.STRIPE_VERSION);
            byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
            exchange.getResponseHeaders().add("Content-Type", "application/json");
            exchange.sendResponseHeaders(status, bytes.length);
            exchange.getResponseBody().write(bytes);
            exchange.close();
        });
        server.start();
        return new StripeAdapter(HttpProviderClient.httpClient(Duration.ofSeconds(5)),
                URI.create("http://127.0.0.1:" + server.getAddress().getPort()),
                ProviderCredentials.fixedKey("sk_test_0123456789abcdef"), Duration.ofSeconds(10), CLOCK, Optional.of(false));
    }

    private static PendingCommand command() {
        return new PendingCommand("release-hold:auth-1", "auth-1", 1250, "EUR", T0, T0, Optional.empty(), Optional.of(PI));
    }

    @Test
    void a500StoredUnderTheKeyWithShouldRetryFalseIsCancelledOnceUnderTheSecondKey() throws IOException {
        StripeAdapter adapter = start("requires_capture", Optional.of("false"));
        assertThat(adapter.release(command())).isEqualTo(new ProviderResult.Released(PI));
        assertThat(seen).containsExactly("POST release-hold:auth-1", "GET", "POST release-hold:auth-1" + StripeAdapter.SECOND_KEY_SUFFIX);
        assertThat(cancellations).isEqualTo(1);
        // Any later attempt (another worker, the next night): the first key replays its 500, the lookup finds it canceled.
        seen.clear();
        assertThat(adapter.release(command())).isEqualTo(new ProviderResult.Released(PI));
        assertThat(seen).containsExactly("POST release-hold:auth-1", "GET");
        assertThat(cancellations).isEqualTo(1);
    }

    @Test
    void a500AfterWhichThePaymentIntentIsCanceledIsDeliveredWithoutAnotherCancel() throws IOException {
        StripeAdapter adapter = start("canceled", Optional.empty());
        assertThat(adapter.release(command())).isEqualTo(new ProviderResult.Released(PI));
        assertThat(seen).containsExactly("POST release-hold:auth-1", "GET");
    }

    @Test
    void a500ForACapturedPaymentIntentEndsItRejectedAsCaptured() throws IOException {
        StripeAdapter adapter = start("succeeded", Optional.of("false"));
        assertThat(adapter.release(command())).isInstanceOfSatisfying(ProviderResult.Rejected.class,
                r -> assertThat(r.code()).isEqualTo(ForgottenKeys.CODE_CAPTURED));
        assertThat(seen).containsExactly("POST release-hold:auth-1", "GET");
    }

    @Test
    void a500WithoutShouldRetryFalseIsSentAgainUnderTheSameKeyOnly() throws IOException {
        StripeAdapter adapter = start("requires_capture", Optional.of("true"));
        assertThat(adapter.release(command())).isInstanceOf(ProviderResult.Unavailable.class);
        assertThat(seen).containsExactly("POST release-hold:auth-1", "GET");
        assertThat(cancellations).isZero();
    }

    /** Known-bad twin: what the adapter did before, the same key again: the stored 500 each time, never an end. */
    @Test
    void theSameKeyAloneReplaysTheStored500() throws IOException, InterruptedException {
        start("requires_capture", Optional.of("false"));
        var http = HttpProviderClient.httpClient(Duration.ofSeconds(5));
        for (int attempt = 0; attempt < 3; attempt++) {
            var response = http.send(java.net.http.HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + server.getAddress().getPort()
                            + "/v1/payment_intents/" + PI + "/cancel")).header("Idempotency-Key", "release-hold:auth-1")
                    .header("Stripe-Version", StripeAdapter.STRIPE_VERSION)
                    .POST(java.net.http.HttpRequest.BodyPublishers.ofString(StripeAdapter.CANCEL_BODY)).build(),
                    java.net.http.HttpResponse.BodyHandlers.ofString());
            assertThat(StripeAnswers.cancel(PI, "release-hold:auth-1", response.statusCode(), response.body(), Optional.empty(), T0))
                    .isInstanceOf(ProviderResult.Unavailable.class);
        }
        assertThat(cancellations).isZero();
    }

    /**
     * The key's mode is checked before any request: another form, or the other mode than the deployment's, stops the call.
     * Known-bad twin: without the deployment's mode, a live key passes for a test deployment (only the form is checked).
     */
    @Test
    void prepareRefusesAKeyOfAnotherFormOrTheOtherMode() {
        URI base = URI.create("http://127.0.0.1:9");
        java.util.function.BiFunction<String, Optional<Boolean>, String> prepare = (key, mode) -> {
            try {
                new StripeAdapter(HttpProviderClient.httpClient(Duration.ofSeconds(1)), base, ProviderCredentials.fixedKey(key),
                        Duration.ofSeconds(1), CLOCK, mode).prepare();
                return "ok";
            } catch (com.payments.reconciler.workflow.ProviderContractViolation v) {
                assertThat(v.aboutTheCommand()).as("stops the call").isFalse();
                assertThat(v.getMessage()).doesNotContain(key);
                return "refused";
            }
        };
        assertThat(prepare.apply("sk_test_abc", Optional.of(false))).isEqualTo("ok");
        assertThat(prepare.apply("rk_live_abc", Optional.of(true))).isEqualTo("ok");
        assertThat(prepare.apply("sk_live_abc", Optional.of(false))).isEqualTo("refused");
        assertThat(prepare.apply("rk_test_abc", Optional.of(true))).isEqualTo("refused");
        assertThat(prepare.apply("0123456789abcdef", Optional.empty())).isEqualTo("refused");
        assertThat(prepare.apply("pk_live_abc", Optional.empty())).as("a publishable key").isEqualTo("refused");
        assertThat(prepare.apply("sk_live_abc", Optional.empty())).as("known-bad: no deployment mode").isEqualTo("ok");
        // The deployment's mode as the stack context and the environment give it (one parser for both).
        assertThat(ProviderAdapters.parseKeyMode("live")).isTrue();
        assertThat(ProviderAdapters.parseKeyMode("test")).isFalse();
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> ProviderAdapters.parseKeyMode("LIVE"))
                .hasMessageContaining("must be live or test");
    }
}
