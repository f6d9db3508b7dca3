package com.payments.reconciler.harness;

import com.payments.reconciler.window.NightWindow;
import com.payments.reconciler.window.WindowConfig;
import com.payments.reconciler.window.WindowId;
import com.payments.reconciler.workflow.InvalidInput;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalTime;
import java.time.ZoneId;
import picocli.CommandLine.Option;

/**
 * The local deployment's window configuration: what the local functions' environment is set to (a deployed stack takes it
 * from cdk.json's context instead; the operator's start and rerun have no such flags). Each value is
 * checked here under its flag's name: {@link WindowConfig}'s own checks name the environment variables the stack
 * sets, which mean nothing to someone at a command line.
 */
public final class LocalDeploymentOptions {

    @Option(names = "--time-zone", paramLabel = "ZONE", description = "The local deployment's schedule IANA time zone, e.g. Europe/London (default: ${DEFAULT-VALUE}).", defaultValue = "UTC")
    ZoneId zone;

    @Option(names = "--schedule-time", paramLabel = "HH:mm", description = "The local deployment's schedule local time of day, 00:00 to 23:59 (default: ${DEFAULT-VALUE}).", defaultValue = "02:00")
    LocalTime localTime;

    @Option(names = "--grace-period", paramLabel = "DURATION", description = "The local deployment's grace period (the local functions' environment): how long settlements may take to arrive, an ISO-8601 duration such as PT72H or P3D (default: ${DEFAULT-VALUE}).", defaultValue = "PT72H")
    Duration gracePeriod;

    @Option(names = "--shards", paramLabel = "N", description = "The local deployment's shards of the pending-authorisation index, 1 to " + NightWindow.MAX_SHARDS + " (default: ${DEFAULT-VALUE}).", defaultValue = "4")
    int shards;

    @Option(names = "--horizon-days", paramLabel = "DAYS", description = "The local deployment's horizon: how far back a window may be started, 1 to " + WindowConfig.MAX_HORIZON_DAYS + " days (default: ${DEFAULT-VALUE}).", defaultValue = "30")
    int horizonDays;

    public WindowConfig config(boolean dryRun) {
        if (gracePeriod.isNegative() || gracePeriod.isZero()) {
            throw new IllegalArgumentException("--grace-period: must be a positive ISO-8601 duration such as PT72H, was " + gracePeriod);
        }
        if (shards < 1 || shards > NightWindow.MAX_SHARDS) {
            throw new IllegalArgumentException("--shards: must be an integer from 1 to " + NightWindow.MAX_SHARDS + ", was " + shards);
        }
        if (horizonDays < 1 || horizonDays > WindowConfig.MAX_HORIZON_DAYS) {
            throw new IllegalArgumentException("--horizon-days: must be an integer from 1 to " + WindowConfig.MAX_HORIZON_DAYS + ", was " + horizonDays);
        }
        return new WindowConfig(zone, localTime, gracePeriod, shards, dryRun, horizonDays);
    }

    /** {@link WindowConfig#requireStartable}, naming {@code --window} and {@code --horizon-days} (what to raise for an older window). */
    public static void requireStartable(WindowConfig config, WindowId window, Instant now) {
        try {
            config.requireStartable(window, now, "--horizon-days");
        } catch (InvalidInput refused) {
            String prefix = refused.field() + ": ";
            String problem = refused.getMessage().startsWith(prefix) ? refused.getMessage().substring(prefix.length()) : refused.getMessage();
            throw new IllegalArgumentException("--window: " + problem, refused);
        }
    }
}
