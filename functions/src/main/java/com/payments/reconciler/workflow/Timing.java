package com.payments.reconciler.workflow;

import java.time.Duration;

/**
 * One timing budget (docs/design.md §10): the Lambda timeouts and memory the CDK stack deploys, the lease and
 * renewal cadence the handlers use, the provider timeouts and the idempotency expiry. The ASL's
 * {@code TimeoutSeconds} and retry horizons are checked against these by {@code TimingBudgetTest}.
 */
public final class Timing {

    private Timing() {
    }

    /** How long a lease lasts without renewal; a paused worker loses it after this. */
    public static final Duration LEASE_DURATION = Duration.ofMinutes(5);
    /** A page task renews the lease when this much has passed since its last renewal. */
    public static final Duration LEASE_RENEW_INTERVAL = Duration.ofSeconds(60);
    /**
     * A delivery sends no provider request once less than this remains of its lease as last renewed (it renews first,
     * or stops): a request that leaves before then is answered or timed out ({@link #PROVIDER_CONNECT_TIMEOUT} +
     * {@link #PROVIDER_REQUEST_TIMEOUT}) before another worker may take over, with 3 s to spare for clocks.
     * {@code TimingBudgetTest} checks both, and that a renewal on its interval never comes this close.
     */
    public static final Duration LEASE_SEND_MARGIN = Duration.ofSeconds(10);
    /**
     * The oldest a command's facts (its authorisation's settlement and end) may be when its provider request leaves;
     * older ones are read again first, after any wait (pacing, Retry-After, backoff) or pause.
     */
    public static final Duration FACTS_MAX_AGE = Duration.ofSeconds(5);

    /**
     * How far ahead of our clock a settlement watermark may be and still vouch for the feed: clock skew between the
     * platform's publisher and Lambda. A watermark further ahead is a publisher's bug, and since the stored watermark
     * never moves back, trusting it would open the feed gate for good; it holds every release instead (FeedGate).
     */
    public static final Duration FEED_WATERMARK_MAX_AHEAD = Duration.ofMinutes(5);

    /**
     * The whole execution's limit (the ASL's top-level {@code TimeoutSeconds}): a run that has not finished
     * by then is TIMED_OUT, which the stack alarms on, long before the next night's run starts, so a stuck
     * run never holds the window open into the next one. Delivery keeps to the provider's quota: a million releases at
     * the stack's default of 40 requests/s take about 7 hours (decisions, batched 33 to a transaction, take far less), so
     * 10 hours; a backlog beyond the budget waits for the next run (ShardPlan).
     */
    public static final Duration EXECUTION_TIMEOUT = Duration.ofHours(10);
    /** How often the schedule starts a window. */
    public static final Duration SCHEDULE_PERIOD = Duration.ofDays(1);
    /** Scheduler may invoke up to this long after the nominal time (its flexible time window); the window id comes from the nominal time. */
    public static final Duration SCHEDULE_FLEXIBLE_WINDOW = Duration.ofMinutes(15);

    /** Lambda timeouts, as deployed. */
    public static final Duration START_WINDOW_TIMEOUT = Duration.ofSeconds(30);
    public static final Duration ACQUIRE_LEASE_TIMEOUT = Duration.ofSeconds(30);
    public static final Duration RECONCILE_PAGE_TIMEOUT = Duration.ofSeconds(120);
    public static final Duration DELIVER_COMMANDS_TIMEOUT = Duration.ofSeconds(120);
    public static final Duration RELEASE_LEASE_TIMEOUT = Duration.ofSeconds(30);
    /** IngestEvents: a batch of at most {@link #INGEST_BATCH_SIZE} single-item writes, each with the SDK's retries. */
    public static final Duration INGEST_EVENTS_TIMEOUT = Duration.ofSeconds(30);
    /** Messages per IngestEvents invocation (SQS's default and its maximum without a batching window). */
    public static final int INGEST_BATCH_SIZE = 10;
    /** AWS's advice for a queue a Lambda function consumes: a visibility timeout of at least six times its timeout. */
    public static final Duration INGEST_VISIBILITY_TIMEOUT = INGEST_EVENTS_TIMEOUT.multipliedBy(6);

    /** A task stops starting new work once less than this remains before its Lambda deadline. */
    public static final Duration DEADLINE_MARGIN = Duration.ofSeconds(20);

    /**
     * How long every task waits, at least, for a SnapStart version that is not ready (Inactive after 14 days without an
     * invocation, or recycled) before the night fails at that task: Lambda documents no bound, so minutes, kept short
     * enough that a run holding the lease renews it before it expires (TimingBudgetTest).
     */
    public static final Duration SNAPSTART_NOT_READY_PATIENCE = Duration.ofMinutes(3);

    /** Step Functions gives a Task this much longer than the Lambda's own timeout before States.Timeout. */
    public static final Duration TASK_TIMEOUT_SLACK = Duration.ofSeconds(10);

    /** Provider HTTP client: well under the delivery Lambda's timeout and its deadline margin. */
    public static final Duration PROVIDER_CONNECT_TIMEOUT = Duration.ofSeconds(2);
    public static final Duration PROVIDER_REQUEST_TIMEOUT = Duration.ofSeconds(5);
    /** How long the provider API key read from Secrets Manager is reused before it is read again (rotation). */
    public static final Duration PROVIDER_SECRET_TTL = Duration.ofMinutes(5);
    /**
     * How long the webhook receiver keeps the HMAC key it read from its secret: short, because a rotated key makes every
     * notification fail its check until it is read again (Adyen sends refused notifications again later), and long enough
     * that a burst of notifications costs one Secrets Manager read.
     */
    public static final Duration WEBHOOK_KEY_TTL = Duration.ofMinutes(1);

    /** Step Functions redrives an execution only within this long after it stopped (RedriveExecution). */
    public static final Duration REDRIVE_HORIZON = Duration.ofDays(14);

    /**
     * The oldest a PENDING command may be (from its creation, or from an operator's requeue) and still be
     * delivered automatically; an older one is ESCALATED to a person instead. It covers every
     * automatic redelivery path: the next nights (a schedule period, the flexible window and a whole
     * execution), reruns, and a redrive at the end of its horizon (an execution before it and one after).
     * {@code TimingBudgetTest} checks it against the ASL and the schedule's period and flexible window.
     */
    public static final Duration AUTOMATIC_DELIVERY_HORIZON = Duration.ofDays(16);

    /**
     * Idempotency records outlive every automatic delivery of their operation: a delivery starts only while
     * its command is younger than {@link #AUTOMATIC_DELIVERY_HORIZON}, and the first record was written no
     * earlier than the command, so the record is still there for any repeat — plus a day for the call in
     * flight at the horizon and its retries.
     */
    public static final Duration IDEMPOTENCY_EXPIRY = AUTOMATIC_DELIVERY_HORIZON.plusDays(1);

    /**
     * How much sooner than the provider's key retention (or our own {@link #IDEMPOTENCY_EXPIRY}) a command's first attempt
     * is treated as forgotten: the age is judged once before a command's first request of a call, and the call's
     * requests for it (its retries, a wait for its turn, a Retry-After up to {@link #THROTTLED_WITHOUT_PROGRESS_LIMIT}),
     * the workflow's retries of the call and the clocks of two companies must all still fall inside the provider's
     * retention. An hour covers them with room; a provider keeping keys for less than this is asked first every time.
     */
    public static final Duration PROVIDER_KEY_MARGIN = Duration.ofHours(1);

    /**
     * The contract breaker's memory: the last this many answers of a DeliverCommands call. One answer outside the
     * contract is the command's problem (it is quarantined); more than half of these answers outside it look like
     * the provider's (or its URL's), and the call stops and fails loudly.
     */
    public static final int CONTRACT_BREAKER_WINDOW = 20;

    /**
     * Answers outside the contract the breaker needs before it trips, however few answers came: enough that a
     * call's first unlucky answers do not stop a night, few enough that a broken provider stops a shard inside its
     * first round of requests (the round is the delivery parallelism, 8).
     */
    public static final int CONTRACT_BREAKER_MIN_VIOLATIONS = 5;

    /** In-function retries of DynamoDB conflicts/throttling before giving up as StoreContention. */
    public static final int STORE_MAX_ATTEMPTS = 6;
    public static final Duration STORE_BACKOFF_BASE = Duration.ofMillis(25);
    public static final Duration STORE_BACKOFF_CAP = Duration.ofSeconds(1);

    /** Lambda memory, as deployed (MB). */
    public static final int SMALL_FUNCTION_MEMORY_MB = 512;
    public static final int PAGE_FUNCTION_MEMORY_MB = 1024;

    /** Page sizes: candidates per ReconcilePage call, commands per DeliverCommands call. */
    public static final int RECONCILE_PAGE_SIZE = 250;
    /**
     * Candidates one ReconcilePage call decides at most (several index pages), so that a window costs
     * few Lambda invocations and state transitions; the deadline check stops a call earlier if needed.
     */
    public static final int RECONCILE_CANDIDATES_PER_CALL = 2000;
    /**
     * Commands per delivery page: what one fenced transaction stamps with their first attempt before any of them is sent
     * (the lease check and 99 updates fill a transaction's 100 items), so a page costs one stamp transaction, not two.
     */
    public static final int DELIVERY_BATCH_SIZE = 99;
    /** Concurrent provider calls inside one DeliverCommands invocation. */
    public static final int DELIVERY_PARALLELISM = 8;

    /**
     * The delivery Map's {@code MaxConcurrency} in the ASL (checked by {@code TimingBudgetTest}): at most this
     * many DeliverCommands calls of one execution run at once, which is what the provider quota is split by.
     */
    public static final int DELIVERY_MAP_CONCURRENCY = 4;

    /**
     * What a night keeps at the end of its execution budget ({@link #EXECUTION_TIMEOUT} from its start) after
     * the last delivery is started: that call with its provider-unavailable retries, then ReleaseLease with its
     * retries. Delivery plans to finish before it and leaves the rest PENDING, so a night with more
     * work than fits ends SUCCEEDED with a backlog instead of timing out. {@code TimingBudgetTest} checks it.
     */
    public static final Duration DELIVERY_FINISH_RESERVE = Duration.ofMinutes(45);

    /**
     * A shard throttled this long without one answer in between is treated as a provider that is down: the
     * call ends {@code ProviderUnavailable} (the workflow's bounded retries, keys intact), not a night of waiting.
     */
    public static final Duration THROTTLED_WITHOUT_PROGRESS_LIMIT = Duration.ofMinutes(15);

    /**
     * How much sending time a delivery call may make up: its token bucket holds this long's worth of its
     * share (at least one request), so time lost between rounds (the settlement read, marks, a page read) is caught
     * up instead of lowering the night's rate. The night's calls together then send at most
     * {@code quota × (window + PACING_CATCH_UP)} in any window: half of a provider bucket of one second's quota is
     * left for requests that arrive closer together than they were sent. docs/decisions.md, "Pacing makes up lost time".
     */
    public static final Duration PACING_CATCH_UP = Duration.ofMillis(500);

    /** The pause after a throttling answer that names no {@code Retry-After}. */
    public static final Duration THROTTLE_DEFAULT_PAUSE = Duration.ofSeconds(1);

    public static long taskTimeoutSeconds(Duration lambdaTimeout) {
        return lambdaTimeout.plus(TASK_TIMEOUT_SLACK).toSeconds();
    }
}
