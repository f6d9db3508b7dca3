package com.payments.reconciler.cdk;

import com.payments.reconciler.workflow.LambdaFunction;
import com.payments.reconciler.workflow.Metrics;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import software.amazon.awscdk.Duration;
import software.amazon.awscdk.services.cloudwatch.Alarm;
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
import software.amazon.awscdk.services.sns.subscriptions.EmailSubscription;
import software.amazon.awscdk.services.sqs.Queue;
import software.amazon.awscdk.services.stepfunctions.StateMachine;
import software.constructs.Construct;

/**
 * Alarms on what needs a person, and a dashboard of the nights. Every alarm fires on one occurrence (a
 * nightly job has no "rate" to smooth) and treats missing data as fine (no run, nothing wrong).
 *
 * <ul>
 *   <li>executions failed, timed out, aborted: Step Functions' own metrics of this state machine;</li>
 *   <li>superseded runs: a metric filter on the workflow's log group counting entries into the
 *   {@link #SUPERSEDED_STATE} Fail state. The state is reached by a Catch, after which no task runs, so no
 *   handler can emit it; the state name is logged even without execution data. A superseded run also counts
 *   as failed; its own alarm says why, which is the first question at night;</li>
 *   <li>delivery rejections: the {@link Metrics#DELIVERY_REJECTED} count DeliverCommands emits (a provider
 *   refusal is final and needs a person, though the run succeeds);</li>
 *   <li>the schedule's dead-letter queue has a message: a night did not start.</li>
 * </ul>
 */
public final class Monitoring extends Construct {

    public static final String SUPERSEDED_STATE = "Superseded";
    /** The log event Step Functions writes when an execution enters a Fail state; {@code details.name} is the state. */
    static final String SUPERSEDED_PATTERN = "{ ($.type = \"FailStateEntered\") && ($.details.name = \"" + SUPERSEDED_STATE + "\") }";
    static final Duration PERIOD = Duration.minutes(5);

    private final List<Alarm> alarms = new ArrayList<>();
    private final Optional<Topic> topic;
    private final Dashboard dashboard;

    public Monitoring(Construct scope, String id, StackConfig config, ReconcilerWorkflow workflow,
                      Queue deadLetterQueue, EncryptionKeys keys) {
        super(scope, id);
        StateMachine stateMachine = workflow.stateMachine();
        this.topic = config.alarmEmail().map(email -> {
            Topic t = Topic.Builder.create(this, "AlarmTopic")
                    .topicName(config.physicalName("alarms"))
                    .masterKey(keys.telemetry())
                    .enforceSsl(true)
                    .build();
            t.addSubscription(new EmailSubscription(email));
            return t;
        });

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
        alarm(config, "ExecutionsFailed", "A reconciler execution failed (a task's error after its retries, LeaseHeldByAnotherRun or Superseded): "
                + "bin/reconciler status --window W, then history; redrive or rerun per the runbook", stateMachine.metricFailed(sum));
        alarm(config, "ExecutionsTimedOut", "A reconciler execution timed out", stateMachine.metricTimedOut(sum));
        alarm(config, "ExecutionsAborted", "A reconciler execution was aborted (StopExecution, by a person or a tool): rerun or redrive the window", stateMachine.metricAborted(sum));
        alarm(config, "SupersededRuns", "A reconciler run was superseded: a newer run took over the lease (check that run)", superseded);
        alarm(config, "DeliveryRejections", "The provider rejected a hold release (status REJECTED in ReleaseCommands, reason recorded)", rejected);
        alarm(config, "ScheduleDeadLetters", "A nightly start could not be delivered to StartWindow (message in the schedule DLQ): "
                + "start the window by hand with bin/reconciler start --window W", deadLetters);

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
                graph("Decisions", List.of(emitted(Metrics.RELEASES_REQUESTED, LambdaFunction.RECONCILE_PAGE),
                        emitted(Metrics.FENCED_REFUSALS, LambdaFunction.RECONCILE_PAGE),
                        emitted(Metrics.FENCED_REFUSALS, LambdaFunction.DELIVER_COMMANDS), superseded)),
                graph("Deliveries", List.of(emitted(Metrics.DELIVERIES, LambdaFunction.DELIVER_COMMANDS), rejected)));
        dashboard.addWidgets(
                graph("Starts", List.of(emitted(Metrics.DUPLICATE_STARTS_SUPPRESSED, LambdaFunction.START_WINDOW), deadLetters)));
    }

    /** A count a handler emits as an Embedded Metric Format line, dimension {@code Function} = its logical name. */
    private static Metric emitted(String name, LambdaFunction function) {
        return Metric.Builder.create().namespace(Metrics.NAMESPACE).metricName(name)
                .dimensionsMap(Map.of("Function", function.logicalName()))
                .statistic("Sum").period(PERIOD).build();
    }

    private void alarm(StackConfig config, String id, String description, IMetric metric) {
        Alarm alarm = Alarm.Builder.create(this, id)
                .alarmName(config.physicalName(id))
                .alarmDescription(description)
                .metric(metric)
                .threshold(1)
                .comparisonOperator(ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD)
                .evaluationPeriods(1)
                .treatMissingData(TreatMissingData.NOT_BREACHING)
                .build();
        topic.ifPresent(t -> alarm.addAlarmAction(new SnsAction(t)));
        alarms.add(alarm);
    }

    private static GraphWidget graph(String title, List<IMetric> metrics) {
        return GraphWidget.Builder.create().title(title).left(metrics).width(12).build();
    }

    public List<Alarm> alarms() {
        return List.copyOf(alarms);
    }

    public Optional<Topic> topic() {
        return topic;
    }

    public Dashboard dashboard() {
        return dashboard;
    }
}
