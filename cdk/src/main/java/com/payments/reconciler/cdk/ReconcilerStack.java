package com.payments.reconciler.cdk;

import com.payments.reconciler.store.TableSchema;
import com.payments.reconciler.store.Tables;
import com.payments.reconciler.workflow.EnvVars;
import com.payments.reconciler.workflow.LambdaFunction;
import com.payments.reconciler.workflow.StackOutputs;
import io.github.cdklabs.cdknag.NagPackSuppression;
import io.github.cdklabs.cdknag.NagSuppressions;
import io.github.cdklabs.cdknag.RegexAppliesTo;
import java.util.List;
import java.util.Map;
import software.amazon.awscdk.ArnComponents;
import software.amazon.awscdk.ArnFormat;
import software.amazon.awscdk.CfnOutput;
import software.amazon.awscdk.RemovalPolicy;
import software.amazon.awscdk.Stack;
import software.amazon.awscdk.StackProps;
import software.amazon.awscdk.services.iam.AnyPrincipal;
import software.amazon.awscdk.services.iam.Effect;
import software.amazon.awscdk.services.iam.PolicyStatement;
import software.amazon.awscdk.services.secretsmanager.Secret;
import software.amazon.awscdk.services.stepfunctions.StateMachine;
import software.constructs.Construct;

/**
 * The reconciler on AWS: tables, functions, the Standard workflow, the nightly schedule, the provider
 * secret, the ingestion queue a card platform publishes its events to, alarms and a dashboard. Least privilege throughout: each role names the actions its code calls
 * on the resources it uses, and nothing else.
 */
public final class ReconcilerStack extends Stack {

    public static final String OUTPUT_STATE_MACHINE_ARN = StackOutputs.STATE_MACHINE_ARN;
    public static final String OUTPUT_CONSOLE_URL = StackOutputs.STATE_MACHINE_CONSOLE_URL;
    public static final String OUTPUT_DASHBOARD = StackOutputs.DASHBOARD_NAME;

    private final EncryptionKeys keys;
    private final ReconcilerTables tables;
    private final ReconcilerFunctions functions;
    private final ReconcilerWorkflow workflow;
    private final NightlySchedule schedule;
    private final StartWindowInvocation startWindowInvocation;
    private final AlarmTopic alarmTopic;
    private final Monitoring monitoring;
    private final Secret providerSecret;
    private final Ingestion ingestion;
    private final java.util.Optional<AdyenWebhook> adyenWebhook;

    public ReconcilerStack(Construct scope, String id, StackProps props, StackConfig config, LambdaJar jar) {
        super(scope, id, props);
        this.keys = new EncryptionKeys(this, "Keys", config);
        this.tables = new ReconcilerTables(this, "Tables", config, keys.data());
        this.functions = new ReconcilerFunctions(this, "Functions", config, jar, tables, keys);
        this.workflow = new ReconcilerWorkflow(this, "Workflow", config, functions, keys);
        this.ingestion = new Ingestion(this, "Ingestion", config, keys, functions);
        this.providerSecret = providerSecret(config, keys);
        allowStartWindow(workflow);
        allowDelivery();
        this.adyenWebhook = config.provider() == com.payments.reconciler.delivery.ProviderAdapters.Adapter.ADYEN
                ? java.util.Optional.of(new AdyenWebhook(this, "AdyenWebhook", config, jar, keys, ingestion, functions, tables))
                : java.util.Optional.empty();
        if (adyenWebhook.isPresent()) {
            functions.function(LambdaFunction.DELIVER_COMMANDS).addEnvironment(EnvVars.PROVIDER_MERCHANT_ACCOUNT, merchantAccount());
            // The receiver refuses an outcome naming another merchant account: it needs the same name the cancels carry.
            adyenWebhook.get().function().addEnvironment(EnvVars.PROVIDER_MERCHANT_ACCOUNT, merchantAccount());
        }
        if (config.provider() == com.payments.reconciler.delivery.ProviderAdapters.Adapter.STRIPE) {
            functions.function(LambdaFunction.DELIVER_COMMANDS).addEnvironment(EnvVars.PROVIDER_KEY_MODE, stripeKeyMode());
        }
        this.schedule = new NightlySchedule(this, "Schedule", config, functions.alias(LambdaFunction.START_WINDOW), keys);
        // The schedule's target is the alias, and so is the qualifier of StartWindow's asynchronous-invocation settings.
        this.startWindowInvocation = new StartWindowInvocation(this, "StartWindowInvocation", config, functions, keys);
        this.alarmTopic = new AlarmTopic(this, "Alarms", config, keys);
        this.monitoring = new Monitoring(this, "Monitoring", config, workflow, functions, schedule.deadLetterQueue(),
                startWindowInvocation, alarmTopic, ingestion);
        outputs(config);
    }

    /**
     * Created here, empty of a usable key (a generated placeholder that is not the JSON the function reads,
     * so a forgotten step fails loudly, naming the secret); the operator puts the provider's key in it
     * (docs/deploy.md). Retained: the key outlives a stack replacement.
     */
    private Secret providerSecret(StackConfig config, EncryptionKeys keys) {
        Secret secret = Secret.Builder.create(this, "ProviderApiKey")
                .secretName(config.providerSecretName())
                .description("Card provider API key for the hold-release reconciler: {\"apiKey\": \"...\"}; "
                        + "readable only by the DeliverCommands function")
                .encryptionKey(keys.data())
                .removalPolicy(RemovalPolicy.RETAIN_ON_UPDATE_OR_DELETE)
                .build();
        NagSuppressions.addResourceSuppressions(secret, List.of(NagPackSuppression.builder()
                .id("AwsSolutions-SMG4")
                .reason("The provider issues this API key; it cannot be rotated by a Secrets Manager rotation function. "
                        + "The provider's rotation is done by putting the new key in the secret (docs/deploy.md); "
                        + "DeliverCommands re-reads it within PROVIDER_SECRET_TTL and on the provider's 401.")
                .build()));
        return secret;
    }

    /**
     * The context's Stripe key mode ({@code providerKeyMode}, {@code live} unless set): DeliverCommands refuses a key of the
     * other mode before any request, so a test key in a live deployment stops the night instead of quarantining every
     * command on Stripe's 404.
     */
    private String stripeKeyMode() {
        Object value = getNode().tryGetContext(com.payments.reconciler.delivery.ProviderAdapters.KEY_MODE_CONTEXT);
        String text = value == null ? com.payments.reconciler.delivery.ProviderAdapters.KEY_MODE_LIVE : value.toString().trim();
        try {
            com.payments.reconciler.delivery.ProviderAdapters.parseKeyMode(text);
        } catch (IllegalArgumentException e) {
            throw new InvalidContext(com.payments.reconciler.delivery.ProviderAdapters.KEY_MODE_CONTEXT, e.getMessage());
        }
        return text;
    }

    /** The context's Adyen merchant account: required with provider=adyen. */
    private String merchantAccount() {
        Object value = getNode().tryGetContext(StackConfig.MERCHANT_ACCOUNT);
        if (value == null || value.toString().isBlank()) {
            throw new InvalidContext(StackConfig.MERCHANT_ACCOUNT, "is required with provider=adyen: the Adyen merchant account every cancel names");
        }
        return value.toString().trim();
    }

    /** The Adyen webhook receiver, present only with provider=adyen. */
    public java.util.Optional<AdyenWebhook> adyenWebhook() {
        return adyenWebhook;
    }

    /** StartWindow looks for the window's execution, then starts it: on this state machine only. */
    private void allowStartWindow(ReconcilerWorkflow workflow) {
        StateMachine stateMachine = workflow.stateMachine();
        var startWindow = functions.function(LambdaFunction.START_WINDOW);
        startWindow.addEnvironment(EnvVars.STATE_MACHINE_ARN, stateMachine.getStateMachineArn());
        String executions = formatArn(ArnComponents.builder()
                .service("states").resource("execution").resourceName(workflow.name() + ":*")
                .arnFormat(ArnFormat.COLON_RESOURCE_NAME).build());
        functions.role(LambdaFunction.START_WINDOW).addToPolicy(PolicyStatement.Builder.create()
                .sid("StartWindowExecutions")
                .actions(List.of("states:StartExecution"))
                .resources(List.of(stateMachine.getStateMachineArn()))
                .build());
        functions.role(LambdaFunction.START_WINDOW).addToPolicy(PolicyStatement.Builder.create()
                .sid("DescribeWindowExecutions")
                .actions(List.of("states:DescribeExecution"))
                .resources(List.of(executions))
                .build());
        NagSuppressions.addResourceSuppressions(functions.role(LambdaFunction.START_WINDOW), List.of(NagPackSuppression.builder()
                .id("AwsSolutions-IAM5")
                .reason("DescribeExecution is authorised on execution ARNs, and the execution to look up is named at run "
                        + "time (reconcile-{window}); the wildcard is confined to executions of this one state machine.")
                // A pattern: region and account are tokens offline but literals once the CLI supplies them.
                .appliesTo(List.of(RegexAppliesTo.builder()
                        .regex("/^Resource::arn:(<AWS::Partition>|[a-z-]+):states:(<AWS::Region>|[a-z0-9-]+):(<AWS::AccountId>|[0-9]{12})"
                                + ":execution:" + workflow.name() + ":\\*$/g").build()))
                .build()), true);
    }

    /**
     * The provider's base URL and the secret's ARN (never the key) for DeliverCommands, which alone may read
     * it: allowed by its role, and every other principal denied by the secret's own policy, so a broad IAM
     * policy elsewhere in the account (an administrator's, a CI role's) cannot read the key either.
     */
    private void allowDelivery() {
        var deliver = functions.function(LambdaFunction.DELIVER_COMMANDS);
        providerSecret.addToResourcePolicy(PolicyStatement.Builder.create()
                .sid("OnlyDeliverCommandsReadsTheKey")
                .effect(Effect.DENY)
                .principals(List.of(new AnyPrincipal()))
                .actions(List.of("secretsmanager:GetSecretValue"))
                .resources(List.of("*"))
                .conditions(Map.of("StringNotEquals", Map.of("aws:PrincipalArn", functions.role(LambdaFunction.DELIVER_COMMANDS).getRoleArn())))
                .build());
        deliver.addEnvironment(EnvVars.PROVIDER_SECRET_ID, providerSecret.getSecretArn());
        functions.role(LambdaFunction.DELIVER_COMMANDS).addToPolicy(PolicyStatement.Builder.create()
                .sid("ReadProviderApiKey")
                .actions(List.of("secretsmanager:GetSecretValue"))
                .resources(List.of(providerSecret.getSecretArn()))
                .build());
        functions.role(LambdaFunction.DELIVER_COMMANDS).addToPolicy(PolicyStatement.Builder.create()
                .sid("DecryptProviderApiKey")
                .actions(List.of("kms:Decrypt"))
                .resources(List.of(providerSecret.getEncryptionKey().getKeyArn()))
                .conditions(Map.of("StringEquals", Map.of("kms:ViaService", "secretsmanager." + getRegion() + ".amazonaws.com")))
                .build());
    }

    private void outputs(StackConfig config) {
        StateMachine stateMachine = workflow.stateMachine();
        CfnOutput.Builder.create(this, OUTPUT_STATE_MACHINE_ARN)
                .description("The state machine the operator's commands find with --stack-name")
                .value(stateMachine.getStateMachineArn())
                .build();
        CfnOutput.Builder.create(this, OUTPUT_CONSOLE_URL)
                .description("The state machine in the Step Functions console (executions are named reconcile-{window})")
                .value("https://" + getRegion() + ".console.aws.amazon.com/states/home?region=" + getRegion()
                        + "#/statemachines/view/" + stateMachine.getStateMachineArn())
                .build();
        CfnOutput.Builder.create(this, OUTPUT_DASHBOARD)
                .description("CloudWatch dashboard")
                .value(monitoring.dashboard().getDashboardName())
                .build();
        for (TableSchema schema : Tables.ALL) {
            CfnOutput.Builder.create(this, StackOutputs.tableName(schema))
                    .description(schema.logicalName() + " table")
                    .value(tables.names().nameOf(schema))
                    .build();
        }
        // The window settings the functions are deployed with, from the same map as their environment (one source).
        Map<String, String> window = config.windowEnvironment();
        StackOutputs.WINDOW_SETTINGS.forEach((envVar, key) -> CfnOutput.Builder.create(this, key)
                .description("Deployed window setting " + envVar + " (the functions' environment)")
                .value(window.get(envVar))
                .build());
        // Stack-level, so the output keys are exactly these names (docs/integration.md, docs/deploy.md).
        CfnOutput.Builder.create(this, Ingestion.OUTPUT_QUEUE_URL).description("Publish card-platform events here (docs/integration.md)")
                .value(ingestion.queue().getQueueUrl()).build();
        CfnOutput.Builder.create(this, Ingestion.OUTPUT_QUEUE_ARN)
                .description("The ingestion queue, for a publisher's sqs:SendMessage grant or an EventBridge target")
                .value(ingestion.queue().getQueueArn()).build();
        CfnOutput.Builder.create(this, Ingestion.OUTPUT_REFUSED_QUEUE_URL)
                .description("The events IngestEvents refused, with their refusal and sourceMessageId attributes: read them here "
                        + "(docs/operating.md, held for feed)")
                .value(ingestion.refusedQueue().getQueueUrl()).build();
        CfnOutput.Builder.create(this, "ProviderSecretArn")
                .description("Put the provider API key here: {\"apiKey\": \"...\"} (docs/deploy.md)")
                .value(providerSecret.getSecretArn())
                .build();
    }

    public EncryptionKeys keys() {
        return keys;
    }

    public ReconcilerTables tables() {
        return tables;
    }

    public ReconcilerFunctions functions() {
        return functions;
    }

    public ReconcilerWorkflow workflow() {
        return workflow;
    }

    public NightlySchedule schedule() {
        return schedule;
    }

    public StartWindowInvocation startWindowInvocation() {
        return startWindowInvocation;
    }

    public AlarmTopic alarmTopic() {
        return alarmTopic;
    }

    public Monitoring monitoring() {
        return monitoring;
    }

    public Secret providerSecret() {
        return providerSecret;
    }

    public Ingestion ingestion() {
        return ingestion;
    }
}
