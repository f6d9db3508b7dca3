package com.payments.reconciler.cdk;

import com.payments.reconciler.workflow.LambdaFunction;
import java.util.List;
import java.util.Map;
import software.amazon.awscdk.Duration;
import software.amazon.awscdk.Stack;
import software.amazon.awscdk.services.iam.PolicyStatement;
import software.amazon.awscdk.services.iam.Role;
import software.amazon.awscdk.services.lambda.Alias;
import software.amazon.awscdk.services.lambda.CfnEventInvokeConfig;
import software.amazon.awscdk.services.sqs.Queue;
import software.constructs.Construct;

/**
 * What happens after EventBridge Scheduler has handed the nightly event to StartWindow. Scheduler invokes a
 * Lambda target asynchronously: its retry policy and dead-letter queue ({@link NightlySchedule}) cover only
 * that hand-off, i.e. Lambda refusing to queue the event. Once queued, Lambda's own asynchronous-invocation
 * settings decide: this construct sets them on the alias {@link ReconcilerFunctions#ALIAS} that the schedule
 * invokes (an EventInvokeConfig belongs to one qualifier), and sends every event that fails them to an
 * encrypted queue of its own, whose depth is alarmed ({@link Monitoring}).
 *
 * <p>Its own queue, not the schedule's dead-letter queue: the two hold different messages (Scheduler puts
 * the event with its error attributes; Lambda puts an invocation record with the request, the function's
 * error and the attempt count), different principals write them (Scheduler's role; StartWindow's role), and
 * an alarm per queue says which hop failed.
 */
public final class StartWindowInvocation extends Construct {

    /**
     * Lambda's maximum (0–2). StartWindow is idempotent — one deterministic execution name per window, and a
     * start of a name that exists is suppressed as a duplicate — so a retry can never start a second run.
     * Lambda waits about a minute before the first retry and two before the second.
     */
    public static final int RETRY_ATTEMPTS = 2;
    /**
     * How long Lambda keeps retrying an event it could not run (throttled, Lambda's own 5xx) before it goes to
     * the failure queue (60 s to 6 h). An hour: long enough to ride out a burst of account-wide throttling,
     * short enough that the record is in the failure queue — and its alarm has fired — around the time the
     * night-not-started alarm fires, instead of hours after a person has been paged.
     */
    public static final Duration MAX_EVENT_AGE = Duration.hours(1);
    /** SQS's maximum, as for the schedule's dead-letter queue: a failed night stays inspectable for two weeks. */
    public static final Duration FAILURE_RETENTION = Duration.days(14);

    private final Queue failures;
    private final CfnEventInvokeConfig eventInvokeConfig;

    public StartWindowInvocation(Construct scope, String id, StackConfig config, ReconcilerFunctions functions, EncryptionKeys keys) {
        super(scope, id);
        Stack stack = Stack.of(this);
        Alias alias = functions.alias(LambdaFunction.START_WINDOW);
        Role role = functions.role(LambdaFunction.START_WINDOW);
        this.failures = DeadLetterQueues.create(this, "FailureQueue", config.physicalName("start-window-failures"), keys,
                FAILURE_RETENTION, "StartWindow's asynchronous invocations (its on-failure destination)");
        // Lambda writes the invocation record with the function's execution role; SQS then asks KMS for the data key.
        role.addToPolicy(PolicyStatement.Builder.create()
                .sid("SendToFailureQueue")
                .actions(List.of("sqs:SendMessage"))
                .resources(List.of(failures.getQueueArn()))
                .build());
        role.addToPolicy(PolicyStatement.Builder.create()
                .sid("FailureQueueKey")
                .actions(List.of("kms:GenerateDataKey", "kms:Decrypt"))
                .resources(List.of(keys.telemetry().getKeyArn()))
                .conditions(Map.of("StringEquals", Map.of("kms:ViaService", "sqs." + stack.getRegion() + ".amazonaws.com")))
                .build());
        this.eventInvokeConfig = CfnEventInvokeConfig.Builder.create(this, "EventInvokeConfig")
                .functionName(functions.function(LambdaFunction.START_WINDOW).getFunctionName())
                .qualifier(ReconcilerFunctions.ALIAS)
                .maximumRetryAttempts(RETRY_ATTEMPTS)
                .maximumEventAgeInSeconds((int) MAX_EVENT_AGE.toSeconds())
                .destinationConfig(CfnEventInvokeConfig.DestinationConfigProperty.builder()
                        .onFailure(CfnEventInvokeConfig.OnFailureProperty.builder().destination(failures.getQueueArn()).build())
                        .build())
                .build();
        // The qualifier must exist, and Lambda checks the role may send to the destination when the config is put.
        eventInvokeConfig.getNode().addDependency(alias);
        eventInvokeConfig.getNode().addDependency(role);
    }

    public Queue failures() {
        return failures;
    }

    public CfnEventInvokeConfig eventInvokeConfig() {
        return eventInvokeConfig;
    }
}
