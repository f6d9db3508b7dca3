package com.payments.reconciler.workflow;

/**
 * CloudWatch metric names the functions emit (Embedded Metric Format log lines, no API call) and
 * the stack alarms on. One definition, used by both.
 */
public final class Metrics {

    private Metrics() {
    }

    public static final String NAMESPACE = "HoldReleaseReconciler";

    public static final String DUPLICATE_STARTS_SUPPRESSED = "DuplicateStartsSuppressed";
    public static final String RELEASES_REQUESTED = "ReleasesRequested";
    public static final String FENCED_REFUSALS = "FencedRefusals";
    public static final String DELIVERIES = "Deliveries";
    public static final String DELIVERY_REJECTED = "DeliveryRejected";
    /** Commands not delivered because their authorisation had settled by the time of delivery. */
    public static final String DELIVERY_CANCELLED_SETTLED = "DeliveryCancelledSettled";
    /** Commands not sent because their authorisation was voided or expired after the decision. */
    public static final String DELIVERY_CANCELLED_ENDED = "DeliveryCancelledEnded";
    /** Commands parked because the provider answered outside its contract: alarmed on. */
    public static final String DELIVERY_QUARANTINED = "DeliveryQuarantined";
    /** Commands parked because they outlived automatic delivery: alarmed on. */
    public static final String DELIVERY_ESCALATED = "DeliveryEscalated";
    /** Commands an asynchronous provider (Adyen) took: ACKNOWLEDGED, outcome awaited in its webhook. */
    public static final String DELIVERY_ACKNOWLEDGED = "DeliveryAcknowledged";
    /** ACKNOWLEDGED commands escalated for an outcome overdue (providerOutcomeTimeout); also counted in DeliveryEscalated. */
    public static final String OUTCOME_OVERDUE = "DeliveryOutcomeOverdue";
    /** Webhook notifications the receiver refused: unsigned, badly signed or malformed (alarmed on: a forger, or a key out of step). */
    public static final String WEBHOOK_REFUSED = "WebhookRefused";
    /** Provider outcomes (CANCELLATION notifications) the receiver put on the ingestion queue. */
    public static final String WEBHOOK_OUTCOMES = "WebhookOutcomes";
    /**
     * PENDING commands a shard's delivery left for the next run because the night's budget could not fit them
     * at the provider's quota: alarmed on; the night still ends SUCCEEDED.
     */
    public static final String BACKLOG_LEFT = "BacklogLeft";
    /** Provider answers 429/503 (throttling) delivery met; their Retry-After was honoured. */
    public static final String PROVIDER_THROTTLED = "ProviderThrottled";
    public static final String SUPERSEDED_RUNS = "SupersededRuns";
    /**
     * A ReconcilePage or DeliverCommands call refused to release because the settlement feed's watermark was older than
     * maxSettlementFeedLag (FeedGate): alarmed on; the execution fails with FeedNotComplete.
     */
    public static final String FEED_NOT_COMPLETE = "FeedNotComplete";

    /**
     * Due candidates a ReconcilePage call did not release because IngestEvents refused a settlement that could concern
     * them (HeldForFeed: their own hold, or the night-wide one). On the dashboard; the operator's step is in docs/operating.md.
     */
    public static final String HELD_FOR_FEED = "HeldForFeed";

    /**
     * Per completed night (ReleaseLease, once per run), the divergence a team watches in dry run before trusting the job
     *: candidates decided, releases a dry run would have requested, releases requested, and commands whose
     * authorisation settled after the decision and before the provider call (cancelled at delivery).
     */
    public static final String NIGHT_CANDIDATES = "NightCandidates";
    public static final String NIGHT_WOULD_RELEASE = "NightWouldRelease";
    public static final String NIGHT_RELEASED = "NightReleased";
    /** ReconcilePage, once per night: 1 when the release-surge guard held the night's delivery, else 0. */
    public static final String RELEASE_SURGE_HELD = "ReleaseSurgeHeld";
    /**
     * IngestEvents: settlements stored for an authorisation whose release the provider had confirmed (DELIVERED): the
     * hold was released and the merchant captured anyway, the sign that the grace is too short for some merchants.
     */
    public static final String CAPTURED_AFTER_RELEASE = "CapturedAfterRelease";
    public static final String NIGHT_SETTLED_AFTER_DECISION = "NightSettledAfterDecision";

    /** IngestEvents (docs/integration.md): events written, already applied, refused (to the DLQ), left for SQS to retry. */
    public static final String INGEST_ACCEPTED = "IngestAccepted";
    public static final String INGEST_DUPLICATES = "IngestDuplicates";
    public static final String INGEST_REFUSED = "IngestRefused";
    /** Of the refused, those that looked like cardholder data. */
    public static final String INGEST_REFUSED_CARD_DATA = "IngestRefusedCardData";
    public static final String INGEST_RETRIED = "IngestRetried";
    /** DynamoDB write requests ingestion made, failed conditions included (the target is at most 1.2 per event). */
    public static final String INGEST_WRITES = "IngestWrites";
}
