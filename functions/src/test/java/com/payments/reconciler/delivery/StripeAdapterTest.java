package com.payments.reconciler.delivery;

import com.payments.reconciler.local.provider.Fault;
import com.payments.reconciler.local.provider.SimulatedProvider;
import com.payments.reconciler.local.provider.StripeWire;
import com.payments.reconciler.testing.MutableClock;
import com.payments.reconciler.workflow.ProviderContractViolation;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The Stripe adapter against the local Stripe fake ({@link SimulatedProvider}'s {@code /v1/payment_intents} routes,
 * {@link StripeWire}): the request it sends, Stripe's idempotency semantics as the fake keeps them (same key and
 * parameters → the stored answer; other parameters → Stripe's idempotency error; keys pruned after the retention on the
 * injected clock), and what each answer becomes.
 */
class StripeAdapterTest {

    private static final Instant T0 = Instant.parse("2026-12-06T02:00:00Z");
    private final MutableClock clock = new MutableClock(T0);
    private SimulatedProvider stripe;

    @AfterEach
    void stop() {
        if (stripe != null) {
            stripe.close();
        }
    }

    private StripeAdapter adapter() {
        return new StripeAdapter(HttpProviderClient.httpClient(Duration.ofSeconds(5)), stripe.baseUrl(),
                ProviderCredentials.fixedKey(stripe.apiKey()), Duration.ofSeconds(10), clock);
    }

    private static PendingCommand command(String authorisationId, Optional<String> reference) {
        return new PendingCommand("release-hold:" + authorisationId, authorisationId, 1250, "EUR", T0, T0, Optional.empty(), reference);
    }

    private static PendingCommand command(String authorisationId) {
        return command(authorisationId, Optional.of(StripeWire.paymentIntentFor(authorisationId)));
    }

    /**
     * The fake's PaymentIntent ids round-trip to their authorisation, are valid providerReferences, and hold no digit:
     * the first encoding (plain hex) made runs of digits that ingestion refused as card numbers.
     */
    @Test
    void theFakesPaymentIntentIdsRoundTripAndHoldNoDigits() {
        for (int i = 0; i < 2_000; i++) {
            String authorisationId = String.format("auth-%08d", i);
            String intent = StripeWire.paymentIntentFor(authorisationId);
            assertThat(intent).matches("pi_[a-p]+").matches(StripeAdapter.PAYMENT_INTENT_ID.pattern());
            assertThat(intent).matches(com.payments.reconciler.reconcile.Candidate.PROVIDER_REFERENCE.pattern());
            assertThat(StripeWire.authorisationOf(intent)).contains(authorisationId);
        }
        assertThat(StripeWire.authorisationOf("pi_3MtwBwLkdIwHu7ix28a3tqPa")).isEmpty();
    }

    @Test
    void aCancelIsReleasedOnceAndItsRepeatIsTheStoredAnswer() {
        stripe = SimulatedProvider.builder().clock(clock).start();
        StripeAdapter adapter = adapter();
        PendingCommand command = command("auth-1");
        String intent = StripeWire.paymentIntentFor("auth-1");
        assertThat(adapter.release(command)).isEqualTo(new ProviderResult.Released(intent));
        assertThat(adapter.release(command)).as("same key, same parameters: the stored 200").isEqualTo(new ProviderResult.Released(intent));
        assertThat(stripe.effect(command.operationId()).performed()).isEqualTo(1);
        assertThat(stripe.effect(command.operationId()).requests()).isEqualTo(2);
        assertThat(stripe.releasesOf("auth-1")).hasSize(1);
        // The lookup says what the fake did: canceled is the contract's RELEASED.
        assertThat(ForgottenKeys.afterLookup(adapter.lookUp(command), command.operationId()))
                .isEqualTo(new ForgottenKeys.Step.Answer(new ProviderResult.Released(intent)));
    }

    @Test
    void theRequestIsStripesFormEncodedCancelWithTheOperationIdAsKey() throws Exception {
        stripe = SimulatedProvider.builder().clock(clock).start();
        String intent = StripeWire.paymentIntentFor("auth-2");
        HttpClient http = HttpProviderClient.httpClient(Duration.ofSeconds(5));
        // The fake refuses what Stripe refuses: a JSON body, an unknown parameter, a reason Stripe does not have.
        for (String[] bad : new String[][]{{"application/json", "{\"cancellation_reason\":\"abandoned\"}"},
                {"application/x-www-form-urlencoded", "amount=5"}, {"application/x-www-form-urlencoded", "cancellation_reason=bored"}}) {
            HttpResponse<String> refused = http.send(HttpRequest.newBuilder(URI.create(stripe.baseUrl() + "/v1/payment_intents/" + intent + "/cancel"))
                    .header("Authorization", "Bearer " + stripe.apiKey()).header("Idempotency-Key", "probe-" + bad[1].length())
                    .header("Content-Type", bad[0]).POST(HttpRequest.BodyPublishers.ofString(bad[1])).build(), HttpResponse.BodyHandlers.ofString());
            assertThat(refused.statusCode()).as(bad[1]).isEqualTo(400);
            assertThat(refused.body()).contains("\"type\":\"invalid_request_error\"");
        }
        assertThat(stripe.releasesOf("auth-2")).isEmpty();
        assertThat(adapter().release(command("auth-2"))).isEqualTo(new ProviderResult.Released(intent));
        assertThat(stripe.releasesOf("auth-2")).hasSize(1);
    }

    @Test
    void aCapturedPaymentIntentEndsTheCommandRejectedAsCapturedAndAnUnknownOneIsQuarantined() {
        stripe = SimulatedProvider.builder().clock(clock).unknownHolds(java.util.Set.of("auth-gone")).start();
        stripe.capture("auth-settled");
        StripeAdapter adapter = adapter();
        assertThat(adapter.release(command("auth-settled"))).isInstanceOfSatisfying(ProviderResult.Rejected.class,
                r -> assertThat(r.code()).isEqualTo(ForgottenKeys.CODE_CAPTURED));
        // 404 resource_missing is quarantined, not REJECTED: a key of the other mode or account sees no PaymentIntent either.
        assertThatThrownBy(() -> adapter.release(command("auth-gone"))).isInstanceOfSatisfying(ProviderContractViolation.class,
                v -> assertThat(v.aboutTheCommand()).isTrue()).hasMessageContaining("resource_missing");
        assertThat(stripe.releases()).isEmpty();
    }

    @Test
    void theSameKeyWithOtherParametersIsStripesIdempotencyErrorOutsideTheContract() {
        stripe = SimulatedProvider.builder().clock(clock).start();
        StripeAdapter adapter = adapter();
        assertThat(adapter.release(command("auth-3"))).isInstanceOf(ProviderResult.Released.class);
        // The same operation id naming another PaymentIntent: other parameters under the key.
        PendingCommand changed = command("auth-3", Optional.of(StripeWire.paymentIntentFor("auth-4")));
        assertThatThrownBy(() -> adapter.release(changed)).isInstanceOfSatisfying(ProviderContractViolation.class,
                v -> assertThat(v.aboutTheCommand()).isTrue()).hasMessageContaining("idempotency_error");
        assertThat(stripe.releasesOf("auth-4")).isEmpty();
    }

    @Test
    void aCommandWithoutAPaymentIntentIdIsQuarantinedWithoutARequest() {
        stripe = SimulatedProvider.builder().clock(clock).start();
        StripeAdapter adapter = adapter();
        assertThatThrownBy(() -> adapter.release(command("auth-5", Optional.empty())))
                .isInstanceOfSatisfying(ProviderContractViolation.class, v -> assertThat(v.aboutTheCommand()).isTrue())
                .hasMessageContaining("has no providerReference").hasMessageContaining("field providerReference");
        assertThatThrownBy(() -> adapter.release(command("auth-5", Optional.of("ch_123/../x"))))
                .isInstanceOf(ProviderContractViolation.class).hasMessageContaining("not a PaymentIntent id");
        assertThatThrownBy(() -> adapter.lookUp(command("auth-5", Optional.empty()))).isInstanceOf(ProviderContractViolation.class);
        assertThat(stripe.totalRequests()).isZero();
    }

    @Test
    void throttlingAndServerErrorsAreAnswersToRetry() {
        stripe = SimulatedProvider.builder().clock(clock).start();
        StripeAdapter adapter = adapter();
        PendingCommand command = command("auth-6");
        stripe.throttleNext(1, Duration.ofSeconds(3));
        assertThat(adapter.release(command)).isEqualTo(new ProviderResult.Throttled(429, Optional.of(Duration.ofSeconds(3))));
        stripe.forceNext(command.operationId(), Fault.ERROR_5XX);
        assertThat(adapter.release(command)).isInstanceOfSatisfying(ProviderResult.Unavailable.class,
                u -> assertThat(u.cause()).startsWith("Stripe answered 500").contains("sent again under the same key"));
        stripe.forceNext(command.operationId(), Fault.PERFORM_THEN_DROP);
        assertThat(adapter.release(command)).isInstanceOf(ProviderResult.Unavailable.class);
        assertThat(adapter.release(command)).as("the key's stored answer").isEqualTo(new ProviderResult.Released(StripeWire.paymentIntentFor("auth-6")));
        assertThat(stripe.releasesOf("auth-6")).hasSize(1);
    }

    /**
     * Keys pruned after the retention, on the injected clock: a perform-then-drop redelivered after it is a new request at
     * Stripe. Its state machine answers "already canceled" (DELIVERED, no second cancellation); the status lookup, which
     * {@link ForgottenKeys} asks first past the retention, ends the command without a second cancel request at all.
     * Known-bad: a fake that ignores keys (idempotent(false)) performs the redelivery a second time, and its effect log
     * shows the two cancellations the I2 audit reads.
     */
    @Test
    void aPrunedKeyMakesTheRedeliveryANewRequestWhichTheStateOrTheLookupDecides() {
        stripe = SimulatedProvider.builder().clock(clock).keyRetention(Duration.ofMillis(1)).start();
        StripeAdapter adapter = adapter();
        PendingCommand command = command("auth-7");
        stripe.forceNext(command.operationId(), Fault.PERFORM_THEN_DROP);
        assertThat(adapter.release(command)).isInstanceOf(ProviderResult.Unavailable.class);
        clock.advance(Duration.ofHours(25));
        assertThat(adapter.release(command)).as("a new request at Stripe, answered from the PaymentIntent's state")
                .isEqualTo(new ProviderResult.Released(StripeWire.paymentIntentFor("auth-7")));
        assertThat(stripe.forgottenKeys()).isEqualTo(1);
        assertThat(stripe.releasesOf("auth-7")).hasSize(1);

        PendingCommand attempted = command("auth-8").attemptedFrom(T0);
        stripe.forceNext(attempted.operationId(), Fault.PERFORM_THEN_DROP);
        assertThat(adapter.release(attempted)).isInstanceOf(ProviderResult.Unavailable.class);
        clock.advance(Duration.ofHours(25));
        assertThat(ForgottenKeys.askFirst(attempted.firstAttemptAt(), clock.instant(), Duration.ofHours(24))).isTrue();
        long before = stripe.effect(attempted.operationId()).requests();
        assertThat(ForgottenKeys.afterLookup(adapter.lookUp(attempted), attempted.operationId()))
                .isEqualTo(new ForgottenKeys.Step.Answer(new ProviderResult.Released(StripeWire.paymentIntentFor("auth-8"))));
        assertThat(stripe.effect(attempted.operationId()).requests()).as("no cancel request after the lookup").isEqualTo(before);

        stripe.idempotent(false);
        PendingCommand blind = command("auth-9");
        stripe.forceNext(blind.operationId(), Fault.PERFORM_THEN_DROP);
        adapter.release(blind);
        adapter.release(blind);
        assertThat(stripe.releasesOf("auth-9")).as("known-bad: a provider that ignores keys performs twice").hasSize(2);
    }
}
