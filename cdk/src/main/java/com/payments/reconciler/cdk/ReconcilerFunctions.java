package com.payments.reconciler.cdk;

import com.payments.reconciler.store.TableNames;
import com.payments.reconciler.workflow.EnvVars;
import com.payments.reconciler.workflow.LambdaFunction;
import com.payments.reconciler.workflow.ReservedConcurrency;
import io.github.cdklabs.cdknag.NagPackSuppression;
import io.github.cdklabs.cdknag.NagSuppressions;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import software.amazon.awscdk.Annotations;
import software.amazon.awscdk.Duration;
import software.amazon.awscdk.RemovalPolicy;
import software.amazon.awscdk.Stack;
import software.amazon.awscdk.services.iam.PolicyStatement;
import software.amazon.awscdk.services.iam.Role;
import software.amazon.awscdk.services.iam.ServicePrincipal;
import software.amazon.awscdk.services.kms.IKey;
import software.amazon.awscdk.services.lambda.Alias;
import software.amazon.awscdk.services.lambda.Architecture;
import software.amazon.awscdk.services.lambda.Code;
import software.amazon.awscdk.services.lambda.Function;
import software.amazon.awscdk.services.lambda.Runtime;
import software.amazon.awscdk.services.lambda.SnapStartConf;
import software.amazon.awscdk.services.lambda.Tracing;
import software.amazon.awscdk.services.logs.LogGroup;
import software.amazon.awscdk.services.logs.RetentionDays;
import software.constructs.Construct;

/**
 * The six functions of {@link LambdaFunction}, all from the one shaded jar: Java 25 on arm64, memory and
 * timeout from the timing budget, SnapStart on a published version behind the alias {@link #ALIAS} (what the
 * state machine and the schedule invoke), X-Ray tracing, an explicit log group with a retention, and a role
 * of its own holding exactly the data access of {@link DataAccess#of}, and reserved concurrency from
 * {@link ReservedConcurrency} unless the context turns it off. Environment variables carry names,
 * ARNs and settings only; the provider key is read from Secrets Manager at run time.
 */
public final class ReconcilerFunctions extends Construct {

    public static final String ALIAS = "live";
    /** Payment-system audit trails are kept a year (PCI DSS 10.5.1: 12 months, the last 3 immediately available). */
    public static final RetentionDays LOG_RETENTION = RetentionDays.ONE_YEAR;
    /** DynamoDB calls KMS on the caller's behalf; these are the key uses a table read or write needs. */
    /** The condition that limits a grant to items of one partition key value (DataAccess.partitionKey). */
    static final String LEADING_KEYS_OPERATOR = "ForAllValues:StringEquals";
    static final String LEADING_KEYS = "dynamodb:LeadingKeys";
    static final List<String> TABLE_KEY_ACTIONS = List.of("kms:Decrypt", "kms:Encrypt", "kms:GenerateDataKey", "kms:DescribeKey");

    private final Map<LambdaFunction, Function> functions = new EnumMap<>(LambdaFunction.class);
    private final Map<LambdaFunction, Alias> aliases = new EnumMap<>(LambdaFunction.class);
    private final Map<LambdaFunction, Role> roles = new EnumMap<>(LambdaFunction.class);
    private final Map<LambdaFunction, LogGroup> logGroups = new EnumMap<>(LambdaFunction.class);

    public ReconcilerFunctions(Construct scope, String id, StackConfig config, LambdaJar jar, ReconcilerTables tables,
                               EncryptionKeys keys) {
        super(scope, id);
        Code code = Code.fromAsset(jar.path().toString());
        for (LambdaFunction function : LambdaFunction.values()) {
            create(function, config, code, tables, keys);
        }
    }

    private void create(LambdaFunction function, StackConfig config, Code code, ReconcilerTables tables, EncryptionKeys keys) {
        String name = config.physicalName(function.logicalName());
        LogGroup logGroup = LogGroup.Builder.create(this, function.logicalName() + "Logs")
                .logGroupName("/aws/lambda/" + name)
                .retention(LOG_RETENTION)
                .encryptionKey(keys.telemetry())
                .removalPolicy(RemovalPolicy.RETAIN_ON_UPDATE_OR_DELETE)
                .build();
        Role role = role(function, logGroup, tables, keys);
        Function fn = Function.Builder.create(this, function.logicalName())
                .functionName(name)
                .description("Hold-release reconciler: " + function.logicalName())
                .runtime(Runtime.JAVA_25)
                .architecture(Architecture.ARM_64)
                .handler(function.handler())
                .code(code)
                .memorySize(function.memoryMb())
                .timeout(Duration.seconds(function.timeout().toSeconds()))
                .snapStart(SnapStartConf.ON_PUBLISHED_VERSIONS)
                .tracing(Tracing.ACTIVE)
                .logGroup(logGroup)
                .role(role)
                .environment(environment(function, config, tables))
                // Sized by ReservedConcurrency's rule; off for an account that cannot keep 100 unreserved beside it.
                .reservedConcurrentExecutions(config.reserveConcurrency() ? ReservedConcurrency.of(function) : null)
                .build();
        // The warning asks for a published version; currentVersion below publishes one and the alias points at it.
        Annotations.of(fn).acknowledgeWarning("@aws-cdk/aws-lambda:snapStartRequirePublish",
                "published by currentVersion, invoked only through the alias " + ALIAS);
        Alias alias = Alias.Builder.create(this, function.logicalName() + "Alias")
                .aliasName(ALIAS)
                .version(fn.getCurrentVersion())
                .build();
        // Active tracing adds the X-Ray write actions on "*" to the role; they take no resource.
        NagSuppressions.addResourceSuppressions(role, List.of(NagPackSuppression.builder()
                .id("AwsSolutions-IAM5")
                .reason("X-Ray's PutTraceSegments and PutTelemetryRecords accept no resource ARN: Resource '*' is the only form "
                        + "they take (added by active tracing); every data action names its table or index ARN.")
                .appliesTo(List.of("Resource::*"))
                .build()), true);
        functions.put(function, fn);
        aliases.put(function, alias);
        roles.put(function, role);
        logGroups.put(function, logGroup);
    }

    /** A role of its own: its log group, the data access its handler calls ({@link DataAccess}), the table key through DynamoDB. */
    private Role role(LambdaFunction function, LogGroup logGroup, ReconcilerTables tables, EncryptionKeys keys) {
        Role role = Role.Builder.create(this, function.logicalName() + "Role")
                .assumedBy(new ServicePrincipal("lambda.amazonaws.com"))
                .description("Hold-release reconciler " + function.logicalName() + ": its own log group and the data access its handler calls")
                .build();
        // In place of the AWS managed basic-execution policy (log writes to every group in the account): its own group only.
        role.addToPolicy(PolicyStatement.Builder.create()
                .sid("OwnLogGroup")
                .actions(List.of("logs:CreateLogStream", "logs:PutLogEvents"))
                // The group's Arn attribute ends in ":*", which covers exactly its streams.
                .resources(List.of(logGroup.getLogGroupArn()))
                .build());
        List<DataAccess> access = DataAccess.of(function);
        for (DataAccess grant : access) {
            String resource = grant.index().map(i -> tables.indexArn(grant.schema(), i)).orElseGet(() -> tables.arn(grant.schema()));
            PolicyStatement.Builder statement = PolicyStatement.Builder.create()
                    .sid(DataAccess.sid(function, grant))
                    .actions(grant.actions())
                    .resources(List.of(resource));
            // Only items of this partition key: the set form, as the DynamoDB guide's fine-grained access examples write it.
            grant.partitionKey().ifPresent(key -> statement.conditions(Map.of(LEADING_KEYS_OPERATOR, Map.of(LEADING_KEYS, List.of(key)))));
            role.addToPolicy(statement.build());
        }
        if (!access.isEmpty()) {
            Stack stack = Stack.of(this);
            role.addToPolicy(PolicyStatement.Builder.create()
                    .sid("TableKeyThroughDynamoDb")
                    .actions(TABLE_KEY_ACTIONS)
                    .resources(tables.keyArns())
                    .conditions(Map.of("StringEquals", Map.of("kms:ViaService", "dynamodb." + stack.getRegion() + ".amazonaws.com")))
                    .build());
        }
        return role;
    }

    /** Names, ARNs and settings the handler reads (HandlerEnvironment, TableNames, WindowConfig); never a secret. */
    private static Map<String, String> environment(LambdaFunction function, StackConfig config, ReconcilerTables tables) {
        Map<String, String> environment = new LinkedHashMap<>();
        if (function.invokedByWorkflow()) {
            environment.putAll(tables.environment());
            environment.put(EnvVars.LEASE_NAME, EnvVars.DEFAULT_LEASE_NAME);
            // Each task derives the cutoff, grace and shards from the window and these, never from the execution input
            // (docs/decisions.md, "Configuration from the deployment only"): the same map as StartWindow's, one source.
            environment.putAll(config.windowEnvironment());
        } else if (function == LambdaFunction.INGEST_EVENTS) {
            // The two tables it writes, and the shards a new pending authorisation is filed under: StartWindow's value.
            environment.put(TableNames.ENV_AUTHORISATIONS, tables.names().authorisations());
            environment.put(TableNames.ENV_SETTLEMENTS, tables.names().settlements());
            // Read only for capturedAfterRelease: a settlement on a decided authorisation asks whether its release was delivered.
            environment.put(TableNames.ENV_RELEASE_COMMANDS, tables.names().releaseCommands());
            environment.put(EnvVars.SHARDS, config.windowEnvironment().get(EnvVars.SHARDS));
        } else {
            // StartWindow, Scheduler's target: the window settings it computes each execution's input from.
            environment.putAll(config.windowEnvironment());
        }
        if (function == LambdaFunction.DELIVER_COMMANDS) {
            environment.put(EnvVars.PROVIDER_BASE_URL, config.providerBaseUrl().toString());
            environment.putAll(config.providerQuotaEnvironment());
            environment.putAll(config.providerKeyRetentionEnvironment());
            environment.putAll(config.providerOutcomeTimeoutEnvironment());
            environment.putAll(config.providerAdapterEnvironment());
        }
        if (function == LambdaFunction.RECONCILE_PAGE || function == LambdaFunction.DELIVER_COMMANDS) {
            // Both ask the feed gate: before committing decisions, and before any provider call.
            environment.putAll(config.maxSettlementFeedLagEnvironment());
        }
        if (function == LambdaFunction.RECONCILE_PAGE) {
            environment.putAll(config.releaseSurge().environment());
        }
        return environment;
    }

    public Function function(LambdaFunction function) {
        return functions.get(function);
    }

    public Alias alias(LambdaFunction function) {
        return aliases.get(function);
    }

    public Role role(LambdaFunction function) {
        return roles.get(function);
    }

    public LogGroup logGroup(LambdaFunction function) {
        return logGroups.get(function);
    }
}
