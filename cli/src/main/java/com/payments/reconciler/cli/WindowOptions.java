package com.payments.reconciler.cli;

import com.payments.reconciler.window.WindowConfig;
import java.time.Duration;
import java.time.LocalTime;
import java.time.ZoneId;
import picocli.CommandLine.Option;

/** The deployed window configuration, so a manual start computes the same input the schedule would. */
public final class WindowOptions {

    @Option(names = "--time-zone", paramLabel = "ZONE", description = "Schedule time zone (default: ${DEFAULT-VALUE}).", defaultValue = "UTC")
    ZoneId zone;

    @Option(names = "--schedule-time", paramLabel = "HH:mm", description = "Schedule local time (default: ${DEFAULT-VALUE}).", defaultValue = "02:00")
    LocalTime localTime;

    @Option(names = "--grace-period", paramLabel = "DURATION", description = "ISO-8601 grace period (default: ${DEFAULT-VALUE}).", defaultValue = "PT72H")
    Duration gracePeriod;

    @Option(names = "--shards", paramLabel = "N", description = "GSI shards (default: ${DEFAULT-VALUE}).", defaultValue = "4")
    int shards;

    @Option(names = "--horizon-days", paramLabel = "DAYS", description = "How far back a window may be started (default: ${DEFAULT-VALUE}).", defaultValue = "30")
    int horizonDays;

    public WindowConfig config(boolean dryRun) {
        return new WindowConfig(zone, localTime, gracePeriod, shards, dryRun, horizonDays);
    }
}
