package com.payments.reconciler.cdk;

import com.payments.reconciler.workflow.Timing;
import java.time.LocalTime;
import java.util.List;
import java.util.Map;
import software.amazon.awscdk.Duration;
import software.amazon.awscdk.Stack;
import software.amazon.awscdk.TimeZone;
import software.amazon.awscdk.services.iam.PolicyStatement;
import software.amazon.awscdk.services.iam.Role;
import software.amazon.awscdk.services.iam.ServicePrincipal;
import software.amazon.awscdk.services.iam.ServicePrincipalOpts;
import software.amazon.awscdk.services.lambda.IFunction;
import software.amazon.awscdk.services.scheduler.ContextAttribute;
import software.amazon.awscdk.services.scheduler.CronOptionsWithTimezone;
import software.amazon.awscdk.services.scheduler.Schedule;
import software.amazon.awscdk.services.scheduler.ScheduleExpression;
import software.amazon.awscdk.services.scheduler.ScheduleTargetInput;
import software.amazon.awscdk.services.scheduler.TimeWindow;
import software.amazon.awscdk.services.scheduler.targets.LambdaInvoke;
import software.amazon.awscdk.services.sqs.Queue;
import software.constructs.Construct;

/**
 * EventBridge Scheduler → the StartWindow alias, every day at the configured local time in the configured
 * zone. The same context values set StartWindow's {@code SCHEDULE_LOCAL_TIME} and {@code SCHEDULE_TIME_ZONE},
 * so the cron expression and the window start cannot disagree.
 *
 * <p>The target input is exactly {@code {"scheduledTime": "<aws.scheduler.scheduled-time>"}}, the strict
 * shape {@code ScheduledEvent} accepts: the nominal time names the window, so the flexible window and
 * duplicate deliveries all start the same execution.
 */
public final class NightlySchedule extends Construct {

    /** Scheduler may invoke up to this long after the nominal time ({@link Timing#SCHEDULE_FLEXIBLE_WINDOW}, one budget). */
    public static final Duration FLEXIBLE_WINDOW = Duration.minutes(Timing.SCHEDULE_FLEXIBLE_WINDOW.toMinutes());
    /**
     * A delivery StartWindow keeps failing (throttled, Step Functions unavailable) is retried this often and
     * for at most {@link #MAX_EVENT_AGE}: a night not started by then is an operator's call (the DLQ alarm
     * fires; {@code bin/reconciler start --window W} starts it with the same name and input).
     */
    public static final int RETRY_ATTEMPTS = 30;
    public static final Duration MAX_EVENT_AGE = Duration.hours(6);
    /** SQS's maximum: a failed night stays inspectable for two weeks. */
    public static final Duration DLQ_RETENTION = Duration.days(14);
    public static final String SCHEDULED_TIME_FIELD = "scheduledTime";

    private final Schedule schedule;
    private final Queue deadLetterQueue;
    private final Role role;

    public NightlySchedule(Construct scope, String id, StackConfig config, IFunction startWindow, EncryptionKeys keys) {
        super(scope, id);
        this.deadLetterQueue = DeadLetterQueues.create(this, "DeadLetterQueue", config.physicalName("schedule-dlq"), keys,
                DLQ_RETENTION, "the nightly schedule (events Scheduler could not hand to Lambda)");
        // Scheduler's own role: invoke StartWindow's alias and, when it gives up, put the event in the encrypted DLQ.
        this.role = Role.Builder.create(this, "Role")
                .assumedBy(new ServicePrincipal("scheduler.amazonaws.com", ServicePrincipalOpts.builder()
                        .conditions(Map.of("StringEquals", Map.of("aws:SourceAccount", Stack.of(this).getAccount()))).build()))
                .description("EventBridge Scheduler: invoke the StartWindow alias; dead-letter to the schedule DLQ")
                .build();
        role.addToPolicy(PolicyStatement.Builder.create()
                .sid("DeadLetterQueueKey")
                .actions(List.of("kms:GenerateDataKey", "kms:Decrypt"))
                .resources(List.of(keys.telemetry().getKeyArn()))
                .conditions(Map.of("StringEquals", Map.of("kms:ViaService", "sqs." + Stack.of(this).getRegion() + ".amazonaws.com")))
                .build());
        LocalTime time = config.window().localTime();
        this.schedule = Schedule.Builder.create(this, "Nightly")
                .scheduleName(config.physicalName("nightly"))
                .description("Starts the hold-release reconciler's window every day at " + time + " " + config.window().zone().getId())
                .schedule(ScheduleExpression.cron(CronOptionsWithTimezone.builder()
                        .minute(Integer.toString(time.getMinute()))
                        .hour(Integer.toString(time.getHour()))
                        .timeZone(TimeZone.of(config.window().zone().getId()))
                        .build()))
                .timeWindow(TimeWindow.flexible(FLEXIBLE_WINDOW))
                .target(LambdaInvoke.Builder.create(startWindow)
                        .input(ScheduleTargetInput.fromObject(Map.of(SCHEDULED_TIME_FIELD, ContextAttribute.getScheduledTime())))
                        .retryAttempts(RETRY_ATTEMPTS)
                        .maxEventAge(MAX_EVENT_AGE)
                        .deadLetterQueue(deadLetterQueue)
                        .role(role)
                        .build())
                .build();
    }

    public Schedule schedule() {
        return schedule;
    }

    public Queue deadLetterQueue() {
        return deadLetterQueue;
    }

    public Role role() {
        return role;
    }
}
