package com.payments.reconciler.cdk;

import com.payments.reconciler.workflow.LambdaFunction;
import com.payments.reconciler.workflow.WorkflowDefinition;
import io.github.cdklabs.cdknag.NagPackSuppression;
import io.github.cdklabs.cdknag.NagSuppressions;
import java.util.Arrays;
import java.util.List;
import software.amazon.awscdk.RemovalPolicy;
import software.amazon.awscdk.services.iam.PolicyStatement;
import software.amazon.awscdk.services.logs.LogGroup;
import software.amazon.awscdk.services.stepfunctions.DefinitionBody;
import software.amazon.awscdk.services.stepfunctions.LogLevel;
import software.amazon.awscdk.services.stepfunctions.LogOptions;
import software.amazon.awscdk.services.stepfunctions.StateMachine;
import software.amazon.awscdk.services.stepfunctions.StateMachineType;
import software.constructs.Construct;

/**
 * The Standard workflow, its definition inlined from the shipped ASL with {@code definitionSubstitutions}
 * pointing at the function aliases. Its role may invoke those aliases and nothing else (plus the log
 * delivery and X-Ray writes the service needs).
 *
 * <p>Logging: level {@link #LOG_LEVEL} ALL, without execution data. Every state entered and exited is
 * recorded (which the superseded-run metric filter and an operator reading a failed night rely on), but
 * no state's input or output: those carry authorisation ids, amounts and the lease owner, and a log group
 * is read far more widely than the tables. The execution history in the console still has the data, under
 * Step Functions' own access control, for 90 days.
 *
 * <p>Timeouts live in the ASL itself ({@code TimeoutSeconds} per task): with an inlined definition the
 * construct's {@code timeout} is not applied, so none is set here.
 */
public final class ReconcilerWorkflow extends Construct {

    public static final String STATE_MACHINE_SUFFIX = "hold-release-reconciler";
    public static final LogLevel LOG_LEVEL = LogLevel.ALL;

    private final StateMachine stateMachine;
    private final LogGroup logGroup;
    private final String name;

    public ReconcilerWorkflow(Construct scope, String id, StackConfig config, ReconcilerFunctions functions, EncryptionKeys keys) {
        super(scope, id);
        this.name = config.physicalName(STATE_MACHINE_SUFFIX);
        this.logGroup = LogGroup.Builder.create(this, "ExecutionLogs")
                // The prefix AWS recommends for vended logs: log delivery's resource policy then covers it without growing per group.
                .logGroupName("/aws/vendedlogs/states/" + name)
                .retention(ReconcilerFunctions.LOG_RETENTION)
                .encryptionKey(keys.telemetry())
                .removalPolicy(RemovalPolicy.RETAIN_ON_UPDATE_OR_DELETE)
                .build();
        WorkflowDefinition asl = WorkflowDefinition.shipped();
        this.stateMachine = StateMachine.Builder.create(this, "StateMachine")
                .stateMachineName(name)
                .stateMachineType(StateMachineType.STANDARD)
                .comment("Hold-release reconciler: one window per execution, named reconcile-{windowId}")
                .definitionBody(DefinitionBody.fromString(asl.text()))
                .definitionSubstitutions(asl.substitutions(f -> functions.alias(f).getFunctionArn()))
                .logs(LogOptions.builder().destination(logGroup).level(LOG_LEVEL).includeExecutionData(false).build())
                .tracingEnabled(true)
                .build();
        // The definition is a string, so CDK cannot see which functions it calls: name the aliases, exactly.
        stateMachine.addToRolePolicy(PolicyStatement.Builder.create()
                .sid("InvokeWorkflowFunctionAliases")
                .actions(List.of("lambda:InvokeFunction"))
                .resources(Arrays.stream(LambdaFunction.values()).filter(LambdaFunction::invokedByWorkflow)
                        .map(f -> functions.alias(f).getFunctionArn()).toList())
                .build());
        NagSuppressions.addResourceSuppressions(stateMachine.getRole(), List.of(NagPackSuppression.builder()
                .id("AwsSolutions-IAM5")
                .reason("Added by the construct for logging and tracing: CloudWatch Logs' log-delivery actions "
                        + "(CreateLogDelivery, GetLogDelivery, UpdateLogDelivery, DeleteLogDelivery, ListLogDeliveries, "
                        + "PutResourcePolicy, DescribeResourcePolicies, DescribeLogGroups) and X-Ray's PutTraceSegments, "
                        + "PutTelemetryRecords, GetSamplingRules, GetSamplingTargets accept no resource ARN; the only "
                        + "data-plane permission, lambda:InvokeFunction, names the four aliases.")
                .appliesTo(List.of("Resource::*"))
                .build()), true);
    }

    public StateMachine stateMachine() {
        return stateMachine;
    }

    public LogGroup logGroup() {
        return logGroup;
    }

    public String name() {
        return name;
    }
}
