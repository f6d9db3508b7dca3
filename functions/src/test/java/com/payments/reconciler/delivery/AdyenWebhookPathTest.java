package com.payments.reconciler.delivery;

import com.payments.reconciler.ingest.EventIngestion;
import com.payments.reconciler.ingest.IngestOutcome;
import com.payments.reconciler.lease.LeaseToken;
import com.payments.reconciler.local.provider.AdyenFake;
import com.payments.reconciler.local.provider.PerformedRelease;
import com.payments.reconciler.local.provider.SimulatedProvider;
import com.payments.reconciler.store.Tables.ReleaseCommands;
import com.payments.reconciler.testing.LocalDynamo;
import com.payments.reconciler.webhook.AdyenSignature;
import com.payments.reconciler.webhook.AdyenWebhookReceiver;
import com.payments.reconciler.workflow.EmfMetrics;
import com.payments.reconciler.workflow.Timing;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Function;
import java.util.stream.Collectors;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The Adyen path end to end, small: the real delivery call and {@link AdyenProviderClient} against the {@link AdyenFake}
 * (201 received → ACKNOWLEDGED), then the fake's CANCELLATION webhooks — delayed, duplicated, shuffled, with a forged copy
 * among them — posted to the real receiver (HMAC check) whose provider.outcome events are ingested in reverse order and
 * twice. Every command ends DELIVERED, the captured payment's REJECTED; the fake performed one cancellation per payment
 * (I2 from its own effect log) and none for the captured one; nothing is left outstanding. Known-bad proof: a receiver
 * holding another HMAC key refuses every webhook and the same end-state check reports every command still ACKNOWLEDGED
 * ({@link #aReceiverWithAnotherKeyLeavesEveryCommandAcknowledged}).
 */
@ExtendWith(LocalDynamo.class)
class AdyenWebhookPathTest {

    private static final String KEY = "44782DEF547AAA06C910C43932B1EB0C71FC68D9D0C057550C48EC2ACF6BA056";
    private static final String OTHER_KEY = "0000000000000000000000000000000000000000000000000000000000000001";
    private static final String MERCHANT = "TestMerchantECOM";
    private final TestContext context = new TestContext(Timing.DELIVER_COMMANDS_TIMEOUT);
    private DeliveryWorld world;
    private AdyenFake adyen;
    private double writesPerEvent;

    @AfterEach
    void close() {
        if (adyen != null) {
            adyen.close();
        }
        if (world != null) {
            world.close();
        }
    }

    /** What is wrong at the end of the path: commands not in their expected end state, or I2 broken at the fake. */
    private List<String> run(LocalDynamo.Engine engine, String receiverKey) {
        world = new DeliveryWorld(engine, SimulatedProvider.builder(), 1);
        adyen = AdyenFake.start(world.clock, KEY, "the-key", MERCHANT, 30);
        LeaseToken lease = world.acquire("worker-A", Timing.LEASE_DURATION);
        List<String> auths = DeliveryWorld.ids("auth", 8);
        List<String> ops = world.command(lease, id -> Optional.of(AdyenFake.pspReferenceFor(id)), auths.toArray(String[]::new));
        String captured = auths.get(2);
        adyen.capture(captured);
        AdyenProviderClient client = new AdyenProviderClient(HttpProviderClient.httpClient(Duration.ofSeconds(2)),
                adyen.baseUrl(), ProviderCredentials.fixedKey("the-key"), MERCHANT,
                command -> Optional.of(AdyenFake.pspReferenceFor(command.authorisationId())), Duration.ofSeconds(10), world.clock);

        world.invoke(world.handler(world.fixedGuard(), 2, client), lease, 0, null, context);
        assertThat(ops).allSatisfy(op -> assertThat(world.status(op)).isEqualTo(ReleaseCommands.STATUS_ACKNOWLEDGED));

        List<String> queue = new CopyOnWriteArrayList<>();
        List<String> metrics = new CopyOnWriteArrayList<>();
        AdyenWebhookReceiver receiver = new AdyenWebhookReceiver(() -> new AdyenSignature(receiverKey), queue::add,
                new EmfMetrics(world.clock, "AdyenWebhook", metrics::add), MERCHANT);
        AdyenFake.Sent early = adyen.deliverWebhooks(body -> receiver.receive(body).status(), Duration.ofMinutes(1).toMillis(), 0.5, true);
        assertThat(early.notifications()).as("delayed: none due yet").isZero();
        world.clock.advance(Duration.ofMinutes(2));
        AdyenFake.Sent sent = adyen.deliverWebhooks(body -> receiver.receive(body).status(), Duration.ofMinutes(1).toMillis(), 0.5, true);
        assertThat(sent.forged()).isEqualTo(1);

        EventIngestion ingestion = world.outcomeIngestion();
        List<String> reordered = new ArrayList<>(queue);
        Collections.reverse(reordered);
        reordered.addAll(queue);
        List<IngestOutcome> outcomes = reordered.stream().map(ingestion::ingest).toList();
        assertThat(outcomes).noneMatch(o -> o instanceof IngestOutcome.Refused);
        // The webhook path's cost: one conditional UpdateItem per provider.outcome event, applied or duplicate.
        writesPerEvent = outcomes.isEmpty() ? 0 : (double) outcomes.stream().mapToInt(IngestOutcome::writes).sum() / outcomes.size();

        List<String> problems = new ArrayList<>();
        for (int k = 0; k < auths.size(); k++) {
            String expected = auths.get(k).equals(captured) ? ReleaseCommands.STATUS_REJECTED : ReleaseCommands.STATUS_DELIVERED;
            String status = world.status(ops.get(k));
            if (!status.equals(expected)) {
                problems.add(ops.get(k) + " is " + status + ", expected " + expected);
            }
        }
        Map<String, Long> perPayment = adyen.releases().stream()
                .collect(Collectors.groupingBy(PerformedRelease::authorisationId, Collectors.counting()));
        perPayment.forEach((auth, count) -> {
            if (count > 1) {
                problems.add("I2: " + auth + " cancelled " + count + " times at the fake");
            }
        });
        if (perPayment.containsKey(captured)) {
            problems.add("the captured payment was cancelled");
        }
        if (adyen.outstanding() > 0) {
            problems.add(adyen.outstanding() + " webhooks outstanding");
        }
        return problems;
    }

    @Test
    void delayedDuplicatedReorderedAndForgedWebhooksEndEveryCommandOnce(LocalDynamo.Engine engine) {
        assertThat(run(engine, KEY)).isEmpty();
        assertThat(adyen.releases()).hasSize(7);
        assertThat(adyen.cancels()).as("one cancel per command").isEqualTo(8);
        assertThat(writesPerEvent).as("DynamoDB writes per provider.outcome event").isEqualTo(1.0);
    }

    @Test
    void aReceiverWithAnotherKeyLeavesEveryCommandAcknowledged(LocalDynamo.Engine engine) {
        assertThat(run(engine, OTHER_KEY)).hasSize(9)
                .contains("8 webhooks outstanding")
                .allSatisfy(problem -> assertThat(problem).containsAnyOf("ACKNOWLEDGED", "outstanding"));
    }
}
