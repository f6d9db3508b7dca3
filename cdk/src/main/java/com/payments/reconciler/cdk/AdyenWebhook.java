package com.payments.reconciler.cdk;

import com.payments.reconciler.store.TableNames;
import com.payments.reconciler.store.Tables;
import com.payments.reconciler.webhook.AdyenWebhookHandler;
import com.payments.reconciler.workflow.EnvVars;
import com.payments.reconciler.workflow.LambdaFunction;
import java.util.List;
import java.util.Map;
import software.amazon.awscdk.CfnOutput;
import software.amazon.awscdk.Duration;
import software.amazon.awscdk.RemovalPolicy;
import software.amazon.awscdk.Stack;
import software.amazon.awscdk.services.iam.PolicyStatement;
import software.amazon.awscdk.services.iam.Role;
import software.amazon.awscdk.services.iam.ServicePrincipal;
import software.amazon.awscdk.services.lambda.Architecture;
import software.amazon.awscdk.services.lambda.Code;
import software.amazon.awscdk.services.lambda.Function;
import software.amazon.awscdk.services.lambda.FunctionUrl;
import software.amazon.awscdk.services.lambda.FunctionUrlAuthType;
import software.amazon.awscdk.services.lambda.Runtime;
import software.amazon.awscdk.services.logs.LogGroup;
import software.amazon.awscdk.services.secretsmanager.Secret;
import software.constructs.Construct;
import io.github.cdklabs.cdknag.NagPackSuppression;
import io.github.cdklabs.cdknag.NagSuppressions;

/**
 * Present only with {@code -c provider=adyen}: the Adyen webhook receiver ({@link AdyenWebhookHandler}) behind a Lambda
 * function URL with auth type NONE (Adyen cannot sign AWS requests; the handler checks the webhook's basic-auth
 * credentials, then the HMAC over each notification item, before anything is done), its secret (HMAC keys and
 * basic-auth credentials), and a role of its own that may write its own
 * log group, read that one secret (and its key through Secrets Manager), and send to the ingestion queue (and use its
 * key through SQS): nothing else. IngestEvents is given what applying {@code provider.outcome} takes: UpdateItem on
 * ReleaseCommands and the adapter's name.
 */
public final class AdyenWebhook extends Construct {

    public static final String OUTPUT_WEBHOOK_URL = "AdyenWebhookUrl";
    /** The HMAC key secret's name: the provider secret's, with this suffix. */
    public static final String HMAC_SECRET_SUFFIX = "-adyen-webhook-hmac";
    static final int MEMORY_MB = 512;
    static final Duration TIMEOUT = Duration.seconds(10);
    /**
     * The receiver's reserved concurrency when the stack reserves any ({@code reserveConcurrency=true}, as for every
     * function), from the context {@value #RESERVED_CONCURRENCY_CONTEXT} (default {@value #DEFAULT_RESERVED_CONCURRENCY};
     * 0 reserves none for the receiver alone): caps what a flood of requests (forged or unauthenticated ones included) can cost, and keeps the receiver
     * from taking the nightly functions' concurrency. Adyen sends again what is throttled. Kept small: a webhook request
     * takes well under a second.
     */
    public static final String RESERVED_CONCURRENCY_CONTEXT = "webhookReservedConcurrency";
    static final int DEFAULT_RESERVED_CONCURRENCY = com.payments.reconciler.workflow.ReservedConcurrency.WEBHOOK_DEFAULT;
    static final int MAX_RESERVED_CONCURRENCY = com.payments.reconciler.workflow.ReservedConcurrency.WEBHOOK_MAX;

    /** The context value, refused at synth naming the key and the accepted range. */
    static int reservedConcurrency(Object value) {
        String text = value == null ? Integer.toString(DEFAULT_RESERVED_CONCURRENCY) : value.toString().trim();
        try {
            int parsed = Integer.parseInt(text);
            if (parsed >= 0 && parsed <= MAX_RESERVED_CONCURRENCY) {
                return parsed;
            }
        } catch (NumberFormatException e) {
            // refused below
        }
        throw new InvalidContext(RESERVED_CONCURRENCY_CONTEXT, "must be an integer from 0 (none reserved) to "
                + MAX_RESERVED_CONCURRENCY + ", was '" + text + "'");
    }

    private final Function function;
    private final Role role;
    private final LogGroup logGroup;
    private final Secret hmacSecret;
    private final FunctionUrl url;

    public AdyenWebhook(Construct scope, String id, StackConfig config, LambdaJar jar, EncryptionKeys keys, Ingestion ingestion,
                        ReconcilerFunctions functions, ReconcilerTables tables) {
        super(scope, id);
        Stack stack = Stack.of(this);
        String name = com.payments.reconciler.workflow.FixedNames.adyenWebhookFunctionName(config.namePrefix());
        int reserved = reservedConcurrency(getNode().tryGetContext(RESERVED_CONCURRENCY_CONTEXT));
        this.hmacSecret = Secret.Builder.create(this, "HmacKey")
                .secretName(config.providerSecretName() + HMAC_SECRET_SUFFIX)
                .description("Adyen webhook secret for the hold-release reconciler: {\"hmacKey\": \"<hex>\", "
                        + "\"basicAuthUsername\": \"...\", \"basicAuthPassword\": \"...\"} (and \"previousHmacKey\" during a "
                        + "rotation); readable only by the webhook receiver")
                .encryptionKey(keys.data())
                .removalPolicy(RemovalPolicy.RETAIN_ON_UPDATE_OR_DELETE)
                .build();
        NagSuppressions.addResourceSuppressions(hmacSecret, List.of(NagPackSuppression.builder()
                .id("AwsSolutions-SMG4")
                .reason("Adyen generates this HMAC key in its Customer Area; a Secrets Manager rotation function cannot rotate it. "
                        + "A rotation is done by putting Adyen's new key in the secret; the receiver reads it again within a minute.")
                .build()));
        this.logGroup = LogGroup.Builder.create(this, "Logs")
                .logGroupName("/aws/lambda/" + name)
                .retention(ReconcilerFunctions.LOG_RETENTION)
                .encryptionKey(keys.telemetry())
                .removalPolicy(RemovalPolicy.RETAIN_ON_UPDATE_OR_DELETE)
                .build();
        this.role = Role.Builder.create(this, "Role")
                .assumedBy(new ServicePrincipal("lambda.amazonaws.com"))
                .description("Hold-release reconciler AdyenWebhook: its own log group, its HMAC key secret, sending to the ingestion queue")
                .build();
        role.addToPolicy(PolicyStatement.Builder.create().sid("OwnLogGroup")
                .actions(List.of("logs:CreateLogStream", "logs:PutLogEvents"))
                .resources(List.of(logGroup.getLogGroupArn())).build());
        role.addToPolicy(PolicyStatement.Builder.create().sid("ReadWebhookHmacKey")
                .actions(List.of("secretsmanager:GetSecretValue"))
                .resources(List.of(hmacSecret.getSecretArn())).build());
        role.addToPolicy(PolicyStatement.Builder.create().sid("DecryptWebhookHmacKey")
                .actions(List.of("kms:Decrypt"))
                .resources(List.of(keys.data().getKeyArn()))
                .conditions(Map.of("StringEquals", Map.of("kms:ViaService", "secretsmanager." + stack.getRegion() + ".amazonaws.com")))
                .build());
        role.addToPolicy(PolicyStatement.Builder.create().sid("OutcomesToIngestQueue")
                .actions(List.of("sqs:SendMessage"))
                .resources(List.of(ingestion.queue().getQueueArn())).build());
        // SendMessage to a KMS-encrypted queue: the sender generates the data key and may need to decrypt it, through SQS.
        role.addToPolicy(PolicyStatement.Builder.create().sid("IngestQueueKey")
                .actions(List.of("kms:GenerateDataKey", "kms:Decrypt"))
                .resources(List.of(keys.data().getKeyArn()))
                .conditions(Map.of("StringEquals", Map.of("kms:ViaService", "sqs." + stack.getRegion() + ".amazonaws.com")))
                .build());
        this.function = Function.Builder.create(this, "Function")
                .functionName(name)
                .description("Hold-release reconciler: Adyen webhook receiver (CANCELLATION outcomes to the ingestion queue)")
                .runtime(Runtime.JAVA_25)
                .architecture(Architecture.ARM_64)
                .handler(AdyenWebhookHandler.class.getName() + "::handleRequest")
                .code(Code.fromAsset(jar.path().toString()))
                .memorySize(MEMORY_MB)
                .timeout(TIMEOUT)
                .logGroup(logGroup)
                .role(role)
                .environment(Ordered.map(Map.entry(EnvVars.WEBHOOK_HMAC_SECRET_ID, hmacSecret.getSecretArn()),
                        Map.entry(EnvVars.INGEST_QUEUE_URL, ingestion.queue().getQueueUrl())))
                .reservedConcurrentExecutions(config.reserveConcurrency() && reserved > 0 ? reserved : null)
                .build();
        this.url = function.addFunctionUrl(software.amazon.awscdk.services.lambda.FunctionUrlOptions.builder()
                .authType(FunctionUrlAuthType.NONE).build());
        CfnOutput.Builder.create(stack, OUTPUT_WEBHOOK_URL)
                .description("Adyen Customer Area: the Standard webhook's URL (docs/integration.md, Adyen)")
                .value(url.getUrl())
                .build();

        // IngestEvents applies provider.outcome to ReleaseCommands: one conditional UpdateItem per outcome, nothing else.
        var ingest = functions.function(LambdaFunction.INGEST_EVENTS);
        ingest.addEnvironment(TableNames.ENV_RELEASE_COMMANDS, tables.names().releaseCommands());
        ingest.addEnvironment(EnvVars.PROVIDER_ADAPTER, config.provider().contextValue());
        functions.role(LambdaFunction.INGEST_EVENTS).addToPolicy(PolicyStatement.Builder.create()
                .sid("ProviderOutcomesToCommands")
                .actions(List.of(DataAccess.UPDATE_ITEM))
                .resources(List.of(tables.arn(Tables.ReleaseCommands.SCHEMA)))
                .build());
    }

    public Function function() {
        return function;
    }

    public Role role() {
        return role;
    }

    public LogGroup logGroup() {
        return logGroup;
    }

    public Secret hmacSecret() {
        return hmacSecret;
    }

    public FunctionUrl url() {
        return url;
    }
}
