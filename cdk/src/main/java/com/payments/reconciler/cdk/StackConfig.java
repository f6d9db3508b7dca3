package com.payments.reconciler.cdk;

import com.payments.reconciler.surge.ReleaseSurgePolicy;
import com.payments.reconciler.delivery.ProviderAdapters;
import com.payments.reconciler.window.WindowConfig;
import com.payments.reconciler.workflow.DeployTarget;
import com.payments.reconciler.workflow.EnvVars;
import com.payments.reconciler.workflow.InvalidInput;
import com.payments.reconciler.workflow.MaxSettlementFeedLag;
import com.payments.reconciler.workflow.ProviderKeyRetention;
import com.payments.reconciler.workflow.ProviderOutcomeTimeout;
import com.payments.reconciler.workflow.ProviderQuota;
import com.payments.reconciler.workflow.ReservedConcurrency;
import com.payments.reconciler.workflow.Timing;
import java.math.BigDecimal;
import java.net.URI;
import java.net.URISyntaxException;
import java.time.Clock;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalTime;
import java.time.ZoneId;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Function;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

/**
 * The deployment's settings, read from CDK context ({@code cdk.json}, overridden with {@code -c key=value}).
 * Every value is validated here, before any construct exists, with an error naming the context key; the
 * window settings then go through {@link WindowConfig} itself, so the stack cannot deploy a configuration
 * StartWindow would refuse at run time.
 *
 * @param namePrefix prefix of every physical name (tables, functions, state machine, schedule, secret)
 * @param window the schedule's zone and local time, grace period, shards, dry run and start horizon,
 *               exactly as StartWindow will read them back from its environment
 * @param providerBaseUrl the card provider's API base URL (https)
 * @param providerSecretName the Secrets Manager secret the stack creates for the provider API key
 * @param alarmEmail where alarms are e-mailed, if anywhere
 * @param providerQuota the card provider's quota for the whole night, DeliverCommands' environment (split by
 *                      {@link ProviderQuota} itself)
 * @param reserveConcurrency whether every function reserves {@link ReservedConcurrency#of} (off for an account whose
 *                           concurrency limit cannot leave 100 unreserved beside it)
 * @param providerKeyRetention how long the card provider keeps an idempotency key, DeliverCommands' environment: a
 *                             command first attempted longer ago is not re-sent before the provider's status lookup
 * @param maxSettlementFeedLag how old the settlement feed's watermark may be when a night decides or delivers,
 *                             ReconcilePage's and DeliverCommands' environment (docs/design.md, "Feed completeness")
 * @param releaseSurge the release-surge guard's factor (context {@code releaseSurgeFactor}), ReconcilePage's environment
 * @param capturedAfterReleaseThreshold captures after a delivered release in a day that raise CapturedAfterRelease
 *                                      (context {@code capturedAfterReleaseThreshold}, default 1)
 * @param existingTables the platform's own Authorisations and Settlements tables, if the stack is to use them
 *                       rather than create its own (docs/integration.md, "Bring your own tables")
 * @param provider the provider adapter DeliverCommands talks through ({@link ProviderAdapters}), DeliverCommands' environment
 * @param providerOutcomeTimeout how long a command may stay ACKNOWLEDGED without the provider's outcome before the next
 *                               delivery escalates it, DeliverCommands' environment
 */
public record StackConfig(String namePrefix, WindowConfig window, URI providerBaseUrl, String providerSecretName,
                          Optional<String> alarmEmail, ProviderQuota providerQuota, boolean reserveConcurrency,
                          boolean tableDeletionProtection, Optional<ExistingTables> existingTables,
                          ProviderKeyRetention providerKeyRetention, MaxSettlementFeedLag maxSettlementFeedLag,
                          ReleaseSurgePolicy releaseSurge, long capturedAfterReleaseThreshold, ProviderAdapters.Adapter provider,
                          ProviderOutcomeTimeout providerOutcomeTimeout) {

    public static final String NAME_PREFIX = "namePrefix";
    public static final String SCHEDULE_TIME_ZONE = "scheduleTimeZone";
    public static final String SCHEDULE_TIME = "scheduleTime";
    public static final String GRACE_PERIOD = "gracePeriod";
    public static final String SHARDS = "shards";
    public static final String DRY_RUN = "dryRun";
    public static final String WINDOW_HORIZON_DAYS = "windowHorizonDays";
    public static final String PROVIDER_BASE_URL = "providerBaseUrl";
    public static final String PROVIDER_SECRET_NAME = "providerSecretName";
    public static final String ALARM_EMAIL = "alarmEmail";
    public static final String PROVIDER_REQUESTS_PER_SECOND = "providerRequestsPerSecond";
    public static final String PROVIDER_MAX_CONCURRENT_REQUESTS = "providerMaxConcurrentRequests";
    public static final String PROVIDER_KEY_RETENTION = "providerKeyRetention";
    public static final String MAX_SETTLEMENT_FEED_LAG = "maxSettlementFeedLag";
    public static final String PROVIDER_OUTCOME_TIMEOUT = "providerOutcomeTimeout";
    public static final String PROVIDER = "provider";
    /** With provider=adyen: the Adyen merchant account (read by the stack, required only then). */
    public static final String MERCHANT_ACCOUNT = "merchantAccount";
    public static final String RESERVE_CONCURRENCY = "reserveConcurrency";
    public static final String TABLE_DELETION_PROTECTION = "tableDeletionProtection";
    public static final String AUTHORISATIONS_TABLE_ARN = "authorisationsTableArn";
    public static final String SETTLEMENTS_TABLE_ARN = "settlementsTableArn";
    public static final String BUSINESS_TABLES_KEY_ARN = "businessTablesKeyArn";
    public static final String RELEASE_SURGE_FACTOR = "releaseSurgeFactor";
    public static final String CAPTURED_AFTER_RELEASE_THRESHOLD = "capturedAfterReleaseThreshold";
    /** One capture after a delivered release in a day is already the sign that some merchant captures later than the grace. */
    public static final long DEFAULT_CAPTURED_AFTER_RELEASE_THRESHOLD = 1;

    /** Window settings: context key → the StartWindow environment variable it becomes. */
    private static final Map<String, String> WINDOW_KEYS = Ordered.map(
            Map.entry(SCHEDULE_TIME_ZONE, EnvVars.SCHEDULE_TIME_ZONE),
            Map.entry(SCHEDULE_TIME, EnvVars.SCHEDULE_LOCAL_TIME),
            Map.entry(GRACE_PERIOD, EnvVars.GRACE_PERIOD),
            Map.entry(SHARDS, EnvVars.SHARDS),
            Map.entry(DRY_RUN, EnvVars.DRY_RUN),
            Map.entry(WINDOW_HORIZON_DAYS, EnvVars.WINDOW_HORIZON_DAYS));

    public static final String DEFAULT_NAME_PREFIX = "reconciler-prod-";
    public static final String DEFAULT_PROVIDER_BASE_URL = DeployTarget.PLACEHOLDER_PROVIDER_BASE_URL;
    /** Secret names: Secrets Manager allows these characters; the prefix keeps environments apart. */
    private static final Pattern SECRET_NAME = Pattern.compile("[A-Za-z0-9/_+=.@-]{1,256}");
    /** Table, function, state machine and schedule names all accept this; 24 leaves room for the longest suffix. */
    private static final Pattern PREFIX = Pattern.compile("[A-Za-z0-9-]{0,24}");
    /** A refused schedule time names at most this many of the dates it does not exist on. */
    private static final int SHOWN_GAP_DATES = 3;
    private static final Pattern EMAIL = Pattern.compile("[^@\\s]+@[^@\\s]+\\.[^@\\s]+");
    /** A plain decimal: no exponent, sign, hex, NaN or Infinity, which Double.parseDouble would also take. */
    private static final Pattern DECIMAL = Pattern.compile("\\d{1,9}(\\.\\d{1,6})?");
    private static final Pattern INTEGER = Pattern.compile("\\d{1,9}");

    public StackConfig {
        requirePrefix(namePrefix);
    }

    private static void requirePrefix(String namePrefix) {
        if (!PREFIX.matcher(namePrefix).matches()) {
            throw new InvalidContext(NAME_PREFIX, "must be at most 24 letters, digits or '-', e.g. reconciler-prod-, was '" + namePrefix + "'");
        }
    }

    /** Defaults for every key, as documented in docs/deploy.md and written in cdk.json. */
    public static Map<String, String> defaults() {
        WindowConfig window = WindowConfig.defaults();
        Map<String, String> d = new LinkedHashMap<>();
        d.put(NAME_PREFIX, DEFAULT_NAME_PREFIX);
        d.put(SCHEDULE_TIME_ZONE, window.zone().getId());
        d.put(SCHEDULE_TIME, window.localTime().toString());
        d.put(GRACE_PERIOD, window.gracePeriod().toString());
        d.put(SHARDS, Integer.toString(window.shards()));
        // A first deploy decides and reports without writing or calling anyone: the provider URL below is a placeholder,
        // and a live night against it is refused (requireRealProviderWhenLive).
        d.put(DRY_RUN, "true");
        d.put(WINDOW_HORIZON_DAYS, Integer.toString(window.horizonDays()));
        d.put(PROVIDER_BASE_URL, DEFAULT_PROVIDER_BASE_URL);
        d.put(PROVIDER_SECRET_NAME, "");
        d.put(ALARM_EMAIL, "");
        d.put(PROVIDER_REQUESTS_PER_SECOND, plain(ProviderQuota.DEFAULT.requestsPerSecond()));
        d.put(PROVIDER_MAX_CONCURRENT_REQUESTS, Integer.toString(ProviderQuota.DEFAULT.maxConcurrentRequests()));
        d.put(PROVIDER_KEY_RETENTION, ProviderKeyRetention.DEFAULT.retention().toString());
        d.put(MAX_SETTLEMENT_FEED_LAG, MaxSettlementFeedLag.DEFAULT.lag().toString());
        d.put(PROVIDER_OUTCOME_TIMEOUT, ProviderOutcomeTimeout.DEFAULT.timeout().toString());
        d.put(PROVIDER, ProviderAdapters.DEFAULT.contextValue());
        // Off unless asked: a new account's concurrency cannot keep 100 unreserved beside the reservations.
        d.put(RESERVE_CONCURRENCY, "false");
        // Off for the first create, whose rollback must be able to delete the tables; on once the stack exists.
        d.put(TABLE_DELETION_PROTECTION, "false");
        d.put(AUTHORISATIONS_TABLE_ARN, "");
        d.put(SETTLEMENTS_TABLE_ARN, "");
        d.put(BUSINESS_TABLES_KEY_ARN, "");
        d.put(RELEASE_SURGE_FACTOR, plain(ReleaseSurgePolicy.DEFAULT_FACTOR));
        d.put(CAPTURED_AFTER_RELEASE_THRESHOLD, Long.toString(DEFAULT_CAPTURED_AFTER_RELEASE_THRESHOLD));
        return d;
    }

    /**
     * @param context the app's context lookup ({@code node.tryGetContext}); a missing or blank value takes
     *                its default. Values may be strings (from {@code -c}) or JSON numbers/booleans (cdk.json).
     */
    public static StackConfig fromContext(Function<String, Object> context) {
        return fromContext(context, Clock.systemUTC());
    }

    /**
     * As {@link #fromContext(Function)}, with the clock that says from when on the schedule time must exist
     * every day in its zone (see {@link #requireScheduleTimeExistsEveryDay}).
     */
    public static StackConfig fromContext(Function<String, Object> context, Clock clock) {
        Map<String, String> defaults = defaults();
        Function<String, String> value = key -> {
            Object raw = context.apply(key);
            String text = raw == null ? "" : raw.toString().trim();
            String fallback = defaults.get(key);
            return !text.isEmpty() ? text : fallback.isEmpty() ? null : fallback;
        };
        String prefix = value.apply(NAME_PREFIX);
        requirePrefix(prefix);
        String time = value.apply(SCHEDULE_TIME);
        if (!time.matches("\\d{2}:\\d{2}")) {
            // Cron has no seconds: a window start of 02:00:30 would never be the time the schedule fires.
            throw new InvalidContext(SCHEDULE_TIME, "must be a local time HH:mm such as 02:00, was '" + time + "'");
        }
        // StartWindow's own reader parses and range-checks the window settings, so the stack accepts exactly
        // what the function will; its errors name the variable, which maps back to the context key.
        Map<String, String> env = new LinkedHashMap<>();
        WINDOW_KEYS.forEach((key, envVar) -> env.put(envVar, value.apply(key)));
        WindowConfig window;
        try {
            window = WindowConfig.fromEnvironment(env);
        } catch (InvalidInput e) {
            String problem = e.getMessage().startsWith(e.field() + ": ") ? e.getMessage().substring(e.field().length() + 2) : e.getMessage();
            throw new InvalidContext(contextKeyOf(e.field()), problem);
        }
        requireScheduleTimeExistsEveryDay(window, clock.instant());
        URI provider = providerUrl(value.apply(PROVIDER_BASE_URL));
        requireRealProviderWhenLive(window, provider);
        String secretName = value.apply(PROVIDER_SECRET_NAME);
        if (secretName == null) {
            secretName = prefix + "provider-api-key";
        }
        if (!SECRET_NAME.matcher(secretName).matches()) {
            throw new InvalidContext(PROVIDER_SECRET_NAME, "must be 1-256 characters of letters, digits and /_+=.@-, was '" + secretName + "'");
        }
        Optional<String> email = Optional.ofNullable(value.apply(ALARM_EMAIL));
        email.ifPresent(e -> {
            if (!EMAIL.matcher(e).matches()) {
                throw new InvalidContext(ALARM_EMAIL, "must be an e-mail address such as payments-oncall@example.com, or empty for none, was '" + e + "'");
            }
        });
        ProviderQuota quota = providerQuota(value.apply(PROVIDER_REQUESTS_PER_SECOND), value.apply(PROVIDER_MAX_CONCURRENT_REQUESTS));
        ProviderKeyRetention keyRetention;
        try {
            keyRetention = ProviderKeyRetention.parse(value.apply(PROVIDER_KEY_RETENTION));
        } catch (IllegalArgumentException e) {
            throw new InvalidContext(PROVIDER_KEY_RETENTION, e.getMessage());
        }
        MaxSettlementFeedLag feedLag;
        try {
            feedLag = MaxSettlementFeedLag.parse(value.apply(MAX_SETTLEMENT_FEED_LAG));
        } catch (IllegalArgumentException e) {
            throw new InvalidContext(MAX_SETTLEMENT_FEED_LAG, e.getMessage());
        }
        if (feedLag.lag().compareTo(window.gracePeriod()) >= 0) {
            // now - lag must stay after every candidate's cutoff, or a feed that stopped before the cutoff would pass.
            throw new InvalidContext(MAX_SETTLEMENT_FEED_LAG, "must be shorter than " + GRACE_PERIOD + " (" + window.gracePeriod()
                    + "), was '" + value.apply(MAX_SETTLEMENT_FEED_LAG) + "'");
        }
        ProviderOutcomeTimeout outcomeTimeout;
        try {
            outcomeTimeout = ProviderOutcomeTimeout.parse(value.apply(PROVIDER_OUTCOME_TIMEOUT));
        } catch (IllegalArgumentException e) {
            throw new InvalidContext(PROVIDER_OUTCOME_TIMEOUT, e.getMessage());
        }
        ProviderAdapters.Adapter adapter;
        try {
            adapter = ProviderAdapters.parse(value.apply(PROVIDER));
        } catch (IllegalArgumentException e) {
            throw new InvalidContext(PROVIDER, e.getMessage() + " (the provider adapter DeliverCommands talks through)");
        }
        requireRetentionWithinProviders(adapter, keyRetention);
        String reserve = value.apply(RESERVE_CONCURRENCY);
        if (!reserve.equals("true") && !reserve.equals("false")) {
            throw new InvalidContext(RESERVE_CONCURRENCY, "must be true or false (false: no reserved concurrency, for an account "
                    + "whose concurrency limit cannot keep 100 unreserved beside " + ReservedConcurrency.total() + "), was '" + reserve + "'");
        }
        Optional<ExistingTables> existing = ExistingTables.fromContext(value.apply(AUTHORISATIONS_TABLE_ARN),
                value.apply(SETTLEMENTS_TABLE_ARN), value.apply(BUSINESS_TABLES_KEY_ARN));
        boolean protection = bool(value.apply(TABLE_DELETION_PROTECTION), TABLE_DELETION_PROTECTION,
                "true or false (true once the stack exists: a protected table cannot be deleted by the rollback of a failed first create)");
        String factorText = value.apply(RELEASE_SURGE_FACTOR);
        ReleaseSurgePolicy surge;
        try {
            if (!DECIMAL.matcher(factorText).matches()) {
                throw new IllegalArgumentException("releaseSurgeFactor must be " + ReleaseSurgePolicy.ACCEPTED_FORM + ", was '" + factorText + "'");
            }
            surge = ReleaseSurgePolicy.withFactor(factorText);
        } catch (IllegalArgumentException e) {
            throw new InvalidContext(RELEASE_SURGE_FACTOR, e.getMessage().replaceFirst("^releaseSurgeFactor ", ""));
        }
        String thresholdText = value.apply(CAPTURED_AFTER_RELEASE_THRESHOLD);
        if (!INTEGER.matcher(thresholdText).matches() || Long.parseLong(thresholdText) < 1) {
            throw new InvalidContext(CAPTURED_AFTER_RELEASE_THRESHOLD, "must be an integer of at least 1, e.g. 1 (captures after a "
                    + "delivered release in a day that raise the CapturedAfterRelease alarm), was '" + thresholdText + "'");
        }
        return new StackConfig(prefix, window, provider, secretName, email, quota, Boolean.parseBoolean(reserve), protection, existing,
                keyRetention, feedLag, surge, Long.parseLong(thresholdText), adapter, outcomeTimeout);
    }

    /**
     * A provider that documents how soon it may prune idempotency keys (Stripe: once at least 24 hours old) must not be
     * trusted with them longer: past its pruning a blind re-send could release twice, where the status lookup would ask.
     */
    static void requireRetentionWithinProviders(ProviderAdapters.Adapter adapter, ProviderKeyRetention retention) {
        adapter.documentedKeyRetention().ifPresent(documented -> {
            if (retention.retention().compareTo(documented) > 0) {
                throw new InvalidContext(PROVIDER_KEY_RETENTION, "must be at most " + documented + " with " + PROVIDER + "="
                        + adapter.contextValue() + " (the provider may prune idempotency keys that old), was " + retention.retention());
            }
        });
    }

    private static boolean bool(String text, String key, String form) {
        if (!text.equals("true") && !text.equals("false")) {
            throw new InvalidContext(key, "must be " + form + ", was '" + text + "'");
        }
        return Boolean.parseBoolean(text);
    }

    /**
     * The provider quota, each key checked by {@link ProviderQuota}'s own rule: the rate with a concurrency that is
     * always valid, then both together, so a refusal names the key that is wrong.
     */
    private static ProviderQuota providerQuota(String rpsText, String concurrentText) {
        String rpsForm = "a number of requests per second above 0 and at most " + plain(ProviderQuota.MAX_REQUESTS_PER_SECOND)
                + ", e.g. " + plain(ProviderQuota.DEFAULT.requestsPerSecond()) + " (the provider's quota for the whole night)";
        String concurrentForm = "an integer from " + Timing.DELIVERY_MAP_CONCURRENCY + " (one per concurrent delivery call) to "
                + ProviderQuota.MAX_CONCURRENT_REQUESTS + ", e.g. " + ProviderQuota.DEFAULT.maxConcurrentRequests()
                + " (the provider's limit on concurrent requests for the whole night)";
        if (!DECIMAL.matcher(rpsText).matches()) {
            throw new InvalidContext(PROVIDER_REQUESTS_PER_SECOND, "must be " + rpsForm + ", was '" + rpsText + "'");
        }
        double rps = Double.parseDouble(rpsText);
        try {
            new ProviderQuota(rps, Timing.DELIVERY_MAP_CONCURRENCY);
        } catch (IllegalArgumentException e) {
            throw new InvalidContext(PROVIDER_REQUESTS_PER_SECOND, "must be " + rpsForm + ", was '" + rpsText + "'");
        }
        if (!INTEGER.matcher(concurrentText).matches()) {
            throw new InvalidContext(PROVIDER_MAX_CONCURRENT_REQUESTS, "must be " + concurrentForm + ", was '" + concurrentText + "'");
        }
        try {
            return new ProviderQuota(rps, Integer.parseInt(concurrentText));
        } catch (IllegalArgumentException e) {
            throw new InvalidContext(PROVIDER_MAX_CONCURRENT_REQUESTS, "must be " + concurrentForm + ", was '" + concurrentText + "'");
        }
    }

    /** DeliverCommands' quota variables ({@link ProviderQuota#fromEnvironment} reads them back). */
    public Map<String, String> providerQuotaEnvironment() {
        Map<String, String> env = new LinkedHashMap<>();
        env.put(EnvVars.PROVIDER_REQUESTS_PER_SECOND, plain(providerQuota.requestsPerSecond()));
        env.put(EnvVars.PROVIDER_MAX_CONCURRENT_REQUESTS, Integer.toString(providerQuota.maxConcurrentRequests()));
        return env;
    }

    /** DeliverCommands' key retention variable ({@link ProviderKeyRetention#fromEnvironment} reads it back). */
    public Map<String, String> providerKeyRetentionEnvironment() {
        return providerKeyRetention.environment();
    }

    /** ReconcilePage's and DeliverCommands' feed lag variable ({@link MaxSettlementFeedLag#fromEnvironment} reads it back). */
    public Map<String, String> maxSettlementFeedLagEnvironment() {
        return maxSettlementFeedLag.environment();
    }

    /** DeliverCommands' outcome timeout variable ({@link ProviderOutcomeTimeout#fromEnvironment} reads it back). */
    public Map<String, String> providerOutcomeTimeoutEnvironment() {
        return providerOutcomeTimeout.environment();
    }

    /** DeliverCommands' adapter variable ({@link ProviderAdapters#fromEnvironment} reads it back). */
    public Map<String, String> providerAdapterEnvironment() {
        return Map.of(EnvVars.PROVIDER_ADAPTER, provider.contextValue());
    }

    /** 40.0 as "40", 2.5 as "2.5": how cdk.json and the environment write a rate. */
    private static String plain(double value) {
        return BigDecimal.valueOf(value).stripTrailingZeros().toPlainString();
    }

    /**
     * EventBridge Scheduler skips a cron time that does not exist on a daylight-saving day, silently, so a
     * schedule time in a gap of its zone (America/New_York at 02:00) would lose a night a year. Refused here,
     * naming the dates, rather than deployed (docs/decisions.md, "A schedule time must exist every day in its zone").
     */
    static void requireScheduleTimeExistsEveryDay(WindowConfig window, Instant from) {
        ZoneId zone = window.zone();
        LocalTime time = window.localTime();
        List<LocalDate> dates = DaylightSavingGaps.datesWithout(zone, time, from);
        if (dates.isEmpty()) {
            return;
        }
        String shown = dates.stream().limit(SHOWN_GAP_DATES).map(LocalDate::toString).collect(Collectors.joining(", "))
                + (dates.size() > SHOWN_GAP_DATES ? ", ..." : "");
        List<String> instead = new ArrayList<>();
        DaylightSavingGaps.nextTimeThatAlwaysExists(zone, time, from).map(LocalTime::toString).ifPresent(instead::add);
        DaylightSavingGaps.previousHourThatAlwaysExists(zone, time, from).map(LocalTime::toString).ifPresent(instead::add);
        throw new InvalidContext(SCHEDULE_TIME, "must be a local time HH:mm that exists every day in " + zone.getId()
                + " (" + SCHEDULE_TIME_ZONE + "), was '" + time + "': the clocks skip it for daylight saving on " + shown
                + ", and EventBridge Scheduler skips a time that does not exist, so those nights would not start"
                + (instead.isEmpty() ? "" : "; use e.g. " + String.join(" or ", instead)));
    }

    /**
     * A live night ({@code dryRun=false}) against the placeholder provider URL would be scheduled for 02:00 and fail
     * there: refused here, naming both keys (docs/decisions.md, "A first deploy leaves nothing behind").
     */
    static void requireRealProviderWhenLive(WindowConfig window, URI provider) {
        if (!window.dryRun() && provider.toString().equals(DeployTarget.PLACEHOLDER_PROVIDER_BASE_URL)) {
            throw new InvalidContext(PROVIDER_BASE_URL, "must be the card provider's real https URL when " + DRY_RUN + "=false, was the "
                    + "placeholder '" + DeployTarget.PLACEHOLDER_PROVIDER_BASE_URL + "': set " + PROVIDER_BASE_URL + " (cdk.json or -c), "
                    + "or keep " + DRY_RUN + "=true until it is known");
        }
    }

    /** The window settings as StartWindow's environment carries them ({@link WindowConfig#fromEnvironment} reads them back). */
    public Map<String, String> windowEnvironment() {
        return window.toEnvironment();
    }

    public String physicalName(String suffix) {
        return namePrefix + suffix;
    }

    private static String contextKeyOf(String envVar) {
        return WINDOW_KEYS.entrySet().stream().filter(e -> e.getValue().equals(envVar)).map(Map.Entry::getKey)
                .findFirst().orElse(envVar);
    }

    private static URI providerUrl(String text) {
        try {
            URI uri = new URI(text);
            if (!"https".equals(uri.getScheme()) || uri.getHost() == null) {
                throw new InvalidContext(PROVIDER_BASE_URL, "must be an https URL with a host, e.g. " + DEFAULT_PROVIDER_BASE_URL + ", was '" + text + "'");
            }
            return uri;
        } catch (URISyntaxException e) {
            throw new InvalidContext(PROVIDER_BASE_URL, "must be an https URL with a host, e.g. " + DEFAULT_PROVIDER_BASE_URL + ", was '" + text + "'");
        }
    }
}
