package com.payments.reconciler.cdk;

import com.payments.reconciler.workflow.LambdaFunction;
import com.payments.reconciler.workflow.Metrics;
import com.payments.reconciler.workflow.ReservedConcurrency;
import com.payments.reconciler.workflow.Timing;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import software.amazon.awscdk.Duration;
import software.amazon.awscdk.services.cloudwatch.Alarm;
import software.amazon.awscdk.services.cloudwatch.MathExpression;
import software.amazon.awscdk.services.cloudwatch.AlarmStatusWidget;
import software.amazon.awscdk.services.cloudwatch.ComparisonOperator;
import software.amazon.awscdk.services.cloudwatch.Dashboard;
import software.amazon.awscdk.services.cloudwatch.GraphWidget;
import software.amazon.awscdk.services.cloudwatch.IMetric;
import software.amazon.awscdk.services.cloudwatch.Metric;
import software.amazon.awscdk.services.cloudwatch.MetricOptions;
import software.amazon.awscdk.services.cloudwatch.TreatMissingData;
import software.amazon.awscdk.services.cloudwatch.actions.SnsAction;
import software.amazon.awscdk.services.logs.FilterPattern;
import software.amazon.awscdk.services.logs.MetricFilter;
import software.amazon.awscdk.services.sns.Topic;
import software.amazon.awscdk.services.sqs.Queue;
import software.amazon.awscdk.services.stepfunctions.StateMachine;
import software.constructs.Construct;

/**
 * Alarms on what needs a person, and a dashboard of the nights. Every alarm notifies the {@link AlarmTopic}.
 * All but two fire on one occurrence in {@link #PERIOD} (a nightly job has no "rate" to smooth) and treat
 * missing data as fine (nothing happened, nothing went wrong); the exceptions are {@link #NIGHT_NOT_STARTED},
 * where missing data is exactly what it watches for, and {@link #BACKLOG_LEFT}, over {@link #BACKLOG_PERIOD}.
 *
 * <ul>
 *   <li>executions failed, timed out, aborted: Step Functions' own metrics of this state machine;</li>
 *   <li>superseded runs: a metric filter on the workflow's log group counting entries into the
 *   {@link #SUPERSEDED_STATE} Fail state. The state is reached by a Catch, after which no task runs, so no
 *   handler can emit it; the state name is logged even without execution data. A superseded run also counts
 *   as failed; its own alarm says why, which is the first question at night;</li>
 *   <li>delivery rejections: the {@link Metrics#DELIVERY_REJECTED} count DeliverCommands emits (a provider
 *   refusal is final and needs a person, though the run succeeds);</li>
 *   <li>the schedule's dead-letter queue has a message: Scheduler could not hand the night's event to StartWindow;</li>
 *   <li>StartWindow errors (any invocation, a retry included), and its on-failure queue has a record: Lambda
 *   gave up on the event after its own retries ({@link StartWindowInvocation});</li>
 *   <li>{@link #NIGHT_NOT_STARTED}: no execution of the state machine started in the last
 *   {@link #NOT_STARTED_EVALUATION_PERIODS} hours — whatever the reason, including one no other alarm sees (the
 *   schedule disabled or deleted, a function that returns without starting).</li>
 *   <li>throttles of each function ({@code AWS/Lambda Throttles}): sized by {@link ReservedConcurrency}, the
 *   workflow should never meet one; one means more overlapping runs than the rule allows, or the account's limit;</li>
 *   <li>{@link #BACKLOG_LEFT}: a night ended SUCCEEDED but left commands PENDING (the provider's quota and the
 *   execution budget could not fit them), emitted by DeliverCommands as {@link Metrics#BACKLOG_LEFT}.</li>
 *   <li>{@link #INGEST_DEAD_LETTERS}: an event is in the ingestion dead-letter queue (SQS moved it there after
 *   {@link Ingestion#MAX_RECEIVE_COUNT} receives without success; while it is there every night is held whole);</li>
 *   <li>{@link #INGEST_REFUSED}: an event is in the refused-events queue (IngestEvents refused it; its hold item holds
 *   exactly what it could concern; the reason is in IngestEvents' log by message id and in the message's attributes);</li>
 *   <li>{@link #RELEASE_SURGE}: the release-surge guard held a night's delivery ({@link Metrics#RELEASE_SURGE_HELD}, emitted by
 *   ReconcilePage): the runbook's ReleaseSurge steps, then {@code bin/reconciler approve} or wait for a night in range;</li>
 *   <li>{@link #CAPTURED_AFTER_RELEASE}: settlements stored for authorisations whose release the provider had confirmed,
 *   summed per day, at or above {@code capturedAfterReleaseThreshold} (IngestEvents emits {@link Metrics#CAPTURED_AFTER_RELEASE});</li>
 *   <li>{@link #HELD_FOR_FEED}: a night kept due releases back because a settlement may be missing (a refused settlement's
 *   hold, or a non-empty or unreadable ingestion dead-letter queue), summed over ReconcilePage and DeliverCommands;</li>
 *   <li>{@link #INGEST_QUEUE_AGE}: the oldest event waiting in the ingestion queue is older than
 *   {@link #INGEST_MAX_AGE} — ingestion stalled or not keeping up, so tonight's decisions would miss settlements.</li>
 * </ul>
 */
public final class Monitoring extends Construct {

    public static final String SUPERSEDED_STATE = "Superseded";
    /** The log event Step Functions writes when an execution enters a Fail state; {@code details.name} is the state. */
    static final String SUPERSEDED_PATTERN = "{ ($.type = \"FailStateEntered\") && ($.details.name = \"" + SUPERSEDED_STATE + "\") }";
    static final Duration PERIOD = Duration.minutes(5);

    public static final String NIGHT_NOT_STARTED = "NightNotStarted";
    /**
     * Hourly buckets of {@code ExecutionsStarted}. CloudWatch caps an alarm's evaluation range (period ×
     * evaluation periods) at one day when the period is under an hour, and at seven days from an hour up: five
     * minutes × 288 would be exactly one day, with no room for the flexible window, a DST shift of the nominal
     * time in UTC, or a late data point.
     */
    static final Duration NOT_STARTED_PERIOD = Duration.hours(1);
    /**
     * 25 hours: one more than a day, so a night that starts anywhere in the flexible window — or an hour later in
     * UTC after a DST change — still keeps the alarm OK. All 25 must be breaching (no start, and missing data is
     * breaching), so the alarm fires once the previous night's start has dropped out of the range: for a
     * schedule at 02:00 whose previous night started in the 02:00 hour, at 04:00, two hours after the nominal
     * time (plus CloudWatch's evaluation delay); at most about three and a quarter hours after it.
     */
    static final int NOT_STARTED_EVALUATION_PERIODS = 25;

    public static final String BACKLOG_LEFT = "BacklogLeft";
    /**
     * One period spans the longest an execution may run, so every data point of one night falls into the alarm's
     * (sliding) window together, and the alarm is back to OK well before the next night, which notifies again.
     */
    static final Duration BACKLOG_PERIOD = Duration.seconds(Timing.EXECUTION_TIMEOUT.toSeconds());
    public static final String INGEST_DEAD_LETTERS = "IngestDeadLetters";
    /** The dead-letter depth as the nights read it (DeadLetterDepth.COUNTS): visible + in flight + delayed. */
    static final String DEAD_LETTER_DEPTH_EXPRESSION = "FILL(visible, 0) + FILL(inflight, 0) + FILL(delayed, 0)";
    /** The refused-events queue holds a message: IngestEvents refused an event (its depth, as the dead-letter queue's alarm). */
    public static final String INGEST_REFUSED = "IngestRefused";
    /** ReconcilePage or DeliverCommands refused to release on a stale settlement watermark (the execution fails FeedNotComplete). */
    public static final String FEED_NOT_COMPLETE = "FeedNotComplete";
    public static final String INGEST_QUEUE_AGE = "IngestQueueAge";
    public static final String RELEASE_SURGE = "ReleaseSurge";
    public static final String CAPTURED_AFTER_RELEASE = "CapturedAfterRelease";
    /** ReconcilePage or DeliverCommands kept a due release back for a possibly missing settlement ({@link Metrics#HELD_FOR_FEED}). */
    public static final String HELD_FOR_FEED = "HeldForFeed";
    /** A day: the threshold is per night's worth of settlements, which arrive through the day. */
    static final Duration CAPTURED_AFTER_RELEASE_PERIOD = Duration.days(1);
    /**
     * Fifteen minutes: five visibility timeouts, so a batch retried after a transient failure does not page anyone,
     * while a stalled ingestion is seen well before a night decides on stale settlements.
     */
    static final Duration INGEST_MAX_AGE = Duration.minutes(15);

    /** Suffix of each function's throttles alarm, {@code {prefix}{Function}Throttles}. */
    static final String THROTTLES = "Throttles";

    private final List<Alarm> alarms = new ArrayList<>();
    private final Topic topic;
    private final Dashboard dashboard;

    public Monitoring(Construct scope, String id, StackConfig config, ReconcilerWorkflow workflow, ReconcilerFunctions functions,
                      Queue deadLetterQueue, StartWindowInvocation startWindow, AlarmTopic alarmTopic, Ingestion ingestion) {
        super(scope, id);
        StateMachine stateMachine = workflow.stateMachine();
        this.topic = alarmTopic.topic();

        MetricFilter.Builder.create(this, "SupersededRunsFilter")
                .logGroup(workflow.logGroup())
                .filterPattern(FilterPattern.literal(SUPERSEDED_PATTERN))
                .metricNamespace(Metrics.NAMESPACE)
                .metricName(Metrics.SUPERSEDED_RUNS)
                .metricValue("1")
                .build();
        Metric superseded = Metric.Builder.create().namespace(Metrics.NAMESPACE).metricName(Metrics.SUPERSEDED_RUNS)
                .statistic("Sum").period(PERIOD).build();
        Metric rejected = emitted(Metrics.DELIVERY_REJECTED, LambdaFunction.DELIVER_COMMANDS);

        MetricOptions sum = MetricOptions.builder().statistic("Sum").period(PERIOD).build();
        IMetric deadLetters = deadLetterQueue.metricApproximateNumberOfMessagesVisible(
                MetricOptions.builder().statistic("Maximum").period(PERIOD).build());
        alarm(config, "ExecutionsFailed", "A reconciler execution failed (a task's error after its retries, LeaseHeldByAnotherRun, Superseded "
                + "or ReleaseSurge): bin/reconciler status --window W, then history; if SupersededRuns is in ALARM too, a newer run took over the lease "
                + "(check that run; nothing to redrive); if ReleaseSurge is, the night is held for approval (its runbook: check the "
                + "settlement feed, then approve); otherwise redrive or rerun per the runbook", stateMachine.metricFailed(sum));
        alarm(config, "ExecutionsTimedOut", "A reconciler execution ran past its " + Timing.EXECUTION_TIMEOUT.toHours() + "-hour limit: "
                + "bin/reconciler status --window W, then history --execution NAME for the state it stopped in; bin/reconciler redrive "
                + "--execution NAME resumes it there (within 14 days), or BacklogLeft's advice if it was delivering", stateMachine.metricTimedOut(sum));
        alarm(config, "ExecutionsAborted", "A reconciler execution was aborted (StopExecution, by a person or a tool): rerun or redrive the window", stateMachine.metricAborted(sum));
        // Not paging: a superseded run also fails, and ExecutionsFailed pages for it (one page per incident); this alarm
        // says why, on the dashboard and in the console, and ExecutionsFailed's text points to it.
        countAlarm(config, "SupersededRuns", "A reconciler run was superseded: a newer run took over the lease (check that run). "
                + "Pages through ExecutionsFailed, which the superseded run also raises; this alarm only says why", superseded, Paging.NONE);
        alarm(config, "DeliveryRejections", "The provider rejected a hold release (status REJECTED in ReleaseCommands, reason recorded)", rejected);
        alarm(config, "DeliveryQuarantined", "The provider answered a hold release outside its contract: the command is QUARANTINED "
                + "(status and an excerpt of the answer on it). bin/reconciler commands list --status QUARANTINED; after checking with "
                + "the provider, commands requeue --operation-id ID", emitted(Metrics.DELIVERY_QUARANTINED, LambdaFunction.DELIVER_COMMANDS));
        alarm(config, "DeliveryEscalated", "A hold release stayed PENDING past automatic delivery and is ESCALATED (our idempotency "
                + "record may be gone): ask the provider whether it released the hold, then bin/reconciler commands requeue --operation-id ID (sent again under the same Idempotency-Key)",
                emitted(Metrics.DELIVERY_ESCALATED, LambdaFunction.DELIVER_COMMANDS));
        levelAlarm(config, "ScheduleDeadLetters", "A nightly start could not be delivered to StartWindow (message in the schedule DLQ): "
                + "start the window by hand with bin/reconciler start --window W", deadLetters);
        IMetric startWindowErrors = functions.function(LambdaFunction.START_WINDOW).metricErrors(sum);
        IMetric startWindowFailures = startWindow.failures().metricApproximateNumberOfMessagesVisible(
                MetricOptions.builder().statistic("Maximum").period(PERIOD).build());
        alarm(config, "StartWindowErrors", "StartWindow returned an error (Lambda retries it twice): its log group names the cause; "
                + "if the night has not started, see NightNotStarted / StartWindowFailures", startWindowErrors);
        levelAlarm(config, "StartWindowFailures", "Lambda gave up on a nightly StartWindow event after its retries (record in the "
                + "start-window-failures queue): fix the cause, then bin/reconciler start --window W", startWindowFailures);
        for (LambdaFunction function : LambdaFunction.values()) {
            String why = function == LambdaFunction.INGEST_EVENTS
                    ? "its queue's mapping invokes at most that many at once, so the account's concurrency is exhausted (or "
                    + "reserveConcurrency=false). Throttled batches go back to the queue and count towards its maxReceiveCount; "
                    + "docs/decisions.md, \"Capacity\""
                    : "more runs overlapped than the sizing allows, or the account's concurrency is exhausted. The workflow retries "
                    + "Lambda.TooManyRequestsException; bin/reconciler status --window W for runs still going, then docs/decisions.md, \"Capacity\"";
            alarm(config, function.logicalName() + THROTTLES, "Lambda throttled " + function.logicalName() + " (its reserved concurrency is "
                    + ReservedConcurrency.of(function) + " unless reserveConcurrency=false): " + why,
                    functions.function(function).metricThrottles(sum));
        }
        Metric backlog = Metric.Builder.create().namespace(Metrics.NAMESPACE).metricName(Metrics.BACKLOG_LEFT)
                .dimensionsMap(Map.of("Function", LambdaFunction.DELIVER_COMMANDS.logicalName()))
                .statistic("Sum").period(BACKLOG_PERIOD).build();
        alarm(config, BACKLOG_LEFT, "A night ended SUCCEEDED with release commands left PENDING for the next run: the provider's "
                + "quota and the execution budget could not fit them. The next night sends them; if that is too late, or this "
                + "repeats, raise the quota (providerRequestsPerSecond / providerMaxConcurrentRequests, agreed with the provider), "
                + "lengthen the budget, or run an extra window now (bin/reconciler rerun --window W: delivery sends every PENDING command of its shards)", backlog);
        IMetric started = stateMachine.metricStarted(MetricOptions.builder().statistic("Sum").period(NOT_STARTED_PERIOD).build());
        register(Alarm.Builder.create(this, NIGHT_NOT_STARTED)
                .alarmName(config.physicalName(NIGHT_NOT_STARTED))
                .alarmDescription("No reconciler execution started in the last " + NOT_STARTED_EVALUATION_PERIODS + " hours: tonight's "
                        + "window did not start. bin/reconciler status --window W; then start --window W (docs/deploy.md)")
                .metric(started)
                .threshold(1)
                .comparisonOperator(ComparisonOperator.LESS_THAN_THRESHOLD)
                .evaluationPeriods(NOT_STARTED_EVALUATION_PERIODS)
                .datapointsToAlarm(NOT_STARTED_EVALUATION_PERIODS)
                // No execution means no data point at all: that is the case this alarm exists for.
                .treatMissingData(TreatMissingData.BREACHING)
                .build(), Paging.ON_ALARM_AND_OK);

        // What the nights count (DeadLetterDepth): visible, in flight and delayed. An operator reading the queue makes its
        // messages in flight; on Visible alone the alarm would go OK while every night is still held.
        MetricOptions deadLetterCount = MetricOptions.builder().statistic("Maximum").period(PERIOD).build();
        IMetric ingestDeadLetters = MathExpression.Builder.create().label("IngestDeadLetterDepth").period(PERIOD)
                .expression(DEAD_LETTER_DEPTH_EXPRESSION)
                .usingMetrics(Ordered.map(
                        Map.entry("visible", ingestion.deadLetterQueue().metricApproximateNumberOfMessagesVisible(deadLetterCount)),
                        Map.entry("inflight", ingestion.deadLetterQueue().metricApproximateNumberOfMessagesNotVisible(deadLetterCount)),
                        Map.entry("delayed", ingestion.deadLetterQueue().metric("ApproximateNumberOfMessagesDelayed", deadLetterCount))))
                .build();
        levelAlarm(config, INGEST_DEAD_LETTERS, "A card-platform event is in the ingestion dead-letter queue (visible, in flight or "
                + "delayed): SQS moved it there after " + Ingestion.MAX_RECEIVE_COUNT + " receives without success (throttling, a "
                + "failing IngestEvents, a refusal that could not be sent to the refused-events queue). No hold item names it, so the "
                + "next night records the night-wide hold held#* and every night stays held until holds clear --night-wide, even once "
                + "the queue is empty. Runbook: docs/operating.md, \"held for feed\"; nothing of the event was written", ingestDeadLetters);
        // Refusals have their own queue and alarm: a refused event holds exactly what its hold item names, never the night.
        IMetric ingestRefused = ingestion.refusedQueue().metricApproximateNumberOfMessagesVisible(
                MetricOptions.builder().statistic("Maximum").period(PERIOD).build());
        levelAlarm(config, INGEST_REFUSED, "A card-platform event is in the refused-events queue: IngestEvents refused it (malformed, "
                + "card data, a conflict). A refused settlement holds its authorisation (held#<id>, or held#* when unreadable) until "
                + "cleared; its attributes and IngestEvents' log name the reason by message id (docs/integration.md). Runbook: "
                + "docs/operating.md, \"held for feed\"; nothing of the event was written", ingestRefused);
        // Either function may refuse (at the decision, or before delivery if the feed went stale in between): one alarm on both.
        IMetric feedNotComplete = MathExpression.Builder.create().label(Metrics.FEED_NOT_COMPLETE).period(PERIOD)
                .expression("FILL(decide, 0) + FILL(deliver, 0)")
                .usingMetrics(Ordered.map(Map.entry("decide", emitted(Metrics.FEED_NOT_COMPLETE, LambdaFunction.RECONCILE_PAGE)),
                        Map.entry("deliver", emitted(Metrics.FEED_NOT_COMPLETE, LambdaFunction.DELIVER_COMMANDS))))
                .build();
        alarm(config, FEED_NOT_COMPLETE, "A night released nothing because the settlement feed's watermark was older than "
                + "maxSettlementFeedLag (or none was ever received): the card platform stopped publishing settlements or watermarks, "
                + "or ingestion is behind. The execution failed with FeedNotComplete naming the watermark and its age. Runbook: "
                + "docs/operating.md, \"FeedNotComplete\"; once the platform's feed caught up, redrive or rerun the window", feedNotComplete);
        // Held for feed: a refused settlement (a held# item) or a non-empty dead-letter queue kept a due release back, at the
        // decision or at delivery. The night succeeds, so nothing else pages for it; the held authorisations wait for a person.
        IMetric heldForFeed = MathExpression.Builder.create().label(Metrics.HELD_FOR_FEED).period(PERIOD)
                .expression("FILL(decide, 0) + FILL(deliver, 0)")
                .usingMetrics(Ordered.map(Map.entry("decide", emitted(Metrics.HELD_FOR_FEED, LambdaFunction.RECONCILE_PAGE)),
                        Map.entry("deliver", emitted(Metrics.HELD_FOR_FEED, LambdaFunction.DELIVER_COMMANDS))))
                .build();
        alarm(config, HELD_FOR_FEED, "A night kept due releases back because a settlement may be missing: IngestEvents refused a "
                + "settlement (a held# item in Settlements names its authorisation, held#* the whole night), or the ingestion "
                + "dead-letter queue held messages or could not be read. The held authorisations stay pending; the night's log says "
                + "which. Runbook: docs/operating.md, \"held for feed\"; bin/reconciler holds list, then holds clear once accounted for",
                heldForFeed);
        IMetric oldest = ingestion.queue().metricApproximateAgeOfOldestMessage(MetricOptions.builder().statistic("Maximum").period(PERIOD).build());
        onePeriodAlarm(config, INGEST_QUEUE_AGE, "The oldest card-platform event in the ingestion queue waited more than "
                + INGEST_MAX_AGE.toMinutes() + " minutes: IngestEvents is failing, throttled or not keeping up, and a night would "
                + "decide without the settlements still queued (they are re-checked at delivery)",
                oldest, ComparisonOperator.GREATER_THAN_THRESHOLD, INGEST_MAX_AGE.toSeconds(), Paging.ON_ALARM_AND_OK);
        Metric surgeHeld = emitted(Metrics.RELEASE_SURGE_HELD, LambdaFunction.RECONCILE_PAGE);
        // Not paging, as SupersededRuns: the held execution fails and ExecutionsFailed pages for it; this alarm says why.
        countAlarm(config, RELEASE_SURGE, "The release-surge guard held a night: it decided more releases than releaseSurgeFactor x the "
                + "median of its last 7 completed nights, its commands are PENDING and nothing was sent. The execution's cause names "
                + "the releases, the median and the factor. Check the settlement feed before anything else (docs/operating.md, "
                + "ReleaseSurge), then bin/reconciler approve --window W --note TEXT, or leave it held. Pages through ExecutionsFailed",
                surgeHeld, Paging.NONE);
        Metric captured = Metric.Builder.create().namespace(Metrics.NAMESPACE).metricName(Metrics.CAPTURED_AFTER_RELEASE)
                .dimensionsMap(Map.of("Function", LambdaFunction.INGEST_EVENTS.logicalName()))
                .statistic("Sum").period(CAPTURED_AFTER_RELEASE_PERIOD).build();
        onePeriodAlarm(config, CAPTURED_AFTER_RELEASE, "Settlements arrived for authorisations whose hold release the provider had "
                + "confirmed (at least " + config.capturedAfterReleaseThreshold() + " in a day): the grace period is too short for some "
                + "merchants. IngestEvents' log names the events; compare their settledAt with the authorisations' authorisedAt, then "
                + "consider a longer gracePeriod",
                captured, ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD, config.capturedAfterReleaseThreshold(), Paging.ON_ALARM);
        this.dashboard = Dashboard.Builder.create(this, "Dashboard")
                .dashboardName(config.physicalName("hold-release-reconciler"))
                .build();
        dashboard.addWidgets(
                AlarmStatusWidget.Builder.create().title("Alarms").alarms(List.copyOf(alarms)).width(24).build());
        dashboard.addWidgets(
                graph("Executions", List.of(stateMachine.metricStarted(sum), stateMachine.metricSucceeded(sum),
                        stateMachine.metricFailed(sum), stateMachine.metricTimedOut(sum), stateMachine.metricAborted(sum))),
                graph("Execution duration (ms)", List.of(
                        stateMachine.metricTime(MetricOptions.builder().statistic("Maximum").period(Duration.hours(1)).build()),
                        stateMachine.metricTime(MetricOptions.builder().statistic("Average").period(Duration.hours(1)).build()))));
        dashboard.addWidgets(
                // HeldForFeed beside the releases: candidates a refused settlement kept from release (docs/operating.md, "held for feed").
                graph("Decisions", List.of(emitted(Metrics.RELEASES_REQUESTED, LambdaFunction.RECONCILE_PAGE),
                        emitted(Metrics.HELD_FOR_FEED, LambdaFunction.RECONCILE_PAGE),
                        emitted(Metrics.HELD_FOR_FEED, LambdaFunction.DELIVER_COMMANDS),
                        emitted(Metrics.FENCED_REFUSALS, LambdaFunction.RECONCILE_PAGE),
                        emitted(Metrics.FENCED_REFUSALS, LambdaFunction.DELIVER_COMMANDS), superseded)),
                graph("Deliveries", List.of(emitted(Metrics.DELIVERIES, LambdaFunction.DELIVER_COMMANDS), rejected,
                        emitted(Metrics.DELIVERY_CANCELLED_SETTLED, LambdaFunction.DELIVER_COMMANDS),
                        emitted(Metrics.DELIVERY_CANCELLED_ENDED, LambdaFunction.DELIVER_COMMANDS),
                        emitted(Metrics.DELIVERY_QUARANTINED, LambdaFunction.DELIVER_COMMANDS),
                        emitted(Metrics.DELIVERY_ESCALATED, LambdaFunction.DELIVER_COMMANDS))));
        dashboard.addWidgets(
                graph("Starts", List.of(emitted(Metrics.DUPLICATE_STARTS_SUPPRESSED, LambdaFunction.START_WINDOW), deadLetters,
                        startWindowErrors, startWindowFailures)),
                graph("Capacity", List.of(emitted(Metrics.BACKLOG_LEFT, LambdaFunction.DELIVER_COMMANDS),
                        emitted(Metrics.PROVIDER_THROTTLED, LambdaFunction.DELIVER_COMMANDS))));
        dashboard.addWidgets(
                graph("Ingestion", List.of(emitted(Metrics.INGEST_ACCEPTED, LambdaFunction.INGEST_EVENTS),
                        emitted(Metrics.INGEST_DUPLICATES, LambdaFunction.INGEST_EVENTS),
                        emitted(Metrics.INGEST_REFUSED, LambdaFunction.INGEST_EVENTS),
                        emitted(Metrics.INGEST_RETRIED, LambdaFunction.INGEST_EVENTS), ingestDeadLetters, ingestRefused)),
                graph("Ingestion queue age (s)", List.of(oldest)));
        // The dry-run adoption: per night, what the job decided and what happened after; a team watches the
        // would-release line against its own expectations for weeks before setting dryRun=false.
        dashboard.addWidgets(GraphWidget.Builder.create().title("Per night: candidates, would release (dry run), released, "
                        + "settled after decision").left(List.of(night(Metrics.NIGHT_CANDIDATES), night(Metrics.NIGHT_WOULD_RELEASE),
                        night(Metrics.NIGHT_RELEASED), night(Metrics.NIGHT_SETTLED_AFTER_DECISION)))
                .width(24).build());
        dashboard.addWidgets(
                graph("Release-surge guard: nights held", List.of(surgeHeld)),
                graph("Captured after a delivered release (per day)", List.of(captured)));
    }

    /** A night's count: ReleaseLease emits it once per completed run, summed per day. */
    private static Metric night(String name) {
        return Metric.Builder.create().namespace(Metrics.NAMESPACE).metricName(name)
                .dimensionsMap(Map.of("Function", LambdaFunction.RELEASE_LEASE.logicalName()))
                .statistic("Sum").period(Duration.days(1)).build();
    }

    /** A count a handler emits as an Embedded Metric Format line, dimension {@code Function} = its logical name. */
    private static Metric emitted(String name, LambdaFunction function) {
        return Metric.Builder.create().namespace(Metrics.NAMESPACE).metricName(name)
                .dimensionsMap(Map.of("Function", function.logicalName()))
                .statistic("Sum").period(PERIOD).build();
    }

    /** An alarm on events (a count per period): it pages when they happen; the next quiet period says nothing. */
    private void alarm(StackConfig config, String id, String description, IMetric metric) {
        countAlarm(config, id, description, metric, Paging.ON_ALARM);
    }

    /** An alarm on a state that lasts until someone acts (messages waiting in a queue): it also says when it is over. */
    private void levelAlarm(StackConfig config, String id, String description, IMetric metric) {
        countAlarm(config, id, description, metric, Paging.ON_ALARM_AND_OK);
    }

    /** Fires on one occurrence in a period. */
    private void countAlarm(StackConfig config, String id, String description, IMetric metric, Paging paging) {
        onePeriodAlarm(config, id, description, metric, ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD, 1, paging);
    }

    /**
     * The shape of every alarm here but {@link #NIGHT_NOT_STARTED}: one period's value against the threshold, and missing
     * data not breaching (no data point means nothing happened, so nothing went wrong).
     */
    private void onePeriodAlarm(StackConfig config, String id, String description, IMetric metric, ComparisonOperator comparison,
                                Number threshold, Paging paging) {
        register(Alarm.Builder.create(this, id)
                .alarmName(config.physicalName(id))
                .alarmDescription(description)
                .metric(metric)
                .threshold(threshold)
                .comparisonOperator(comparison)
                .evaluationPeriods(1)
                .treatMissingData(TreatMissingData.NOT_BREACHING)
                .build(), paging);
    }

    /**
     * Whom an alarm tells, and when. An OK notice means something only for a state: an alarm on an event count goes
     * back to OK at the next period without one (missing data is not breaching), whatever became of the failed run,
     * so an OK notice there would announce a recovery that did not happen.
     */
    private enum Paging { NONE, ON_ALARM, ON_ALARM_AND_OK }

    private void register(Alarm alarm, Paging paging) {
        if (paging != Paging.NONE) {
            alarm.addAlarmAction(new SnsAction(topic));
        }
        if (paging == Paging.ON_ALARM_AND_OK) {
            alarm.addOkAction(new SnsAction(topic));
        }
        alarms.add(alarm);
    }

    private static GraphWidget graph(String title, List<IMetric> metrics) {
        return GraphWidget.Builder.create().title(title).left(metrics).width(12).build();
    }

    public List<Alarm> alarms() {
        return List.copyOf(alarms);
    }

    public Topic topic() {
        return topic;
    }

    public Dashboard dashboard() {
        return dashboard;
    }
}
