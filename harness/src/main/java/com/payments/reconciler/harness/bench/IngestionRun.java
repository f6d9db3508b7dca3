package com.payments.reconciler.harness.bench;

import com.payments.reconciler.audit.StoreSnapshot;
import com.payments.reconciler.harness.ingest.LocalIngestQueue;
import com.payments.reconciler.harness.ingest.PlatformFeed;
import com.payments.reconciler.harness.local.LocalPipeline;
import com.payments.reconciler.harness.local.LocalRun;
import com.payments.reconciler.harness.local.SyntheticData;
import com.payments.reconciler.harness.local.SyntheticEvents;
import com.payments.reconciler.workflow.LambdaFunction;
import java.time.Clock;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;

/**
 * The bench's ingestion section: the synthetic data as a card platform's events (authorisations created, some voided
 * or expired, settlements; some published twice; shuffled, so ends and settlements often come before their
 * authorisation), published to the local queue and consumed by the harness's event source mapping through the real
 * IngestEvents, as {@code bin/reconciler local} does. Requests are counted as exchanged ({@link IngestionLedger} on
 * the handler's DynamoDB client and on the queue's SQS client), never taken from the function's own report.
 */
final class IngestionRun {

    /** Of the authorisations, the fraction young enough to be voided or expired by an event (as in a real feed). */
    static final double YOUNG_FRACTION = 0.2;
    private static final String QUEUE_PREFIX = "bench-";

    /**
     * @param settlementDeliveries settlement messages published, duplicates included: each makes one more, unconditional,
     *                             write (its authorisation leaves the pending index)
     * @param ends void and expiry events among the distinct ones (each may arrive before its create, which then
     *             completes the ended item: one more write)
     * @param handlerSeconds IngestEvents' time in the handler, summed over its invocations (local engine)
     */
    record Result(int authorisations, long published, long distinct, long duplicatesPublished, long ends, long settlementDeliveries, PlatformFeed.Tally tally,
                  double wallSeconds, double handlerSeconds, IngestionLedger.Snapshot requests) {
    }

    private final Clock wall;

    IngestionRun(Clock wall) {
        this.wall = wall;
    }

    /** Runs on a reset pipeline whose handlers' DynamoDB client carries {@code ledger}. */
    Result run(LocalPipeline pipeline, IngestionLedger ledger, int events, double settledFraction, long seed, Instant cutoff) {
        // A created event per authorisation, a settlement for the settled ones, an end for some young ones: about
        // 1 + settledFraction events each; the count published is reported as it is.
        int authorisations = (int) Math.max(1, Math.round(events / (1 + settledFraction + YOUNG_FRACTION * 0.2)));
        SyntheticEvents data = new SyntheticData(authorisations, settledFraction, YOUNG_FRACTION, seed).events(cutoff);
        InvocationProbe probe = new InvocationProbe(() -> pipeline.writeLog().clear());
        AtomicReference<IngestionLedger.Snapshot> counted = new AtomicReference<>();
        AtomicReference<Double> seconds = new AtomicReference<>();
        try (LocalIngestQueue queue = LocalIngestQueue.create(pipeline.engineEndpoint(), QUEUE_PREFIX,
                LocalRun.localMapping(LocalPipeline.Hosting.IN_PROCESS), List.of(ledger))) {
            pipeline.writeLog().clear();
            pipeline.hook(probe);
            ledger.reset();
            long started = System.nanoTime();
            PlatformFeed.Tally tally = new PlatformFeed(queue, pipeline.lambdaEndpoint(), wall).feed(data.bodies(), 0, () -> {
                // Counted before the harness's own scan of the tables, which is no part of ingestion.
                counted.set(ledger.snapshot());
                seconds.set((System.nanoTime() - started) / 1e9);
                return StoreSnapshot.scan(pipeline.dynamo(), pipeline.tables());
            });
            pipeline.hook(null);
            long settlementDeliveries = data.bodies().stream().filter(b -> b.contains("\"settlement.posted\"")).count();
            return new Result(authorisations, data.published(), data.distinct(), data.duplicates(), data.ends(), settlementDeliveries, tally, seconds.get(),
                    probe.handlerSeconds().get(LambdaFunction.INGEST_EVENTS), counted.get());
        }
    }
}
