package com.payments.reconciler.workflow;

/**
 * Environment variables the stack sets on the functions: names, ARNs and settings only, never
 * secrets (the provider credential is read at run time from Secrets Manager).
 * Table names: see {@link com.payments.reconciler.store.TableNames}.
 */
public final class EnvVars {

    private EnvVars() {
    }

    /** The lease's item key; one lease serialises all decisions of the job. */
    public static final String LEASE_NAME = "LEASE_NAME";
    /** StartWindow: the state machine it starts executions of. */
    public static final String STATE_MACHINE_ARN = "STATE_MACHINE_ARN";
    /** StartWindow: the schedule's IANA time zone, e.g. {@code UTC} or {@code Europe/London}. */
    public static final String SCHEDULE_TIME_ZONE = "SCHEDULE_TIME_ZONE";
    /** StartWindow: the schedule's local time of day, {@code HH:mm} (the window starts then; default 02:00). */
    public static final String SCHEDULE_LOCAL_TIME = "SCHEDULE_LOCAL_TIME";
    /** StartWindow: the grace period as an ISO-8601 duration, e.g. {@code PT72H}. */
    public static final String GRACE_PERIOD = "GRACE_PERIOD";
    /** StartWindow: shards of the sparse GSIs; IngestEvents: the shards it files a new pending authorisation under. */
    public static final String SHARDS = "SHARDS";
    /** StartWindow: decide but write nothing. */
    public static final String DRY_RUN = "DRY_RUN";
    /**
     * ReconcilePage and DeliverCommands: the ingestion dead-letter queue's URL, whose depth they read before releasing
     * ({@code reconcile.DeadLetterDepth}). Only SQS's redrive puts messages there: a message no code has seen.
     */
    public static final String INGEST_DEAD_LETTER_QUEUE_URL = "INGEST_DEAD_LETTER_QUEUE_URL";
    /**
     * IngestEvents: the refused-events queue's URL, where it sends the events it refuses (after writing their hold item).
     * Never read by a night: each refusal is covered exactly by its hold item.
     */
    public static final String INGEST_REFUSED_QUEUE_URL = "INGEST_REFUSED_QUEUE_URL";
    /** StartWindow: how many days back a window may be started (default 30). */
    public static final String WINDOW_HORIZON_DAYS = "WINDOW_HORIZON_DAYS";
    /** DeliverCommands: the provider's base URL. */
    public static final String PROVIDER_BASE_URL = "PROVIDER_BASE_URL";
    /** DeliverCommands: the Secrets Manager secret (ARN or name) holding the provider API key. */
    public static final String PROVIDER_SECRET_ID = "PROVIDER_SECRET_ID";

    /** DeliverCommands: the provider's request quota for the whole night, requests per second. */
    public static final String PROVIDER_REQUESTS_PER_SECOND = "PROVIDER_REQUESTS_PER_SECOND";
    /** DeliverCommands: the provider's limit on concurrent requests, for the whole night. */
    public static final String PROVIDER_MAX_CONCURRENT_REQUESTS = "PROVIDER_MAX_CONCURRENT_REQUESTS";

    /**
     * DeliverCommands: how long the provider keeps an idempotency key, an ISO-8601 duration (default {@code PT24H};
     * {@link ProviderKeyRetention}). A command first attempted longer ago is not sent again before the provider's status
     * lookup says its hold is still active.
     */
    public static final String PROVIDER_KEY_RETENTION = "PROVIDER_KEY_RETENTION";
    /** ReconcilePage: the release-surge guard's factor (surge.ReleaseSurgePolicy; CDK context releaseSurgeFactor). */
    public static final String RELEASE_SURGE_FACTOR = "RELEASE_SURGE_FACTOR";

    /**
     * ReconcilePage and DeliverCommands: how old the settlement feed's watermark may be when they release, an ISO-8601
     * duration (default {@code PT6H}; {@link MaxSettlementFeedLag}).
     */
    public static final String MAX_SETTLEMENT_FEED_LAG = "MAX_SETTLEMENT_FEED_LAG";

    /**
     * DeliverCommands: how long a command may stay ACKNOWLEDGED without the provider's outcome before the next delivery
     * escalates it ({@link ProviderOutcomeTimeout}).
     */
    public static final String PROVIDER_OUTCOME_TIMEOUT = "PROVIDER_OUTCOME_TIMEOUT";

    /**
     * DeliverCommands: which provider adapter it talks through, {@code generic-http} (default), {@code stripe}, ...
     * ({@code com.payments.reconciler.delivery.ProviderAdapters}).
     */
    public static final String PROVIDER_ADAPTER = "PROVIDER_ADAPTER";

    /** DeliverCommands with provider adyen: the Adyen merchant account every cancel names (stack context {@code merchantAccount}). */
    public static final String PROVIDER_MERCHANT_ACCOUNT = "PROVIDER_MERCHANT_ACCOUNT";
    /**
     * DeliverCommands with provider stripe: the mode the secret's key must be of, {@code live} or {@code test} (stack context
     * {@code providerKeyMode}, default live). Absent: only the key's form is checked (local runs).
     */
    public static final String PROVIDER_KEY_MODE = "PROVIDER_KEY_MODE";
    /** AdyenWebhook: the Secrets Manager secret (ARN or name) holding the webhook HMAC key, {@code {"hmacKey": "<hex>"}}. */
    public static final String WEBHOOK_HMAC_SECRET_ID = "WEBHOOK_HMAC_SECRET_ID";
    /** AdyenWebhook: the ingestion queue's URL, where each CANCELLATION becomes a {@code provider.outcome} event. */
    public static final String INGEST_QUEUE_URL = "INGEST_QUEUE_URL";

    public static final String DEFAULT_LEASE_NAME = "hold-release-reconciler";
}
