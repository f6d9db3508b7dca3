package com.payments.reconciler.harness;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import com.fasterxml.jackson.databind.JsonNode;
import com.payments.reconciler.workflow.Json;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/**
 * {@code bench --provider adyen --json}: each window's provider figures are in the JSON, not only on the console: the
 * adapter, the Adyen fake's requests per released hold, and the webhook path (notifications, provider.outcome events,
 * DynamoDB writes per event). The counts must follow from the data: one CANCELLATION notification per released hold
 * (the fake notifies once per idempotency key), at least one event per notification, nothing left ACKNOWLEDGED.
 * BenchCommandTest checks that a generic-http window carries its adapter and no webhook path.
 */
class BenchAdyenJsonTest {

    @Test
    void eachWindowCarriesTheProviderRequestsAndTheWebhookPathsWritesPerEvent() throws Exception {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        int exit = HarnessCli.execute(new String[]{"bench", "--provider", "adyen", "--sizes", "100", "--fence-repetitions", "2",
                "--fence-releases", "10", "--writers", "1", "--replicas", "1", "--writer-transactions", "10", "--json",
                "--capacity-seconds", "2", "--backlog-budget", "2", "--ingest-events", "100",
                "--work-dir", Path.of(System.getProperty("reconciler.target"), "bench-adyen-test").toString()},
                new PrintWriter(out), new PrintWriter(err));
        assertThat(exit).as(err.toString()).isZero();
        JsonNode runs = Json.mapper().readTree(out.toString()).path("scaling").path("runs");
        assertThat(runs).hasSize(1);
        JsonNode run = runs.get(0);
        System.out.println("bench --provider adyen window: " + run.path("provider"));
        long released = run.path("releaseRequested").asLong();
        assertThat(released).isPositive();
        JsonNode provider = run.path("provider");
        assertThat(provider.path("adapter").asText()).isEqualTo("adyen");
        long requests = provider.path("requests").asLong();
        assertThat(requests).as("one cancel at least per released hold").isGreaterThanOrEqualTo(released);
        assertThat(provider.path("requestsPerReleasedHold").asDouble()).isCloseTo(requests / (double) released, within(1e-9));
        JsonNode webhooks = provider.path("webhooks");
        assertThat(webhooks.isObject()).as("the Adyen window's webhook path: %s", provider).isTrue();
        assertThat(webhooks.path("notifications").asLong()).as("one CANCELLATION per released hold").isEqualTo(released);
        long events = webhooks.path("outcomeEvents").asLong();
        assertThat(events).as("each notification and duplicate accepted becomes an event")
                .isGreaterThanOrEqualTo(released).isEqualTo(released + webhooks.path("duplicates").asLong());
        assertThat(webhooks.path("writesPerEvent").asDouble()).isPositive()
                .isCloseTo(webhooks.path("dynamodbWrites").asLong() / (double) events, within(1e-9));
        assertThat(webhooks.path("acknowledgedLeft").asLong()).isZero();
        assertThat(run.path("delivered").asLong()).as("delivered by their notifications").isEqualTo(released);
    }
}
