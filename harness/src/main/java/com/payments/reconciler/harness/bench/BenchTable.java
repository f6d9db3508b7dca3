package com.payments.reconciler.harness.bench;

import java.io.PrintWriter;
import java.util.Locale;
import java.util.Map;

/** The benchmark's one table, as {@code bin/reconciler bench} prints it. */
public final class BenchTable {

    private static final String RULE = "─".repeat(118);
    private final PrintWriter out;

    public BenchTable(PrintWriter out) {
        this.out = out;
    }

    public void print(BenchReport r) {
        out.println();
        out.println("engine: " + r.engine());
        out.println(RULE);
        out.printf("%-62s %16s %14s %-6s %s%n", "figure", "measured", "target", "", "kind");
        out.println(RULE);

        BenchReport.Fence f = r.fenceOverhead();
        row("fenced releases/s (real batched transaction, 33 per lease check)", fmt(f.fencedPerSecond(), 1), "", null, f.kind());
        row("unfenced releases/s (lease ConditionCheck removed)", fmt(f.unfencedPerSecond(), 1), "", null, f.kind());
        row("fence overhead: fenced/unfenced (median of " + f.repetitions() + " ABBA reps, range "
                + fmt(f.minRatio(), 2) + "–" + fmt(f.maxRatio(), 2) + ")", fmt(f.ratio(), 3), "≥ " + f.target(), f.met(), f.kind());

        BenchReport.PerHold h = r.requestsPerReleasedHold();
        out.println(RULE);
        out.printf(Locale.ROOT, "DynamoDB requests per released hold (largest complete window: %,d candidates, %,d released):%n",
                h.candidates(), h.releasedHolds());
        for (Map.Entry<String, Double> e : h.byOperation().entrySet()) {
            row("  " + e.getKey(), fmt(e.getValue(), 3), "", null, h.kind());
        }
        row("  total, idempotency records included", fmt(h.total(), 3), "≤ " + fmt(h.target(), 0), h.met(), h.kind());
        row("  total without idempotency records", fmt(h.excludingIdempotency(), 3), "", null, h.kind());
        row("  write / read request units per released hold", fmt((double) h.writeRequestUnits() / h.releasedHolds(), 2) + " / "
                + fmt(h.readRequestUnits() / h.releasedHolds(), 2), "", null, h.kind());

        BenchReport.Workflow w = r.workflow();
        out.println(RULE);
        out.printf(Locale.ROOT, "per 1,000 candidates (window of %,d), vs one Map iteration per authorisation (%s per authorisation):%n",
                w.candidates(), String.join(" → ", w.naivePerAuthorisation()));
        row("  state transitions  (naive " + fmt(w.naiveStateTransitionsPer1000(), 0) + ", ratio " + fmt(w.transitionRatioToNaive(), 4) + ")",
                fmt(w.stateTransitionsPer1000(), 2), "≤ " + fmt(w.transitionTarget(), 0), w.stateTransitionsPer1000() <= w.transitionTarget(), w.kind());
        row("  Lambda invocations (naive " + fmt(w.naiveLambdaInvocationsPer1000(), 0) + ", ratio " + fmt(w.invocationRatioToNaive(), 4) + ")",
                fmt(w.lambdaInvocationsPer1000(), 2), "≤ " + fmt(w.invocationTarget(), 0), w.lambdaInvocationsPer1000() <= w.invocationTarget(), w.kind());

        BenchReport.Scaling s = r.scaling();
        out.println(RULE);
        out.println("scaling (whole window: schedule event to execution closed):");
        for (BenchReport.Run run : s.runs()) {
            row(String.format(Locale.ROOT, "  %,d candidates: %s%s, %,.0f candidates/s, load avg %.1f→%.1f", run.candidates(),
                    run.status(), run.complete() ? " complete" : " INCOMPLETE", run.candidatesPerSecond(), run.loadAverageBefore(),
                    run.loadAverageAfter()), fmt(run.wallSeconds(), 1) + " s", "", null, s.kind());
            if (!run.complete()) {
                out.println("    did not complete: " + run.error());
            }
            InvocationProbe.PageHeap heap = run.pageHeap();
            row(String.format(Locale.ROOT, "    page handler heap, %d calls: peak in use / live after call (MB)", heap.calls()),
                    fmt(heap.peakInUseMb(), 0) + " / " + fmt(heap.liveAfterCallMb(), 0),
                    "< " + heap.lambdaMemoryMb() + " MB", heap.fits(), "local JVM (upper bound)");
        }
        for (BenchReport.Ratio ratio : s.ratios()) {
            row(String.format(Locale.ROOT, "  wall-time ratio %,d → %,d (×%s candidates)", ratio.from(), ratio.to(), fmt(ratio.sizeRatio(), 0)),
                    fmt(ratio.timeRatio(), 2), "≤ " + fmt(ratio.limit(), 1), ratio.met(), s.kind());
        }

        BenchReport.Contention c = r.leaseContention();
        out.println(RULE);
        out.printf(Locale.ROOT, "lease-item contention: %d shard writers × %d fenced releases, conflict model h = %s (fault layer):%n",
                c.workers(), c.transactionsPerWorker(), fmt(c.holdFraction(), 2));
        for (LeaseContention.Row row : c.rows()) {
            row(String.format(Locale.ROOT, "  K=%d fence replicas (%d writers each, p(conflict)=%s): tx/s, %s attempts/commit, %d gave up",
                    row.replicas(), row.writersPerReplica(), fmt(row.conflictProbability(), 2), fmt(row.attemptsPerCommit(), 2), row.gaveUp()),
                    fmt(row.transactionsPerSecond(), 1), "", null, c.kind());
        }

        out.println(RULE);
        out.println("cost per night, us-east-1 on-demand (counts per candidate of the largest window, scaled):");
        for (BenchReport.NightCost night : r.costPerNight()) {
            row(String.format(Locale.ROOT, "  %,d candidates, %s: SFN $%s + Lambda $%s + DynamoDB $%s", night.candidates(), night.design(),
                    fmt(night.dollars().stepFunctions(), 4), fmt(night.dollars().lambda(), 4), fmt(night.dollars().dynamodb(), 4)),
                    "$" + fmt(night.dollars().total(), 4), "", null, BenchReport.COUNT + " × price");
        }
        BenchReport.CapacityFigures cap = r.capacity();
        Capacity.Night night = cap.night();
        out.println(RULE);
        out.printf(Locale.ROOT, "capacity: provider quota %s requests/s, %d at once%s:%n", fmt(cap.quota(), 0),
                cap.maxConcurrentRequests(), cap.engineDeliveryPerSecond() == null ? ""
                        : String.format(Locale.ROOT, " (%s of the %s releases/s the largest window delivered unconstrained)",
                        fmt(cap.quotaOfEngine(), 2), fmt(cap.engineDeliveryPerSecond(), 1)));
        row(String.format(Locale.ROOT, "  %,d candidates: %s, %,d delivered in %s s at %s releases/s; utilisation", night.candidates(),
                night.status(), night.delivered(), fmt(night.seconds(), 1), fmt(night.deliveredPerSecond(), 1)),
                fmt(cap.utilisation(), 3), "≥ " + cap.utilisationTarget(), cap.utilisation() >= cap.utilisationTarget(), cap.kind());
        row(String.format(Locale.ROOT, "  429 answers: %,d of %,d provider requests", night.answers429(), night.providerRequests()),
                fmt(cap.share429(), 4), "≤ " + cap.share429Target(), cap.share429() <= cap.share429Target(), BenchReport.COUNT);
        row(String.format(Locale.ROOT, "  requests over the concurrency limit (peak %d at once)", night.peakConcurrent()),
                Long.toString(cap.overConcurrency()), "0", cap.overConcurrency() == 0, BenchReport.COUNT);
        Capacity.BacklogRecovery backlog = cap.backlog();
        row(String.format(Locale.ROOT, "  backlog %,d releases, %s× the %,d that fit in %s s: runs until drained, I1-I5 each",
                backlog.releasable(), fmt(backlog.backlogRatio(), 1), backlog.fitsPerRun(), fmt(backlog.budgetSeconds(), 0)),
                Integer.toString(backlog.runs().size()), "recovered", backlog.recovered(), BenchReport.COUNT);
        for (Capacity.Run run : backlog.runs()) {
            out.printf(Locale.ROOT, "    %s %s: %,d delivered, %,d left (declared), %,d PENDING; I1-I5 %s%n", run.execution(), run.status(),
                    run.delivered(), run.backlogLeft(), run.pendingInTables(), run.invariants());
        }
        BenchReport.Ingestion in = r.ingestion();
        out.println(RULE);
        out.printf(Locale.ROOT, "Ingestion: %,d events (%,d distinct, %,d published twice, %,d ends) through the local queue and "
                        + "IngestEvents: %,d accepted, %,d duplicates, %,d rejected, %,d dead-lettered%n", in.events(), in.distinctEvents(),
                in.duplicatesPublished(), in.endEvents(), in.accepted(), in.duplicates(), in.rejected(), in.deadLettered());
        row("  events per second (moto-bound)", fmt(in.eventsPerSecond(), 1), "", null, BenchReport.LOCAL_TIME);
        row(String.format(Locale.ROOT, "  DynamoDB writes per event (%,d refused by their condition)", in.conditionalFailures()),
                fmt(in.writeRequestsPerEvent(), 3), "≤ " + in.writeRequestsTarget(), in.met(), in.kind());
        row("  DynamoDB reads per event", fmt(in.readRequestsPerEvent(), 3), "", null, in.kind());
        row(String.format(Locale.ROOT, "  SQS requests per event (%,d send, %,d receive, %,d delete)", in.sqsSendRequests(),
                in.sqsReceiveRequests(), in.sqsDeleteRequests()), fmt(in.sqsRequestsPerEvent(), 3), "", null, in.kind());
        row("  IngestEvents invocations per event", fmt(in.lambdaInvocationsPerEvent(), 3), "", null, in.kind());
        row("  cost per million events, us-east-1 on-demand ($)", fmt(in.costPerMillionEvents().total(), 2), "", null,
                "DynamoDB " + fmt(in.costPerMillionEvents().dynamodb(), 2) + ", SQS " + fmt(in.costPerMillionEvents().sqs(), 2)
                        + ", Lambda " + fmt(in.costPerMillionEvents().lambdaRequests() + in.costPerMillionEvents().lambdaCompute(), 2));
        out.println(RULE);
        out.println(r.allTargetsMet() ? "all targets met" : "NOT all targets met (see ✗ above)");
        out.flush();
    }

    private void row(String figure, String measured, String target, Boolean met, String kind) {
        out.printf("%-62s %16s %14s %-6s %s%n", figure, measured, target, met == null ? "" : met ? "✓" : "✗", kind);
    }

    private static String fmt(double value, int decimals) {
        return String.format(Locale.ROOT, "%,." + decimals + "f", value);
    }
}
