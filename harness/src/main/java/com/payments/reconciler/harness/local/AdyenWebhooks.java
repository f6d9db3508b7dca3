package com.payments.reconciler.harness.local;

import com.fasterxml.jackson.databind.node.ObjectNode;
import com.payments.reconciler.audit.StoreSnapshot;
import com.payments.reconciler.harness.ingest.LocalEventSourceMapping;
import com.payments.reconciler.harness.ingest.LocalIngestQueue;
import com.payments.reconciler.harness.report.RunReport;
import com.payments.reconciler.local.provider.AdyenFake;
import com.payments.reconciler.store.Tables.ReleaseCommands;
import com.payments.reconciler.webhook.AdyenWebhookHandler;
import com.payments.reconciler.workflow.Json;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import java.util.function.LongSupplier;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;

/**
 * The end of a local Adyen night (docs/decisions.md, "The local Adyen fake, and how a local night is to wait for
 * webhooks"). The deployed design never waits for a CANCELLATION; a local night is judged at its end, so after the state
 * machine ended the harness delivers the Adyen fake's due notifications — delayed, reordered, some duplicated, one forged
 * copy among them — to the real receiver handler ({@link AdyenWebhookHandler}, a function URL event in, its answer out),
 * which sends each genuine one as a {@code provider.outcome} event to the ingestion queue; the queue is drained through
 * the event source mapping and IngestEvents. Rounds repeat, each after moving the run's clock past the delay, until the
 * fake has nothing outstanding, at most {@link Plan#rounds()} of them: a notification outstanding at the bound, or a
 * command still {@code ACKNOWLEDGED} after the last drain, is a failed run ({@link Result#findings()}), never a silent pass.
 */
public final class AdyenWebhooks {

    /**
     * How the harness plays Adyen's delivery.
     *
     * @param rounds the bound on delivery rounds (0: deliver nothing, the known-bad night whose outcomes never arrive)
     * @param delay how long a notification waits before it is sent (the clock moves this far before each round)
     * @param duplicateRate the probability each notification is posted twice (at-least-once delivery)
     * @param forgeOne whether the first round also posts one forged copy (outcome turned, genuine signature)
     */
    public record Plan(int rounds, Duration delay, double duplicateRate, boolean forgeOne) {

        /** The local night's: up to 5 rounds, a minute's delay, 20 % duplicated, one forged copy. */
        public static final Plan DEFAULT = new Plan(5, Duration.ofMinutes(1), 0.2, true);

        public Plan {
            if (rounds < 0 || delay.isNegative() || !(duplicateRate >= 0 && duplicateRate <= 1)) {
                throw new IllegalArgumentException("webhook plan: rounds >= 0, delay >= 0, duplicate rate 0..1; was "
                        + rounds + ", " + delay + ", " + duplicateRate);
            }
        }
    }

    /** What the phase did, and what it found wrong (empty: every notification delivered, every command out of ACKNOWLEDGED). */
    public record Result(RunReport.Webhooks webhooks, List<String> findings, List<String> acknowledged) {
        public Result {
            findings = List.copyOf(findings);
            acknowledged = List.copyOf(acknowledged);
        }
    }

    /** DynamoDB operations that write: the webhook path's cost is counted in these. */
    private static final List<String> WRITE_OPERATIONS = List.of("UpdateItem", "PutItem", "TransactWriteItems", "DeleteItem",
            "BatchWriteItem");
    /** How long one round's drain of the ingestion queue may take (a night's outcomes drain in seconds). */
    private static final Duration DRAIN_LIMIT = Duration.ofMinutes(10);

    private final LocalPipeline pipeline;
    private final ShiftableClock clock;
    private final Clock wall;
    private final Plan plan;
    private final Consumer<String> console;
    /** Builds the receiver for a queue URL: the real one, or (chaos mutants) one whose signature check is replaced. */
    private final java.util.function.Function<String, AdyenWebhookHandler> receivers;

    public AdyenWebhooks(LocalPipeline pipeline, ShiftableClock clock, Clock wall, Plan plan, Consumer<String> console) {
        this(pipeline, clock, wall, plan, console, pipeline::adyenWebhookHandler);
    }

    /** @param receivers the receiver handler for the ingestion queue's URL ({@link LocalPipeline#adyenWebhookHandler}) */
    public AdyenWebhooks(LocalPipeline pipeline, ShiftableClock clock, Clock wall, Plan plan, Consumer<String> console,
                         java.util.function.Function<String, AdyenWebhookHandler> receivers) {
        this.receivers = receivers;
        this.pipeline = pipeline;
        this.clock = clock;
        this.wall = wall;
        this.plan = plan;
        this.console = console;
    }

    /**
     * Runs the rounds against {@code queue} (the stack's ingestion queue, as the receiver's environment names it).
     *
     * @param writes the in-process handlers' DynamoDB requests so far, by operation (the run's request counter)
     */
    public Result run(LocalIngestQueue queue, java.util.function.Supplier<Map<String, Long>> writes) {
        AdyenFake adyen = pipeline.adyen().orElseThrow(() -> new IllegalStateException("the webhook phase is for --provider adyen only"));
        AdyenWebhookHandler receiver = receivers.apply(queue.url());
        String authorization = pipeline.adyenWebhookAuthorization();
        LongSupplier writesSoFar = () -> writes.get().entrySet().stream().filter(e -> WRITE_OPERATIONS.contains(e.getKey()))
                .mapToLong(Map.Entry::getValue).sum();
        long writesBefore = writesSoFar.getAsLong();
        int rounds = 0;
        int notifications = 0;
        int duplicates = 0;
        int forged = 0;
        int refused = 0;
        long events = 0;
        while (rounds < plan.rounds() && adyen.outstanding() > 0) {
            rounds++;
            clock.advance(plan.delay());
            AdyenFake.Sent sent = adyen.deliverWebhooks(body -> post(receiver, authorization, body), plan.delay().toMillis(), plan.duplicateRate(),
                    plan.forgeOne() && forged == 0);
            notifications += sent.notifications();
            duplicates += sent.duplicates();
            forged += sent.forged();
            // The forged copy is answered 401 too: counted with the genuine posts not answered 200.
            refused += sent.refused() + sent.forged();
            LocalEventSourceMapping.Drained drained = new LocalEventSourceMapping(queue, pipeline.lambdaEndpoint(), wall).drain(DRAIN_LIMIT);
            events += drained.deleted() + drained.reportedNeverDeleted().size();
            console.accept(String.format(java.util.Locale.ROOT, "adyen webhooks, round %d: %d notifications posted to the receiver "
                            + "(+%d duplicates, %d forged), %d not answered 200, %d outstanding; ingestion consumed %d provider.outcome events",
                    rounds, sent.notifications(), sent.duplicates(), sent.forged(), sent.refused() + sent.forged(), sent.leftDue(),
                    drained.deleted() + drained.reportedNeverDeleted().size()));
        }
        long dynamodbWrites = writesSoFar.getAsLong() - writesBefore;
        StoreSnapshot snapshot = StoreSnapshot.scan(pipeline.dynamo(), pipeline.tables());
        List<String> acknowledged = new ArrayList<>();
        long rejected = 0;
        for (Map<String, AttributeValue> command : snapshot.of(ReleaseCommands.SCHEMA)) {
            String status = command.get(ReleaseCommands.STATUS).s();
            if (ReleaseCommands.AWAITING_OUTCOME.contains(status)) {
                acknowledged.add(command.get(ReleaseCommands.OPERATION_ID).s());
            }
            rejected += ReleaseCommands.STATUS_REJECTED.equals(status) ? 1 : 0;
        }
        List<String> findings = new ArrayList<>();
        if (adyen.outstanding() > 0) {
            findings.add("adyen: " + adyen.outstanding() + " notifications still outstanding after " + rounds + " delivery rounds (bound "
                    + plan.rounds() + ")");
        }
        if (!acknowledged.isEmpty()) {
            findings.add("adyen: " + acknowledged.size() + " commands still ACKNOWLEDGED (outcome never applied), e.g. "
                    + acknowledged.subList(0, Math.min(3, acknowledged.size())));
        }
        findings.forEach(f -> console.accept("FINDING " + f));
        return new Result(new RunReport.Webhooks(rounds, notifications, duplicates, forged, refused, adyen.outstanding(), events,
                dynamodbWrites, acknowledged.size(), rejected), findings, acknowledged);
    }

    /** One POST to the function URL, as Lambda hands it to the receiver (payload format 2.0); the receiver's HTTP status. */
    private static int post(AdyenWebhookHandler receiver, String authorization, String body) {
        ObjectNode event = Json.mapper().createObjectNode().put("version", "2.0").put("rawPath", "/").put("body", body)
                .put("isBase64Encoded", false);
        // Payload 2.0 gives header names in lower case; Adyen sends the webhook's basic-auth credentials with each request.
        event.putObject("headers").put("content-type", "application/json").put("authorization", authorization);
        event.putObject("requestContext").putObject("http").put("method", "POST").put("path", "/");
        try {
            java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream();
            receiver.handleRequest(new java.io.ByteArrayInputStream(event.toString().getBytes(java.nio.charset.StandardCharsets.UTF_8)), out,
                    null);
            return Json.mapper().readTree(out.toByteArray()).path("statusCode").asInt();
        } catch (IOException e) {
            throw new UncheckedIOException("the webhook receiver could not read the function URL event", e);
        }
    }
}
