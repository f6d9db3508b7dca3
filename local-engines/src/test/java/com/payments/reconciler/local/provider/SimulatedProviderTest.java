package com.payments.reconciler.local.provider;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class SimulatedProviderTest {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Duration WAIT = Duration.ofSeconds(30);
    private static final String KEY = "test-key-1";

    private final HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
    private final List<SimulatedProvider> started = new ArrayList<>();

    @AfterEach
    void stop() {
        started.forEach(SimulatedProvider::close);
    }

    private SimulatedProvider provider(SimulatedProvider.Builder builder) {
        SimulatedProvider provider = builder.apiKey(KEY).start();
        started.add(provider);
        return provider;
    }

    private SimulatedProvider provider() {
        return provider(SimulatedProvider.builder());
    }

    @Test
    void aReleaseIsPerformedOnceAndARepeatWithTheSameKeyReturnsTheOriginalAnswer() throws Exception {
        SimulatedProvider provider = provider();

        HttpResponse<String> first = release(provider, "auth-1", "op-1", 1250, "EUR");
        HttpResponse<String> repeat = release(provider, "auth-1", "op-1", 1250, "EUR");

        assertThat(first.statusCode()).isEqualTo(200);
        JsonNode body = JSON.readTree(first.body());
        assertThat(body.get("operationId").asText()).isEqualTo("op-1");
        assertThat(body.get("authorisationId").asText()).isEqualTo("auth-1");
        assertThat(body.get("status").asText()).isEqualTo("RELEASED");
        assertThat(body.get("providerReference").asText()).matches("PRV-\\d{8}");
        assertThat(repeat.statusCode()).isEqualTo(200);
        assertThat(repeat.body()).isEqualTo(first.body());
        assertThat(provider.effects()).containsExactly(new ProviderEffect("op-1", "auth-1", 1, 2));
    }

    @Test
    void theSameKeyWithADifferentBodyIs422AndTheOriginalStands() throws Exception {
        SimulatedProvider provider = provider();
        HttpResponse<String> original = release(provider, "auth-1", "op-1", 1250, "EUR");

        HttpResponse<String> changed = release(provider, "auth-1", "op-1", 9999, "EUR");

        assertThat(changed.statusCode()).isEqualTo(422);
        assertThat(JSON.readTree(changed.body()).get("error").asText()).isEqualTo("IDEMPOTENCY_KEY_REUSED");
        assertThat(release(provider, "auth-1", "op-1", 1250, "EUR").body()).isEqualTo(original.body());
        assertThat(provider.effect("op-1")).isEqualTo(new ProviderEffect("op-1", "auth-1", 1, 3));
    }

    @Test
    void aMissingOrWrongBearerKeyIs401AndPerformsNothing() throws Exception {
        SimulatedProvider provider = provider();

        HttpResponse<String> wrong = send(provider, "/holds/auth-1/release", "Bearer not-the-key", "op-1",
                body("auth-1", "op-1", 1250, "EUR"));
        HttpResponse<String> missing = send(provider, "/holds/auth-1/release", null, "op-1",
                body("auth-1", "op-1", 1250, "EUR"));

        assertThat(wrong.statusCode()).isEqualTo(401);
        assertThat(missing.statusCode()).isEqualTo(401);
        assertThat(provider.effect("op-1").performed()).isZero();
        assertThat(provider.effect("op-1").requests()).isEqualTo(2);
    }

    @Test
    void aMissingIdempotencyKeyIs400NamingTheHeader() throws Exception {
        SimulatedProvider provider = provider();

        HttpResponse<String> response = send(provider, "/holds/auth-1/release", "Bearer " + KEY, null,
                body("auth-1", "op-1", 1250, "EUR"));

        assertThat(response.statusCode()).isEqualTo(400);
        assertThat(JSON.readTree(response.body()).get("field").asText()).isEqualTo("Idempotency-Key");
        assertThat(provider.effects()).isEmpty();
        assertThat(provider.totalRequests()).isEqualTo(1);
    }

    @Test
    void malformedBodiesAre400NamingTheField() throws Exception {
        SimulatedProvider provider = provider();

        assertThat(badField(provider, "/holds/auth-1/release", body("auth-2", "op-1", 1250, "EUR"))).isEqualTo("authorisationId");
        assertThat(badField(provider, "/holds/auth-1/release", body("auth-1", "op-other", 1250, "EUR"))).isEqualTo("operationId");
        assertThat(badField(provider, "/holds/auth-1/release", body("auth-1", "op-1", 0, "EUR"))).isEqualTo("amountMinor");
        assertThat(badField(provider, "/holds/auth-1/release", body("auth-1", "op-1", 1250, "eur"))).isEqualTo("currency");
        assertThat(badField(provider, "/holds/auth-1/release",
                "{\"authorisationId\":\"auth-1\",\"amountMinor\":1,\"currency\":\"EUR\",\"operationId\":\"op-1\",\"pan\":\"x\"}"))
                .isEqualTo("pan");
        assertThat(badField(provider, "/holds/auth-1/release", "not json")).isEqualTo("body");
        assertThat(provider.effect("op-1").performed()).isZero();
    }

    @Test
    void unknownHoldsAreRefusedPermanentlyWith409AndARepeatReturnsTheSameRefusal() throws Exception {
        SimulatedProvider provider = provider(SimulatedProvider.builder().unknownHolds(Set.of("closed-1")));

        HttpResponse<String> refused = release(provider, "closed-1", "op-closed", 500, "GBP");
        HttpResponse<String> repeat = release(provider, "closed-1", "op-closed", 500, "GBP");

        assertThat(refused.statusCode()).isEqualTo(409);
        JsonNode body = JSON.readTree(refused.body());
        assertThat(body.get("status").asText()).isEqualTo("REJECTED");
        assertThat(body.get("code").asText()).isEqualTo(SimulatedProvider.CODE_HOLD_NOT_FOUND);
        assertThat(body.get("operationId").asText()).isEqualTo("op-closed");
        assertThat(repeat.statusCode()).isEqualTo(409);
        assertThat(repeat.body()).isEqualTo(refused.body());
        assertThat(provider.effect("op-closed")).isEqualTo(new ProviderEffect("op-closed", "closed-1", 0, 2));
    }

    @Test
    void aHoldReleasedUnderOneKeyIsRefusedUnderAnother() throws Exception {
        SimulatedProvider provider = provider();
        assertThat(release(provider, "auth-1", "op-a", 100, "EUR").statusCode()).isEqualTo(200);

        HttpResponse<String> second = release(provider, "auth-1", "op-b", 100, "EUR");

        assertThat(second.statusCode()).isEqualTo(409);
        assertThat(JSON.readTree(second.body()).get("code").asText()).isEqualTo(SimulatedProvider.CODE_HOLD_ALREADY_RELEASED);
        assertThat(provider.effects()).containsExactly(
                new ProviderEffect("op-a", "auth-1", 1, 1), new ProviderEffect("op-b", "auth-1", 0, 1));
    }

    @Test
    void aForcedPerformThenDropPerformsAndClosesTheConnectionAndTheRetryIsAnswered() throws Exception {
        SimulatedProvider provider = provider();
        provider.forceNext("op-1", Fault.PERFORM_THEN_DROP);

        assertThatThrownBy(() -> release(provider, "auth-1", "op-1", 1250, "EUR")).isInstanceOf(IOException.class);
        assertThat(provider.effect("op-1").performed()).as("performed, though the caller saw no answer").isEqualTo(1);

        HttpResponse<String> retry = release(provider, "auth-1", "op-1", 1250, "EUR");
        assertThat(retry.statusCode()).isEqualTo(200);
        assertThat(JSON.readTree(retry.body()).get("status").asText()).isEqualTo("RELEASED");
        assertThat(provider.effect("op-1")).isEqualTo(new ProviderEffect("op-1", "auth-1", 1, 2));
    }

    @Test
    void aForced5xxPerformsNothing() throws Exception {
        SimulatedProvider provider = provider();
        provider.forceNext("op-1", Fault.ERROR_5XX);
        provider.forceNext("op-1", Fault.ERROR_5XX);

        assertThat(release(provider, "auth-1", "op-1", 1250, "EUR").statusCode()).isEqualTo(503);
        assertThat(release(provider, "auth-1", "op-1", 1250, "EUR").statusCode()).isEqualTo(503);
        assertThat(provider.effect("op-1").performed()).isZero();
        assertThat(release(provider, "auth-1", "op-1", 1250, "EUR").statusCode()).isEqualTo(200);
        assertThat(provider.effect("op-1")).isEqualTo(new ProviderEffect("op-1", "auth-1", 1, 3));
    }

    @Test
    void aBurstOf429sAnswersTheNextRequestsWhateverTheirKeyWithRetryAfterAndPerformsNothing() throws Exception {
        SimulatedProvider provider = provider();
        provider.throttleNext(2, Duration.ofSeconds(3));

        HttpResponse<String> first = release(provider, "auth-1", "op-1", 1250, "EUR");
        assertThat(first.statusCode()).isEqualTo(429);
        assertThat(first.headers().firstValue("Retry-After")).contains("3");
        assertThat(release(provider, "auth-2", "op-2", 1250, "EUR").statusCode()).isEqualTo(429);
        assertThat(provider.burstAnswered()).isEqualTo(2);
        assertThat(provider.effect("op-1").performed()).isZero();
        assertThat(release(provider, "auth-1", "op-1", 1250, "EUR").statusCode()).as("the burst is over").isEqualTo(200);
        assertThat(provider.effect("op-1")).isEqualTo(new ProviderEffect("op-1", "auth-1", 1, 2));
    }

    @Test
    void aQuotaEnforcedMidRunRefusesBeyondItAndNoneAfterItIsLifted() throws Exception {
        SimulatedProvider provider = provider();
        RequestQuota quota = new RequestQuota(1, 4, () -> 0L);   // time stands still: one token, never refilled
        provider.enforce(quota);
        assertThat(release(provider, "auth-1", "op-1", 1250, "EUR").statusCode()).isEqualTo(200);
        assertThat(release(provider, "auth-2", "op-2", 1250, "EUR").statusCode()).as("its one token is spent").isEqualTo(429);
        assertThat(quota.violations()).isEqualTo(1);
        provider.enforce(null);
        assertThat(release(provider, "auth-2", "op-2", 1250, "EUR").statusCode()).isEqualTo(200);
        assertThat(provider.quota()).isEmpty();
    }

    @Test
    void aFaultCountsAsAnsweredOnlyOnceARequestMetIt() throws Exception {
        SimulatedProvider provider = provider(SimulatedProvider.builder().sleeper((operationId, delay) -> { }));
        provider.forceNext("op-1", Fault.ERROR_5XX);
        provider.forceNext("op-1", Fault.PERFORM_THEN_DROP);
        provider.forceNext("op-2", Fault.SLOW);
        provider.forceNext("op-never-delivered", Fault.PERFORM_THEN_DROP);

        assertThat(release(provider, "auth-1", "op-1", 1250, "EUR").statusCode()).isEqualTo(503);
        assertThat(provider.faultsAnswered()).as("the drop is still queued: no request met it yet")
                .isEqualTo(Map.of("op-1", List.of(Fault.ERROR_5XX)));
        assertThatThrownBy(() -> release(provider, "auth-1", "op-1", 1250, "EUR")).isInstanceOf(IOException.class);
        assertThat(release(provider, "auth-2", "op-2", 100, "EUR").statusCode()).isEqualTo(200);

        assertThat(provider.faultsAnswered()).isEqualTo(Map.of(
                "op-1", List.of(Fault.ERROR_5XX, Fault.PERFORM_THEN_DROP),
                "op-2", List.of(Fault.SLOW)));
        provider.reset();
        assertThat(provider.faultsAnswered()).isEmpty();
    }

    @Test
    void aHeldRequestHasBeenPerformedBeforeItsResponseIsLetGoAndRepeatsMeanwhileAreAnswered() throws Exception {
        SimulatedProvider provider = provider();
        Gate gate = provider.hold("op-1");
        ExecutorService caller = Executors.newSingleThreadExecutor();
        try {
            Future<HttpResponse<String>> held = caller.submit(() -> release(provider, "auth-1", "op-1", 1250, "EUR"));
            assertThat(gate.awaitArrival(WAIT)).isTrue();
            assertThat(provider.effect("op-1").performed()).isEqualTo(1);
            assertThat(held.isDone()).isFalse();

            HttpResponse<String> repeat = release(provider, "auth-1", "op-1", 1250, "EUR");
            assertThat(repeat.statusCode()).isEqualTo(200);

            gate.open();
            assertThat(held.get(WAIT.toSeconds(), TimeUnit.SECONDS).body()).isEqualTo(repeat.body());
            assertThat(provider.effect("op-1")).isEqualTo(new ProviderEffect("op-1", "auth-1", 1, 2));
        } finally {
            caller.shutdownNow();
        }
    }

    @Test
    void slowResponsesWaitOnTheSleeperWhichATestCanLatch() throws Exception {
        CountDownLatch sleeping = new CountDownLatch(1);
        CountDownLatch wake = new CountDownLatch(1);
        SimulatedProvider provider = provider(SimulatedProvider.builder()
                .faults(new ProviderFaults(0, 0, 1.0, Duration.ofHours(1), 7))
                .sleeper((operationId, delay) -> {
                    assertThat(delay).isEqualTo(Duration.ofHours(1));
                    sleeping.countDown();
                    wake.await();
                }));
        ExecutorService caller = Executors.newSingleThreadExecutor();
        try {
            Future<HttpResponse<String>> slow = caller.submit(() -> release(provider, "auth-1", "op-1", 1250, "EUR"));
            assertThat(sleeping.await(WAIT.toSeconds(), TimeUnit.SECONDS)).isTrue();
            assertThat(provider.effect("op-1").performed()).isEqualTo(1);
            assertThat(slow.isDone()).isFalse();
            wake.countDown();
            assertThat(slow.get(WAIT.toSeconds(), TimeUnit.SECONDS).statusCode()).isEqualTo(200);
        } finally {
            caller.shutdownNow();
        }
    }

    @Test
    void seededFaultsFollowTheSeedKeyAndAttemptNotTheArrivalOrder() throws Exception {
        ProviderFaults faults = new ProviderFaults(0.3, 0.3, 0, Duration.ZERO, 20261201L);
        List<String> keys = List.of("op-a", "op-b", "op-c", "op-d", "op-e", "op-f", "op-g", "op-h");

        List<String> forwards = observe(provider(SimulatedProvider.builder().faults(faults)), keys);
        List<String> backwards = observe(provider(SimulatedProvider.builder().faults(faults)), keys.reversed()).reversed();
        List<String> otherSeed = observe(provider(SimulatedProvider.builder()
                .faults(new ProviderFaults(0.3, 0.3, 0, Duration.ZERO, 42L))), keys);

        assertThat(forwards).isEqualTo(backwards);
        assertThat(forwards).isNotEqualTo(otherSeed);
        List<String> predicted = new ArrayList<>();
        for (String key : keys) {
            StringBuilder outcomes = new StringBuilder();
            for (int attempt = 1; attempt <= 4; attempt++) {
                Fault.Plan plan = faults.decide(key, attempt);
                outcomes.append(plan.error5xx() ? "503 " : plan.performThenDrop() ? "drop " : "200 ");
            }
            predicted.add(outcomes.toString().trim());
        }
        assertThat(forwards).isEqualTo(predicted);
        assertThat(String.join(" ", forwards)).contains("503").contains("drop").contains("200");
    }

    @Test
    void concurrentRequestsWithOneKeyPerformOnceAndManyKeysEachPerformOnce() throws Exception {
        SimulatedProvider provider = provider();
        int threads = 16;
        CyclicBarrier start = new CyclicBarrier(threads);
        ExecutorService callers = Executors.newFixedThreadPool(threads);
        try {
            List<Future<HttpResponse<String>>> same = new ArrayList<>();
            for (int i = 0; i < threads; i++) {
                same.add(callers.submit(() -> {
                    start.await();
                    return release(provider, "auth-1", "op-1", 1250, "EUR");
                }));
            }
            List<String> bodies = new ArrayList<>();
            for (Future<HttpResponse<String>> f : same) {
                HttpResponse<String> response = f.get(WAIT.toSeconds(), TimeUnit.SECONDS);
                assertThat(response.statusCode()).isEqualTo(200);
                bodies.add(response.body());
            }
            assertThat(bodies).containsOnly(bodies.getFirst());
            assertThat(provider.effect("op-1")).isEqualTo(new ProviderEffect("op-1", "auth-1", 1, threads));

            List<Future<HttpResponse<String>>> distinct = new ArrayList<>();
            for (int i = 0; i < 64; i++) {
                int n = i;
                distinct.add(callers.submit(() -> release(provider, "auth-x" + n, "op-x" + n, 100 + n, "EUR")));
            }
            for (Future<HttpResponse<String>> f : distinct) {
                assertThat(f.get(WAIT.toSeconds(), TimeUnit.SECONDS).statusCode()).isEqualTo(200);
            }
            assertThat(provider.effects()).hasSize(65).allSatisfy(e -> assertThat(e.performed()).isEqualTo(1));
        } finally {
            callers.shutdownNow();
        }
    }

    @Test
    void resetForgetsEverything() throws Exception {
        SimulatedProvider provider = provider();
        release(provider, "auth-1", "op-1", 1250, "EUR");

        provider.reset();

        assertThat(provider.effects()).isEmpty();
        assertThat(release(provider, "auth-1", "op-1", 1250, "EUR").statusCode()).isEqualTo(200);
        assertThat(provider.effect("op-1").performed()).isEqualTo(1);
    }

    /** Four requests per key, in the given key order; returns per key the outcomes as "200 503 drop ...". */
    private List<String> observe(SimulatedProvider provider, List<String> keys) throws Exception {
        List<String> observed = new ArrayList<>();
        for (String key : keys) {
            StringBuilder outcomes = new StringBuilder();
            for (int attempt = 1; attempt <= 4; attempt++) {
                String outcome;
                try {
                    outcome = Integer.toString(release(provider, "auth-" + key, key, 100, "EUR").statusCode());
                } catch (IOException dropped) {
                    outcome = "drop";
                }
                outcomes.append(outcome).append(' ');
            }
            observed.add(outcomes.toString().trim());
        }
        return observed;
    }

    private String badField(SimulatedProvider provider, String path, String body) throws Exception {
        HttpResponse<String> response = send(provider, path, "Bearer " + KEY, "op-1", body);
        assertThat(response.statusCode()).isEqualTo(400);
        return JSON.readTree(response.body()).get("field").asText();
    }

    private HttpResponse<String> release(SimulatedProvider provider, String authorisationId, String operationId,
                                         long amountMinor, String currency) throws IOException, InterruptedException {
        return send(provider, "/holds/" + authorisationId + "/release", "Bearer " + KEY, operationId,
                body(authorisationId, operationId, amountMinor, currency));
    }

    private static String body(String authorisationId, String operationId, long amountMinor, String currency) {
        return JSON.createObjectNode().put("authorisationId", authorisationId).put("amountMinor", amountMinor)
                .put("currency", currency).put("operationId", operationId).toString();
    }

    private HttpResponse<String> send(SimulatedProvider provider, String path, String authorization, String key, String body)
            throws IOException, InterruptedException {
        HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(provider.baseUrl() + path))
                .timeout(WAIT)
                .header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(body));
        if (authorization != null) {
            request.header("Authorization", authorization);
        }
        if (key != null) {
            request.header(SimulatedProvider.IDEMPOTENCY_KEY, key);
        }
        return http.send(request.build(), HttpResponse.BodyHandlers.ofString());
    }

    /** A clock the test moves: the provider's key retention is measured on it. */
    private static final class SteppedClock extends java.time.Clock {
        private volatile java.time.Instant now = java.time.Instant.parse("2026-12-01T02:05:00Z");

        void advance(Duration by) {
            now = now.plus(by);
        }

        @Override
        public java.time.ZoneId getZone() {
            return java.time.ZoneOffset.UTC;
        }

        @Override
        public java.time.Clock withZone(java.time.ZoneId zone) {
            return this;
        }

        @Override
        public java.time.Instant instant() {
            return now;
        }
    }

    private HttpResponse<String> lookUp(SimulatedProvider provider, String authorisationId, String authorization)
            throws IOException, InterruptedException {
        HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(provider.baseUrl() + "/holds/" + authorisationId)).timeout(WAIT).GET();
        if (authorization != null) {
            request.header("Authorization", authorization);
        }
        return http.send(request.build(), HttpResponse.BodyHandlers.ofString());
    }

    /**
     * A key first used longer ago than the retention is forgotten: the repeat is a new request, and for the hold it already
     * released the answer is 409 HOLD_ALREADY_RELEASED (the known-bad half: a provider that never forgets, as before,
     * answers the repeat with the original 200).
     */
    @Test
    void aKeyOlderThanTheRetentionIsForgottenAndItsRepeatIsANewRequest() throws Exception {
        SteppedClock clock = new SteppedClock();
        SimulatedProvider forgets = provider(SimulatedProvider.builder().clock(clock).keyRetention(Duration.ofHours(24)));
        SimulatedProvider remembers = provider(SimulatedProvider.builder().clock(clock));
        HttpResponse<String> first = release(forgets, "auth-1", "op-1", 1250, "EUR");
        HttpResponse<String> firstKept = release(remembers, "auth-1", "op-1", 1250, "EUR");

        clock.advance(Duration.ofHours(24).minusMillis(1));
        HttpResponse<String> stillKept = release(forgets, "auth-1", "op-1", 1250, "EUR");
        clock.advance(Duration.ofMillis(1));
        HttpResponse<String> afterRetention = release(forgets, "auth-1", "op-1", 1250, "EUR");
        HttpResponse<String> neverForgotten = release(remembers, "auth-1", "op-1", 1250, "EUR");

        assertThat(stillKept.body()).isEqualTo(first.body());
        assertThat(afterRetention.statusCode()).isEqualTo(409);
        assertThat(JSON.readTree(afterRetention.body()).get("code").asText()).isEqualTo(SimulatedProvider.CODE_HOLD_ALREADY_RELEASED);
        assertThat(forgets.forgottenKeys()).isEqualTo(1);
        assertThat(forgets.releasesOf("auth-1")).as("a hold is released once, whatever the keys").hasSize(1);
        assertThat(neverForgotten.body()).isEqualTo(firstKept.body());
        assertThat(remembers.forgottenKeys()).isZero();
    }

    @Test
    void theStatusLookupAnswersFromThePerformedReleasesNotFromTheKeys() throws Exception {
        SteppedClock clock = new SteppedClock();
        SimulatedProvider provider = provider(SimulatedProvider.builder().clock(clock).keyRetention(Duration.ofHours(1))
                .unknownHolds(Set.of("auth-unknown")));
        HttpResponse<String> released = release(provider, "auth-1", "op-1", 1250, "EUR");
        provider.capture("auth-3");
        clock.advance(Duration.ofHours(2));

        JsonNode one = JSON.readTree(lookUp(provider, "auth-1", "Bearer " + KEY).body());
        JsonNode two = JSON.readTree(lookUp(provider, "auth-2", "Bearer " + KEY).body());
        JsonNode three = JSON.readTree(lookUp(provider, "auth-3", "Bearer " + KEY).body());

        assertThat(one.get("status").asText()).isEqualTo("RELEASED");
        assertThat(one.get("providerReference").asText()).isEqualTo(JSON.readTree(released.body()).get("providerReference").asText());
        assertThat(one.get("authorisationId").asText()).isEqualTo("auth-1");
        assertThat(two.get("status").asText()).isEqualTo("ACTIVE");
        assertThat(two.has("providerReference")).isFalse();
        assertThat(three.get("status").asText()).isEqualTo("CAPTURED");
        assertThat(lookUp(provider, "auth-unknown", "Bearer " + KEY).statusCode()).isEqualTo(404);
        assertThat(lookUp(provider, "auth-1", null).statusCode()).isEqualTo(401);
        assertThat(provider.lookups()).isEqualTo(4);
        assertThat(release(provider, "auth-3", "op-3", 100, "EUR").statusCode()).as("a captured hold is not released").isEqualTo(409);
        assertThat(provider.releasesOf("auth-3")).isEmpty();
    }

    @Test
    void aProviderWithoutTheLookupAnswers404() throws Exception {
        SimulatedProvider provider = provider(SimulatedProvider.builder().statusLookup(false));
        release(provider, "auth-1", "op-1", 1250, "EUR");

        assertThat(lookUp(provider, "auth-1", "Bearer " + KEY).statusCode()).isEqualTo(404);
    }

    @Test
    void aRetentionMustBeAboveZero() {
        assertThatThrownBy(() -> SimulatedProvider.builder().keyRetention(Duration.ZERO)).isInstanceOf(IllegalArgumentException.class);
    }
}
