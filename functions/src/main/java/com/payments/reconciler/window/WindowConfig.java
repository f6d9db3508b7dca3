package com.payments.reconciler.window;

import com.payments.reconciler.workflow.EnvVars;
import com.payments.reconciler.workflow.HandlerEnvironment;
import com.payments.reconciler.workflow.InvalidInput;
import java.time.DateTimeException;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalTime;
import java.time.ZoneId;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The deployed configuration a window's execution input is computed from (StartWindow's environment,
 * set by the CDK stack from {@code cdk.json} context; the CLI's flags locally).
 *
 * <p>The window starts at the schedule's local time on its date ({@link #windowStart}), not at the
 * instant a delivery happened to carry: every delivery, manual start and rerun of one window then
 * produces byte-identical input, and a changed schedule minute cannot split one window into two.
 * On a daylight-saving day the local time is resolved the way {@link java.time.ZonedDateTime} does
 * (in a gap it moves forward by the gap's length; in an overlap the earlier offset), which is a pure
 * function of the date, so it is as deterministic as any other day (docs/decisions.md, "Window start").
 *
 * <p>Defaults (an unset or blank variable): {@code SCHEDULE_TIME_ZONE=UTC}, {@code SCHEDULE_LOCAL_TIME=02:00},
 * {@code GRACE_PERIOD=PT72H}, {@code SHARDS=4}, {@code DRY_RUN=false}, {@code WINDOW_HORIZON_DAYS=30}.
 *
 * @param zone the schedule's time zone
 * @param localTime the schedule's local time of day
 * @param gracePeriod how long settlements may take to arrive; cutoff = windowStart - gracePeriod
 * @param shards shards of the sparse GSIs
 * @param dryRun decide and report, change nothing
 * @param horizonDays how far back a window may still be started
 */
public record WindowConfig(ZoneId zone, LocalTime localTime, Duration gracePeriod, int shards, boolean dryRun, int horizonDays) {

    public static final ZoneId DEFAULT_ZONE = ZoneId.of("UTC");
    public static final LocalTime DEFAULT_LOCAL_TIME = LocalTime.of(2, 0);
    public static final Duration DEFAULT_GRACE_PERIOD = Duration.ofHours(72);
    public static final int DEFAULT_SHARDS = 4;
    public static final int DEFAULT_HORIZON_DAYS = 30;
    public static final int MAX_HORIZON_DAYS = 365;

    public WindowConfig {
        if (zone == null) {
            throw new InvalidInput(EnvVars.SCHEDULE_TIME_ZONE, "required, an IANA time zone such as UTC or Europe/London");
        }
        if (localTime == null) {
            throw new InvalidInput(EnvVars.SCHEDULE_LOCAL_TIME, "required, a local time HH:mm such as 02:00");
        }
        if (gracePeriod == null || gracePeriod.isNegative() || gracePeriod.isZero()) {
            throw new InvalidInput(EnvVars.GRACE_PERIOD, "must be a positive ISO-8601 duration such as PT72H, was " + gracePeriod);
        }
        if (shards < 1 || shards > NightWindow.MAX_SHARDS) {
            throw new InvalidInput(EnvVars.SHARDS, "must be an integer from 1 to " + NightWindow.MAX_SHARDS + ", was " + shards);
        }
        if (horizonDays < 1 || horizonDays > MAX_HORIZON_DAYS) {
            throw new InvalidInput(EnvVars.WINDOW_HORIZON_DAYS, "must be an integer from 1 to " + MAX_HORIZON_DAYS + ", was " + horizonDays);
        }
    }

    public static WindowConfig defaults() {
        return new WindowConfig(DEFAULT_ZONE, DEFAULT_LOCAL_TIME, DEFAULT_GRACE_PERIOD, DEFAULT_SHARDS, false, DEFAULT_HORIZON_DAYS);
    }

    public WindowConfig withDryRun(boolean value) {
        return new WindowConfig(zone, localTime, gracePeriod, shards, value, horizonDays);
    }

    public WindowConfig withShards(int value) {
        return new WindowConfig(zone, localTime, gracePeriod, value, dryRun, horizonDays);
    }

    /** From a handler's environment; see {@link #fromEnvironment(Map)}. */
    public static WindowConfig fromEnvironment(HandlerEnvironment env) {
        return fromEnvironment(env.env());
    }

    /** From environment variables; each unset one takes its default, each malformed one is an error naming it. */
    public static WindowConfig fromEnvironment(Map<String, String> env) {
        WindowConfig d = defaults();
        ZoneId zone = parse(env, EnvVars.SCHEDULE_TIME_ZONE, d.zone(), ZoneId::of, "an IANA time zone such as UTC or Europe/London");
        LocalTime time = parse(env, EnvVars.SCHEDULE_LOCAL_TIME, d.localTime(), LocalTime::parse, "a local time HH:mm such as 02:00");
        Duration grace = parse(env, EnvVars.GRACE_PERIOD, d.gracePeriod(), Duration::parse, "an ISO-8601 duration such as PT72H");
        int shards = parse(env, EnvVars.SHARDS, d.shards(), Integer::parseInt, "an integer from 1 to " + NightWindow.MAX_SHARDS);
        boolean dryRun = parse(env, EnvVars.DRY_RUN, d.dryRun(), WindowConfig::strictBoolean, "true or false");
        int horizon = parse(env, EnvVars.WINDOW_HORIZON_DAYS, d.horizonDays(), Integer::parseInt, "an integer number of days from 1 to " + MAX_HORIZON_DAYS);
        return new WindowConfig(zone, time, grace, shards, dryRun, horizon);
    }

    /** The environment {@link #fromEnvironment(Map)} reads back as this configuration: what the stack and the local runner set. */
    public Map<String, String> toEnvironment() {
        Map<String, String> env = new LinkedHashMap<>();
        env.put(EnvVars.SCHEDULE_TIME_ZONE, zone.getId());
        env.put(EnvVars.SCHEDULE_LOCAL_TIME, localTime.toString());
        env.put(EnvVars.GRACE_PERIOD, gracePeriod.toString());
        env.put(EnvVars.SHARDS, Integer.toString(shards));
        env.put(EnvVars.DRY_RUN, Boolean.toString(dryRun));
        env.put(EnvVars.WINDOW_HORIZON_DAYS, Integer.toString(horizonDays));
        return env;
    }

    private interface Parser<T> {
        T parse(String text);
    }

    private static <T> T parse(Map<String, String> env, String name, T fallback, Parser<T> parser, String form) {
        String raw = env.get(name);
        if (raw == null || raw.isBlank()) {
            return fallback;
        }
        try {
            return parser.parse(raw.trim());
        } catch (DateTimeException | IllegalArgumentException e) {
            throw new InvalidInput(name, "must be " + form + ", was '" + raw + "'");
        }
    }

    private static boolean strictBoolean(String text) {
        return switch (text) {
            case "true" -> true;
            case "false" -> false;
            default -> throw new IllegalArgumentException(text);
        };
    }

    public Instant windowStart(WindowId window) {
        return window.date().atTime(localTime).atZone(zone).toInstant();
    }

    /** The newest window whose window start has passed at {@code now}: what a start without a named window means. */
    public WindowId latestStartedWindow(Instant now) {
        LocalDate today = now.atZone(zone).toLocalDate();
        WindowId todays = new WindowId(today);
        return windowStart(todays).isAfter(now) ? new WindowId(today.minusDays(1)) : todays;
    }

    /** The execution input: the window and this configuration's dry-run, nothing else. */
    public ExecutionInput inputFor(WindowId window) {
        return new ExecutionInput(window.toString(), dryRun);
    }

    /** The night a window's execution runs as under this configuration: {@link #resolve} of {@link #inputFor}. */
    public NightWindow nightFor(WindowId window) {
        return resolve(inputFor(window));
    }

    /**
     * What a task decides with: the input's window and dry-run, and this deployed configuration's window start, grace,
     * cutoff and shards. A pure function of the two, so a rerun decides exactly as the first run did while the deployment
     * is unchanged (docs/decisions.md, "Configuration from the deployment only").
     */
    public NightWindow resolve(ExecutionInput input) {
        Instant start = windowStart(input.window());
        return new NightWindow(input.windowId(), start, start.minus(gracePeriod), gracePeriod, input.dryRun(), shards);
    }

    /**
     * A window may start once its window start has passed and until {@code horizonDays} back. Starting it
     * earlier would release holds younger than the grace period (the cutoff is the window start minus the
     * grace), so the refusal is the same for the schedule, {@code start}, {@code rerun} and {@code local}.
     */
    public void requireStartable(WindowId window, Instant now) {
        requireStartable(window, now, EnvVars.WINDOW_HORIZON_DAYS);
    }

    /** The first half of {@link #requireStartable}: a window cannot run before its window start (the cutoff would be too recent). */
    public void requireStarted(WindowId window, Instant now) {
        Instant start = windowStart(window);
        if (now.isBefore(start)) {
            throw new InvalidInput("window", window + " cannot start before its window start " + start
                    + " (starting it earlier would shorten the grace period " + gracePeriod + "); now is " + now);
        }
    }

    /** As {@link #requireStartable(WindowId, Instant)}, naming the setting that sets the horizon where it is set (a flag, on a command line). */
    public void requireStartable(WindowId window, Instant now, String horizonSetting) {
        requireStarted(window, now);
        LocalDate today = now.atZone(zone).toLocalDate();
        if (window.date().isBefore(today.minusDays(horizonDays))) {
            throw new InvalidInput("window", window + " is more than " + horizonDays + " days back (today is " + today
                    + "); raise " + horizonSetting + " to start it");
        }
    }

}
