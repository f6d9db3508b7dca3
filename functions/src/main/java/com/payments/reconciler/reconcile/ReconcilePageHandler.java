package com.payments.reconciler.reconcile;

import com.amazonaws.services.lambda.runtime.Context;
import com.payments.reconciler.lease.LeaseStore;
import com.payments.reconciler.lease.LeaseToken;
import com.payments.reconciler.store.Backoff;
import com.payments.reconciler.store.TableNames;
import com.payments.reconciler.window.NightWindow;
import com.payments.reconciler.surge.NightRecords;
import com.payments.reconciler.surge.ReleaseSurgeGuard;
import com.payments.reconciler.surge.ReleaseSurgePolicy;
import com.payments.reconciler.surge.SurgeDecision;
import com.payments.reconciler.window.WindowId;
import com.payments.reconciler.workflow.Deadline;
import com.payments.reconciler.workflow.EmfMetrics;
import com.payments.reconciler.workflow.Fenced;
import com.payments.reconciler.workflow.HandlerEnvironment;
import com.payments.reconciler.workflow.JsonHandler;
import com.payments.reconciler.workflow.LambdaFunction;
import com.payments.reconciler.workflow.MaxSettlementFeedLag;
import com.payments.reconciler.workflow.Metrics;
import com.payments.reconciler.workflow.ReleaseSurge;
import com.payments.reconciler.workflow.StoreContention;
import com.payments.reconciler.workflow.Timing;
import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One step of the reconcile loop: renew the lease, then decide candidates older than the window's
 * cutoff, shard after shard of the {@code pending-by-age} index, in batches of
 * {@link FencedWriter#RELEASES_PER_TRANSACTION}: the batch's settlements are read first
 * ({@link SettlementCheck}), the settled ones counted and left out, the rest decided in one fenced
 * transaction ({@link FencedWriter#requestReleases}) — until {@link Timing#RECONCILE_CANDIDATES_PER_CALL}
 * candidates or the Lambda's deadline. Returns the cursor and running totals; the workflow loops while {@code more}.
 *
 * <p>A refused lease check ends the run at once ({@link Fenced}, never retried); contention that
 * outlived the in-function retries is {@link StoreContention}, which the workflow retries from the
 * same cursor — safe, because what committed has left the sparse index and what did not is decided
 * again. Dry runs read the settlements and write nothing: they count what would be released.
 */
public final class ReconcilePageHandler extends JsonHandler<PageRequest, PageState> {

    private static final Logger LOG = LoggerFactory.getLogger(ReconcilePageHandler.class);
    private final CandidateFinder finder;
    private final FencedWriter writer;
    private final SettlementCheck settlements;
    private final LeaseStore leases;
    private final ReleaseSurgeGuard surgeGuard;
    private final EmfMetrics metrics;
    private final Clock clock;
    private final FeedGate feed;
    private final HeldForFeed held;

    public ReconcilePageHandler() {
        this(HandlerEnvironment.fromSystem());
    }

    public ReconcilePageHandler(HandlerEnvironment env) {
        this(env, env.tables(), Backoff.standard());
    }

    private ReconcilePageHandler(HandlerEnvironment env, TableNames tables, Backoff backoff) {
        this(new CandidateFinder(env.aws().dynamo(), tables.authorisations()),
                new FencedWriter(env.aws().dynamo(), tables, backoff),
                new SettlementCheck(env.aws().dynamo(), tables.settlements(), backoff),
                new LeaseStore(env.aws().dynamo(), tables.leases(), Timing.LEASE_DURATION),
                new ReleaseSurgeGuard(new NightRecords(env.aws().dynamo(), tables.leases()), ReleaseSurgePolicy.fromEnvironment(env), env.clock()),
                EmfMetrics.toStdout(env.clock(), LambdaFunction.RECONCILE_PAGE.logicalName()), env.clock(),
                FeedGate.stored(env.aws().dynamo(), tables.settlements(), backoff, MaxSettlementFeedLag.fromEnvironment(env), env.clock()),
                new HeldForFeed(DeadLetterDepth.queue(env.aws().sqs(), env.required(com.payments.reconciler.workflow.EnvVars.INGEST_DEAD_LETTER_QUEUE_URL)),
                        NightWideHold.stored(env.aws().dynamo(), tables.settlements())));
    }

    /** {@code feed}: asked before this call commits any decision (FeedGate); {@code held}: asked for each batch (HeldForFeed). */
    public ReconcilePageHandler(CandidateFinder finder, FencedWriter writer, SettlementCheck settlements,
                                LeaseStore leases, ReleaseSurgeGuard surgeGuard, EmfMetrics metrics, Clock clock, FeedGate feed,
                                HeldForFeed held) {
        super(PageRequest.class);
        this.held = held;
        this.finder = finder;
        this.writer = writer;
        this.settlements = settlements;
        this.leases = leases;
        this.surgeGuard = surgeGuard;
        this.metrics = metrics;
        this.clock = clock;
        this.feed = feed;
    }

    @Override
    protected PageState handle(PageRequest request, Context context) {
        NightWindow window = request.window();
        LeaseToken lease = request.lease();
        Deadline deadline = Deadline.of(context);
        // Request tokens name this attempt: a retried task deciding the same batch must not reuse them.
        FencedWriter attempt = writer.forInvocation(context);
        Instant lastRenewal = renew(lease);
        // Before any decision of this call: a settlement not yet published would look like no settlement.
        try {
            feed.requireComplete("deciding window " + window.windowId());
        } catch (com.payments.reconciler.workflow.FeedNotComplete notComplete) {
            metrics.count(Metrics.FEED_NOT_COMPLETE, 1);
            LOG.error("{}", notComplete.getMessage());
            throw notComplete;
        }

        // Once per call, before its first decision: a message SQS moved to the dead-letter queue may be any hold's settlement.
        HeldForFeed.ForCall holds = held.forCall();
        if (holds.deadLetters().holds()) {
            LOG.warn("window {}: every due candidate of this call is held for feed: {}", window.windowId(), holds.deadLetters().why());
        }
        // A dry run writes nothing; any other call makes the depth's hold outlast the depth (NightWideHold).
        if (!window.dryRun() && held.record(holds, attempt, lease, clock.instant()) == NightWideHold.Outcome.RECORDED) {
            LOG.warn("window {}: recorded the night-wide hold {}: every night stays held until holds clear --night-wide",
                    window.windowId(), com.payments.reconciler.store.Tables.Settlements.NIGHT_WIDE_HOLD_KEY);
        }
        Cursor cursor = request.page().cursor() == null ? Cursor.startOf(0) : request.page().cursor();
        ReconcileTotals totals = request.page().totals().withPage();
        long before = totals.releaseRequested();
        long heldBefore = totals.heldForFeed();
        int decided = 0;
        boolean more = true;

        while (decided < Timing.RECONCILE_CANDIDATES_PER_CALL && !deadline.near()) {
            int limit = Math.min(Timing.RECONCILE_PAGE_SIZE, Timing.RECONCILE_CANDIDATES_PER_CALL - decided);
            CandidateFinder.Page page = finder.page(cursor.shard(), window.cutoff(), cursor.startKey(), limit);
            page.malformed().forEach(bad -> LOG.warn("skipped malformed authorisation {}: {}", bad.authorisationId(), bad.problem()));
            totals = totals.withMalformed(page.malformed().size()).withRead(page.candidates().size() + page.malformed().size());

            boolean stoppedEarly = false;
            List<Candidate> candidates = page.candidates();
            for (int from = 0; from < candidates.size(); from += FencedWriter.RELEASES_PER_TRANSACTION) {
                if (deadline.near()) {
                    stoppedEarly = true;
                    break;
                }
                if (clock.instant().isAfter(lastRenewal.plus(Timing.LEASE_RENEW_INTERVAL))) {
                    lastRenewal = renew(lease);
                }
                List<Candidate> batch = candidates.subList(from, Math.min(candidates.size(), from + FencedWriter.RELEASES_PER_TRANSACTION));
                totals = decide(attempt, lease, window, batch, totals, holds);
                cursor = Cursor.after(batch.getLast(), cursor.shard());
                decided += batch.size();
            }
            if (stoppedEarly) {
                break;
            }
            if (page.hasMore()) {
                cursor = Cursor.fromLastEvaluatedKey(cursor.shard(), page.nextKey());
            } else if (cursor.shard() + 1 < window.shards()) {
                cursor = Cursor.startOf(cursor.shard() + 1);
            } else {
                more = false;
                break;
            }
        }
        long committed = totals.releaseRequested() - before;
        if (committed > 0) {
            metrics.count(Metrics.RELEASES_REQUESTED, committed);
        }
        long heldNow = totals.heldForFeed() - heldBefore;
        if (heldNow > 0) {
            metrics.count(Metrics.HELD_FOR_FEED, heldNow);
        }
        LOG.info("window {} epoch {}: decided {} candidates this call ({} released), cursor {}, more {}",
                window.windowId(), lease.epoch(), decided, committed, cursor, more);
        if (!more && !window.dryRun()) {
            holdOnSurge(window, lease, totals);
        }
        return new PageState(more ? cursor : null, more, totals, PageState.allShards(window.shards()));
    }

    /**
     * Decides one batch: candidates that already settled are counted and left out (one failed settlement check
     * would cancel the batch's transaction); the rest go in one fenced transaction, split only on cancellation.
     */
    private ReconcileTotals decide(FencedWriter attempt, LeaseToken lease, NightWindow window, List<Candidate> batch,
                                   ReconcileTotals totals, HeldForFeed.ForCall holds) {
        List<String> ids = batch.stream().map(Candidate::authorisationId).toList();
        // A settlement IngestEvents refused never reached Settlements: its hold stands in for it (docs/design.md, "Held for
        // feed"). Both are read in one request.
        SettlementCheck.BatchRead read = settlements.settledAndPresent(ids, holds.keysFor(ids));
        Set<String> settled = read.settled();
        Set<String> heldForFeed = holds.heldAmong(ids, read.present());
        List<Candidate> releasable = new ArrayList<>();
        List<Candidate> settledInIndex = new ArrayList<>();
        for (Candidate candidate : batch) {
            if (!HoldValidity.dueInWindow(candidate, window.gracePeriod(), window.windowStart())) {
                // Valid longer than the grace period (holdUntil): it stays in the index, and a later night decides it.
                LOG.info("not due before its holdUntil {}: {}", candidate.holdUntil().orElseThrow(), candidate.authorisationId());
                continue;
            }
            if (settled.contains(candidate.authorisationId())) {
                if (!window.dryRun()) {
                    settledInIndex.add(candidate);
                }
                totals = window.dryRun() ? totals.withDryRunDecision(true) : totals.with(new ReleaseOutcome.Settled(candidate.authorisationId()));
            } else if (heldForFeed.contains(candidate.authorisationId())) {
                // Dry runs too: a night that would release it is exactly what the hold prevents. It stays in the index.
                LOG.warn("held for feed, not released: {}", candidate.authorisationId());
                totals = totals.withHeldForFeed();
            } else if (window.dryRun()) {
                LOG.info("dry run: would release {}", candidate.authorisationId());
                totals = totals.withDryRunDecision(false);
            } else {
                releasable.add(candidate);
            }
        }
        if (!releasable.isEmpty()) {
            totals = requestReleases(attempt, lease, window, releasable, totals);
        }
        if (!settledInIndex.isEmpty()) {
            // After the releases: the cleanup only saves later nights' reads and must never hold up a decision.
            totals = leaveIndex(attempt, lease, settledInIndex, totals);
        }
        return totals;
    }

    /** A settled authorisation is never released: out of the index, so no later night reads it (a dry run writes nothing). */
    private ReconcileTotals leaveIndex(FencedWriter attempt, LeaseToken lease, List<Candidate> settledInIndex, ReconcileTotals totals) {
        return switch (attempt.removeSettledFromIndex(lease, settledInIndex)) {
            case FencedWriter.IndexCleanup.Fenced fenced -> {
                metrics.count(Metrics.FENCED_REFUSALS, 1);
                throw new Fenced("lease " + lease.leaseName() + " refused epoch " + lease.epoch() + " for the index cleanup of "
                        + settledInIndex.size() + " settled authorisations: newer epoch " + fenced.currentEpoch() + " held by " + fenced.currentOwner());
            }
            case FencedWriter.IndexCleanup.Removed removed -> totals.withLeftIndex(removed.removed());
        };
    }

    private ReconcileTotals requestReleases(FencedWriter attempt, LeaseToken lease, NightWindow window, List<Candidate> releasable,
                                            ReconcileTotals totals) {
        List<ReleaseOutcome> outcomes = attempt.requestReleases(lease, releasable, window.windowId(), window.cutoff(), clock.instant());
        for (int i = 0; i < outcomes.size(); i++) {
            Candidate candidate = releasable.get(i);
            totals = switch (outcomes.get(i)) {
                case ReleaseOutcome.Fenced fenced -> {
                    metrics.count(Metrics.FENCED_REFUSALS, 1);
                    throw new Fenced("lease " + lease.leaseName() + " refused epoch " + lease.epoch() + " for "
                            + candidate.authorisationId() + ": newer epoch " + fenced.currentEpoch() + " held by " + fenced.currentOwner());
                }
                case ReleaseOutcome.Contention contention -> throw new StoreContention(
                        "deciding " + candidate.authorisationId() + " met contention after in-function retries: " + contention.detail());
                case ReleaseOutcome.Malformed bad -> {
                    LOG.warn("skipped malformed authorisation {}: {}", bad.authorisationId(), bad.problem());
                    yield totals.with(bad);
                }
                case ReleaseOutcome outcome -> totals.with(outcome);
            };
        }
        return totals;
    }

    /**
     * The release-surge gate, once the window's decisions are done and before delivery: a held night hands the lease
     * back (so the operator's rerun after {@code approve} need not wait for it to expire) and ends in ReleaseSurge,
     * its commands PENDING. A dry run delivers nothing and is not judged.
     */
    private void holdOnSurge(NightWindow window, LeaseToken lease, ReconcileTotals totals) {
        SurgeDecision.Verdict verdict = surgeGuard.check(WindowId.parse(window.windowId(), "windowId"), totals.releaseRequested(),
                totals.candidatesRead());
        metrics.count(Metrics.RELEASE_SURGE_HELD, verdict instanceof SurgeDecision.Verdict.Hold ? 1 : 0);
        if (verdict instanceof SurgeDecision.Verdict.Hold hold) {
            leases.release(lease, clock.instant());
            throw new ReleaseSurge(hold.message(window.windowId()));
        }
    }

    private Instant renew(LeaseToken lease) {
        Instant now = clock.instant();
        leases.renew(lease, now);
        return now;
    }

}
