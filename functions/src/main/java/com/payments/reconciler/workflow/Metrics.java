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
    public static final String SUPERSEDED_RUNS = "SupersededRuns";
}
