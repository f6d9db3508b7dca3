package com.payments.reconciler.harness;

import com.payments.reconciler.cli.ExitCodes;

import com.payments.reconciler.delivery.FactsReader;
import com.payments.reconciler.reconcile.FencedWriter;
import com.payments.reconciler.workflow.Timing;
import com.fasterxml.jackson.databind.JsonNode;
import com.payments.reconciler.harness.bench.NaiveDesign;
import com.payments.reconciler.workflow.Json;
import com.payments.reconciler.workflow.WorkflowDefinition;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

/**
 * A small {@code bin/reconciler bench} on the local engines: the counts it reports must follow from the
 * shipped ASL, the invocations and the data (times are printed by the real benchmark, never asserted);
 * and every flag is validated before anything starts.
 */
class BenchCommandTest {

    private static final int SHARDS = 4;

    @Test
    void aSmallBenchReportsCountsThatFollowFromTheWorkflowAndTheData() throws Exception {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        int exit = HarnessCli.execute(new String[]{"bench", "--sizes", "500,100", "--fence-repetitions", "2", "--fence-releases", "20",
                "--writers", "4", "--replicas", "4,1", "--writer-transactions", "10", "--json",
                "--provider-quota", "20", "--capacity-seconds", "3", "--backlog-budget", "2", "--ingest-events", "200",
                "--work-dir", Path.of(System.getProperty("reconciler.target"), "bench-test").toString()},
                new PrintWriter(out), new PrintWriter(err));
        assertThat(exit).as(err.toString()).isZero();
        assertThat(Path.of(System.getProperty("reconciler.target"), "bench-test", HostedOutput.FILE)).as("the functions' metric lines")
                .content().contains("\"_aws\"");
        JsonNode report = Json.mapper().readTree(out.toString());

        JsonNode runs = report.path("scaling").path("runs");
        assertThat(runs).hasSize(2);
        assertThat(runs.get(0).path("candidates").asInt()).as("sizes run in increasing order").isEqualTo(100);
        for (JsonNode run : runs) {
            assertThat(run.path("status").asText()).isEqualTo("SUCCEEDED");
            assertThat(run.path("complete").asBoolean()).as("every candidate decided, every release delivered").isTrue();
            assertThat(run.path("decided").asLong()).isEqualTo(run.path("candidates").asLong());
            assertThat(run.path("delivered").asLong()).isEqualTo(run.path("releaseRequested").asLong());
            JsonNode calls = run.path("invocations");
            int pages = calls.path("ReconcilePage").asInt();
            int deliveries = calls.path("DeliverCommands").asInt();
            assertThat(calls.path("StartWindow").asInt()).as("the schedule event, delivered twice").isEqualTo(2);
            assertThat(calls.path("AcquireLease").asInt()).isEqualTo(1);
            assertThat(calls.path("ReleaseLease").asInt()).isEqualTo(1);
            assertThat(pages).isEqualTo(1);
            assertThat(deliveries).isEqualTo(SHARDS);
            assertThat(run.path("workflowInvocations").asLong()).isEqualTo(1 + pages + deliveries + 1);
            // ASL: 5 states once per window, ReconcilePage + MorePages per page call,
            // DeliverBatch + MoreInShard per delivery call, ShardDelivered once per shard.
            assertThat(run.path("stateTransitions").asLong()).isEqualTo(5 + 2L * pages + 2L * deliveries + SHARDS);
            assertThat(run.path("pageHeap").path("calls").asLong()).isEqualTo(pages);
            // The provider side in the JSON: the default adapter, its requests per released hold, no webhook path.
            assertThat(run.path("provider").path("adapter").asText()).isEqualTo("generic-http");
            assertThat(run.path("provider").path("requestsPerReleasedHold").asDouble()).isGreaterThanOrEqualTo(1.0);
            assertThat(run.path("provider").path("webhooks").isNull()).isTrue();
            assertThat(run.path("pageHeap").path("peakInUseMb").asDouble()).isPositive();
        }

        JsonNode holds = report.path("requestsPerReleasedHold");
        JsonNode largest = runs.get(1);
        long released = holds.path("releasedHolds").asLong();
        assertThat(released).isEqualTo(largest.path("releaseRequested").asLong()).isPositive();
        JsonNode requests = holds.path("requests");
        long decided = largest.path("decided").asLong();
        long queryPages = requests.path("candidate query pages").asLong();
        long batches = requests.path("settlement reads").asLong();
        assertThat(batches).as("one settlement read per batch of %d; a page's last batch may be short", FencedWriter.RELEASES_PER_TRANSACTION)
                .isBetween(ceil(decided, FencedWriter.RELEASES_PER_TRANSACTION), ceil(decided, FencedWriter.RELEASES_PER_TRANSACTION) + queryPages);
        assertThat(requests.path("release transactions").asLong()).as("one transaction per batch with something to release; no contention here")
                .isBetween(ceil(released, FencedWriter.RELEASES_PER_TRANSACTION), batches);
        assertThat(requests.path("index cleanup").asLong()).as("the bench's tables are loaded directly, so settled candidates are "
                + "still in the index: at most one cleanup transaction per batch").isBetween(1L, batches);
        assertThat(requests.path("delivery marks").asLong()).as("fenced marks in batches of %d, the rest at the end of each shard's call",
                FencedWriter.MARKS_PER_TRANSACTION).isBetween(ceil(released, FencedWriter.MARKS_PER_TRANSACTION),
                ceil(released, FencedWriter.MARKS_PER_TRANSACTION) + SHARDS);
        long deliveryCalls = largest.path("invocations").path("DeliverCommands").asLong();
        assertThat(Timing.DELIVERY_BATCH_SIZE).as("a delivery page is what one stamp transaction covers").isEqualTo(FencedWriter.MARKS_PER_TRANSACTION);
        assertThat(requests.path("first-attempt stamps").asLong()).as("the commands of each delivery page stamped before its "
                + "requests, one transaction per page of %d; a call's first page (partly stamped by the call before) and a round "
                + "reaching past a page's stamped prefix may add one each", Timing.DELIVERY_BATCH_SIZE)
                .isBetween(ceil(released, FencedWriter.MARKS_PER_TRANSACTION), ceil(released, Timing.DELIVERY_BATCH_SIZE) + 2 * deliveryCalls);
        assertThat(requests.path("idempotency records").asLong()).as("Powertools: in-progress record, then completed").isEqualTo(2 * released);
        assertThat(requests.path("delivery fact reads").asLong()).as("the facts of up to %d commands per read, fewer reads than one "
                + "per round of %d slots", FactsReader.AUTHORISATIONS_PER_READ, Timing.DELIVERY_PARALLELISM)
                .isBetween(ceil(released, FactsReader.AUTHORISATIONS_PER_READ), ceil(released, Timing.DELIVERY_PARALLELISM) - 1);
        assertThat(requests.path("candidate query pages").asLong()).isGreaterThanOrEqualTo(SHARDS);
        assertThat(requests.path("other").asLong()).as("StartWindow's Step Functions calls are not DynamoDB requests").isZero();
        long total = 0;
        for (JsonNode n : requests) {
            total += n.asLong();
        }
        assertThat(holds.path("total").asDouble()).isCloseTo((double) total / released, within(1e-9));
        assertThat(largest.path("dynamodbRequests").asLong()).isEqualTo(total);
        assertThat(holds.path("largestItemBytes").asLong()).as("the 1 KB per write unit assumption").isLessThan(1024);

        NaiveDesign naive = NaiveDesign.of(WorkflowDefinition.shipped());
        assertThat(naive.perAuthorisationStates()).containsExactly("ReconcilePage", "DeliverBatch", "ShardDelivered");
        assertThat(naive.perWindowStates()).containsExactly("MintOwnerId", "AcquireLease", "DeliverReleases", "ReleaseLease", "Done");
        JsonNode workflow = report.path("workflow");
        double n = largest.path("candidates").asDouble();
        assertThat(workflow.path("naiveStateTransitionsPer1000").asDouble()).isCloseTo((5 + 3 * n) * 1000 / n, within(1e-9));
        assertThat(workflow.path("naiveLambdaInvocationsPer1000").asDouble()).isCloseTo((2 + 2 * n) * 1000 / n, within(1e-9));
        assertThat(workflow.path("stateTransitionsPer1000").asDouble())
                .isCloseTo(largest.path("stateTransitions").asDouble() * 1000 / n, within(1e-9));

        JsonNode fence = report.path("fenceOverhead");
        assertThat(fence.path("fencedPerSecond").asDouble()).isPositive();
        assertThat(fence.path("unfencedPerSecond").asDouble()).isPositive();
        assertThat(fence.path("kind").asText()).isEqualTo("local-engine ratio");

        JsonNode contention = report.path("leaseContention").path("rows");
        assertThat(contention).hasSize(2);
        assertThat(contention.get(0).path("replicas").asInt()).isEqualTo(1);
        for (JsonNode row : contention) {
            assertThat(row.path("committed").asLong() + row.path("gaveUp").asLong()).as("every release decided or given up, none lost")
                    .isEqualTo(4 * 10);
        }
        JsonNode oneWriterPerReplica = contention.get(1);
        assertThat(oneWriterPerReplica.path("conflictProbability").asDouble()).isZero();
        assertThat(oneWriterPerReplica.path("conflictsInjected").asLong()).isZero();
        assertThat(oneWriterPerReplica.path("attemptsPerCommit").asDouble()).isEqualTo(1.0);
        assertThat(contention.get(0).path("conflictProbability").asDouble()).isCloseTo(1 - Math.pow(0.9, 3), within(1e-12));

        // Capacity: the night at the quota is reported as the provider saw it (its figures are times, printed, not asserted);
        // the backlog of 3x a 2 s budget at 20 requests/s (4 shards x 10 each) is drained by reruns with I1-I5 after each.
        JsonNode capacity = report.path("capacity");
        assertThat(capacity.path("quota").asDouble()).isEqualTo(20.0);
        assertThat(capacity.path("utilisation").asDouble()).isPositive();
        assertThat(capacity.path("share429").isNumber()).isTrue();
        assertThat(capacity.path("overConcurrency").asLong()).as("the split gives each call at most a quarter of the 32").isZero();
        assertThat(capacity.path("night").path("status").asText()).isEqualTo("SUCCEEDED");
        assertThat(capacity.path("night").path("peakConcurrent").asInt()).isBetween(1, 32);
        assertThat(capacity.path("night").path("invariants")).allSatisfy(held -> assertThat(held.asBoolean()).isTrue());
        JsonNode backlog = capacity.path("backlog");
        assertThat(backlog.path("releasable").asLong()).as("3 x 20/s x 2 s").isEqualTo(120);
        assertThat(backlog.path("fitsPerRun").asLong()).as("each shard plans 5/s x what is left of its 2 s").isBetween(1L, 40L);
        assertThat(backlog.path("backlogRatio").asDouble()).isGreaterThanOrEqualTo(3.0);
        JsonNode backlogRuns = backlog.path("runs");
        assertThat(backlogRuns.size()).as("the backlog takes more than one run").isGreaterThanOrEqualTo(3);
        JsonNode firstNight = backlogRuns.get(0);
        assertThat(firstNight.path("status").asText()).as("never a timeout").isEqualTo("SUCCEEDED");
        assertThat(firstNight.path("backlogLeft").asLong()).isPositive();
        assertThat(firstNight.path("pendingInTables").asLong()).as("what it declared is what the table holds").isEqualTo(firstNight.path("backlogLeft").asLong());
        long deliveredOverRuns = 0;
        for (JsonNode run : backlogRuns) {
            assertThat(run.path("status").asText()).isEqualTo("SUCCEEDED");
            assertThat(run.path("invariants")).hasSize(5).allSatisfy(held -> assertThat(held.asBoolean()).isTrue());
            deliveredOverRuns += run.path("delivered").asLong();
        }
        assertThat(backlogRuns.get(backlogRuns.size() - 1).path("pendingInTables").asLong()).isZero();
        assertThat(deliveredOverRuns).as("each release delivered once over the runs").isEqualTo(backlog.path("releasable").asLong());
        assertThat(backlog.path("recovered").asBoolean()).isTrue();

        // Ingestion through the local queue and IngestEvents. Every event's write is one conditional single-item
        // write, its refusal answered with the stored item (no read); only an end arriving before its create makes a
        // second write (the create completes the stub the end made). Each distinct event has exactly one write that succeeds.
        JsonNode ingestion = report.path("ingestion");
        long events = ingestion.path("events").asLong();
        long distinct = ingestion.path("distinctEvents").asLong();
        long writes = ingestion.path("writeRequests").asLong();
        assertThat(events).isBetween(150L, 260L).isEqualTo(distinct + ingestion.path("duplicatesPublished").asLong());
        assertThat(ingestion.path("duplicatesPublished").asLong()).as("the feed publishes some events twice").isPositive();
        assertThat(ingestion.path("endEvents").asLong()).as("some young authorisations voided or expired").isPositive();
        assertThat(ingestion.path("accepted").asLong()).as("every distinct event applied once").isEqualTo(distinct);
        assertThat(ingestion.path("duplicates").asLong()).isEqualTo(ingestion.path("duplicatesPublished").asLong());
        assertThat(ingestion.path("rejected").asLong()).isZero();
        assertThat(ingestion.path("deadLettered").asLong()).isZero();
        assertThat(ingestion.path("readRequests").asLong()).as("a refused condition returns the stored item: no read").isZero();
        long settlements = ingestion.path("settlementDeliveries").asLong();
        assertThat(settlements).as("some authorisations settled").isPositive();
        assertThat(writes).as("one write per event, one more per settlement delivered (its authorisation leaves the pending "
                + "index, unconditionally), one more for a create after its end or its settlement (it completes the stub)")
                .isBetween(events + settlements, events + 2 * settlements + ingestion.path("endEvents").asLong());
        assertThat(ingestion.path("conditionalFailures").asLong()).as("all conditional writes but each distinct event's applied one "
                + "were refused").isEqualTo(writes - distinct - settlements);
        assertThat(ingestion.path("writeRequestsPerEvent").asDouble()).isCloseTo((double) writes / events, within(1e-9))
                .isLessThanOrEqualTo(1.2);
        assertThat(ingestion.path("met").asBoolean()).isTrue();
        assertThat(ingestion.path("largestItemBytes").asLong()).as("the 1 KB per write unit assumption").isLessThan(1024);
        assertThat(ingestion.path("writeRequestUnitsPerEvent").asDouble()).as("every write under 1 KB: 1 WRU")
                .isCloseTo((double) writes / events, within(1e-9));
        long invocations = ingestion.path("invocations").asLong();
        assertThat(ingestion.path("sqsSendRequests").asLong()).as("SendMessageBatch of 10").isEqualTo(ceil(events, 10));
        assertThat(invocations).as("batches of at most 10").isGreaterThanOrEqualTo(ceil(events, 10));
        assertThat(ingestion.path("sqsReceiveRequests").asLong()).as("one receive per invocation, and the empty ones")
                .isGreaterThan(invocations);
        assertThat(ingestion.path("sqsDeleteRequests").asLong()).as("one DeleteMessageBatch per invocation with successes")
                .isBetween(ceil(events, 10), invocations);
        assertThat(ingestion.path("sqsRequestsPerEvent").asDouble()).isCloseTo((ingestion.path("sqsSendRequests").asDouble()
                + ingestion.path("sqsReceiveRequests").asDouble() + ingestion.path("sqsDeleteRequests").asDouble()) / events, within(1e-9));
        JsonNode perMillion = ingestion.path("costPerMillionEvents");
        assertThat(perMillion.path("dynamodb").asDouble()).as("WRU at $0.625 per million, no reads")
                .isCloseTo((double) writes / events * 0.625, within(1e-9));
        assertThat(perMillion.path("sqs").asDouble()).isCloseTo(ingestion.path("sqsRequestsPerEvent").asDouble() * 0.40, within(1e-9));
        assertThat(perMillion.path("lambdaRequests").asDouble()).isCloseTo((double) invocations / events * 0.20, within(1e-9));
        assertThat(ingestion.path("eventsPerSecond").asDouble()).isPositive();

        JsonNode nights = report.path("costPerNight");
        assertThat(nights).hasSize(6);
        for (int i = 0; i < nights.size(); i += 2) {
            assertThat(nights.get(i).path("design").asText()).isEqualTo("this design");
            assertThat(nights.get(i).path("dollars").path("total").asDouble())
                    .isLessThan(nights.get(i + 1).path("dollars").path("total").asDouble());
        }
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
            "--sizes|50|--sizes",
            "--sizes|1000,2000000|--sizes",
            "--sizes|ten|--sizes",
            "--fence-repetitions|1|--fence-repetitions",
            "--fence-releases|5|--fence-releases",
            "--writers|65|--writers",
            "--replicas|0|--replicas",
            "--writer-transactions|9|--writer-transactions",
            "--hold-fraction|1.5|--hold-fraction",
            "--settled-fraction|-0.1|--settled-fraction",
            "--provider-quota|3|--provider-quota",
            "--provider-concurrency|2|--provider-concurrency",
            "--capacity-seconds|1|--capacity-seconds",
            "--backlog-budget|601|--backlog-budget",
            "--ingest-events|5|--ingest-events",
            "--nights|1|--nights",
            "--nights|61|--nights",
    })
    void aBadValueExitsTwoNamingTheFlag(String flag, String value, String named) {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        int exit = HarnessCli.execute(new String[]{"bench", flag, value}, new PrintWriter(out), new PrintWriter(err));
        assertThat(exit).isEqualTo(ExitCodes.BAD_INPUT);
        assertThat(err.toString()).contains(named);
        assertThat(out.toString()).isEmpty();
    }

    private static long ceil(long n, int per) {
        return (n + per - 1) / per;
    }
}
