package com.payments.reconciler.cli.preflight;

import com.payments.reconciler.store.TableSchema;
import com.payments.reconciler.store.Tables;
import com.payments.reconciler.workflow.FixedNames;
import com.payments.reconciler.workflow.LambdaFunction;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Supplier;
import software.amazon.awssdk.awscore.exception.AwsServiceException;
import software.amazon.awssdk.services.cloudformation.CloudFormationClient;
import software.amazon.awssdk.services.cloudformation.model.CloudFormationException;
import software.amazon.awssdk.services.cloudwatchlogs.CloudWatchLogsClient;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.ResourceNotFoundException;
import software.amazon.awssdk.services.dynamodb.model.TableDescription;
import software.amazon.awssdk.services.lambda.LambdaClient;
import software.amazon.awssdk.services.lambda.model.AccountLimit;
import software.amazon.awssdk.services.secretsmanager.SecretsManagerClient;
import software.amazon.awssdk.services.secretsmanager.model.DescribeSecretResponse;
import software.amazon.awssdk.services.secretsmanager.model.SecretsManagerException;
import software.amazon.awssdk.services.sqs.SqsClient;
import software.amazon.awssdk.services.sqs.model.QueueDoesNotExistException;

/**
 * The pre-flight's facts, from read-only calls with the operator's credentials: Lambda's GetAccountSettings and
 * GetFunctionConfiguration, CloudFormation's DescribeStacks, DynamoDB's DescribeTable, Secrets Manager's
 * DescribeSecret, ListSecretVersionIds and GetSecretValue (expected to be denied), CloudWatch Logs'
 * DescribeLogGroups and SQS's GetQueueUrl; Lambda's GetFunctionConcurrency once the stack exists. "Not found" answers are facts; any other AWS error propagates (exit 3).
 */
public final class AccountProbe {

    public static final String TABLE = "table";
    public static final String SECRET = "secret";
    public static final String LOG_GROUP = "log group";
    public static final String QUEUE = "queue";
    public static final String BOOTSTRAP_STACK = "CDKToolkit";

    private final LambdaClient lambda;
    private final CloudFormationClient cloudFormation;
    private final DynamoDbClient dynamo;
    private final SecretsManagerClient secrets;
    private final CloudWatchLogsClient logs;
    private final SqsClient sqs;

    public AccountProbe(LambdaClient lambda, CloudFormationClient cloudFormation, DynamoDbClient dynamo, SecretsManagerClient secrets,
                        CloudWatchLogsClient logs, SqsClient sqs) {
        this.lambda = lambda;
        this.cloudFormation = cloudFormation;
        this.dynamo = dynamo;
        this.secrets = secrets;
        this.logs = logs;
        this.sqs = sqs;
    }

    public AccountFacts gather(String region, String prefix, String secretName) {
        AccountLimit limit = allowed("lambda:GetAccountSettings", () -> lambda.getAccountSettings()).accountLimit();
        Optional<String> bootstrap = stackStatus(BOOTSTRAP_STACK);
        Optional<String> stack = stackStatus(FixedNames.stackName(prefix));
        Map<String, List<String>> leftovers = new LinkedHashMap<>();
        List<String> scheduled = new ArrayList<>();
        Optional<AccountFacts.SecretFacts> secret = Optional.empty();
        Map<String, String> deliver = Map.of();
        Map<String, String> startWindow = Map.of();
        List<String> unprotected = new ArrayList<>();
        int reservedByStack = 0;
        StackState state = StackState.of(stack);
        if (state == StackState.ABSENT || state == StackState.NOT_CREATED) {
            // A first create: every fixed name must be free.
            leftovers.put(TABLE, FixedNames.tableNames(prefix).stream().filter(t -> table(t).isPresent()).toList());
            Optional<DescribeSecretResponse> found = describeSecret(secretName);
            leftovers.put(SECRET, found.isPresent() ? List.of(secretName) : List.of());
            found.filter(s -> s.deletedDate() != null).ifPresent(s -> scheduled.add(secretName));
            leftovers.put(LOG_GROUP, FixedNames.logGroupNames(prefix).stream().filter(this::logGroupExists).toList());
            leftovers.put(QUEUE, FixedNames.QUEUE_SUFFIXES.stream().map(s -> prefix + s).filter(this::queueExists).toList());
            leftovers.values().removeIf(List::isEmpty);
        } else if (state.deployed()) {
            secret = describeSecret(secretName).map(s -> new AccountFacts.SecretFacts(secretName,
                    allowed("secretsmanager:ListSecretVersionIds", () -> secrets.listSecretVersionIds(b -> b.secretId(secretName).includeDeprecated(true))).versions().size(), readable(secretName)));
            deliver = environment(FixedNames.functionName(prefix, LambdaFunction.DELIVER_COMMANDS));
            startWindow = environment(FixedNames.functionName(prefix, LambdaFunction.START_WINDOW));
            for (LambdaFunction function : LambdaFunction.values()) {
                reservedByStack += reserved(FixedNames.functionName(prefix, function));
            }
            // An Adyen stack's webhook receiver (named as the stack names it); none in other stacks, which reads as 0.
            reservedByStack += reserved(FixedNames.adyenWebhookFunctionName(prefix));
            for (TableSchema schema : Tables.ALL) {
                if (schema.businessRecord()) {
                    String name = FixedNames.tableName(prefix, schema);
                    table(name).filter(t -> !Boolean.TRUE.equals(t.deletionProtectionEnabled())).ifPresent(t -> unprotected.add(name));
                }
            }
        }
        return new AccountFacts(region, limit.concurrentExecutions(), limit.unreservedConcurrentExecutions(), bootstrap, stack,
                leftovers, scheduled, secret, deliver, startWindow, unprotected, reservedByStack);
    }

    /** The IAM actions the pre-flight calls, each read-only; docs/deploy.md lists them for the operator's policy. */
    public static final java.util.List<String> ACTIONS = java.util.List.of("lambda:GetAccountSettings",
            "lambda:GetFunctionConfiguration", "lambda:GetFunctionConcurrency", "cloudformation:DescribeStacks", "dynamodb:DescribeTable",
            "secretsmanager:DescribeSecret", "secretsmanager:ListSecretVersionIds", "secretsmanager:GetSecretValue",
            "logs:DescribeLogGroups", "sqs:GetQueueUrl");

    /** A call the operator's credentials may not make, named by its IAM action so the policy can be fixed. */
    public static final class PermissionDenied extends RuntimeException {
        private final String action;

        PermissionDenied(String action, AwsServiceException cause) {
            super("the credentials in use may not call " + action + " (" + cause.awsErrorDetails().errorCode()
                    + "): preflight needs the read-only actions listed in docs/deploy.md, \"Pre-flight on a real account\"", cause);
            this.action = action;
        }

        public String action() {
            return action;
        }
    }

    /** Runs one call, turning an access denial into {@link PermissionDenied} naming {@code action}. */
    static <T> T allowed(String action, Supplier<T> call) {
        try {
            return call.get();
        } catch (AwsServiceException e) {
            String code = e.awsErrorDetails() == null ? null : e.awsErrorDetails().errorCode();
            if ("AccessDenied".equals(code) || "AccessDeniedException".equals(code)) {
                throw new PermissionDenied(action, e);
            }
            throw e;
        }
    }

    private Optional<String> stackStatus(String name) {
        try {
            return allowed("cloudformation:DescribeStacks", () -> cloudFormation.describeStacks(b -> b.stackName(name))).stacks().stream().findFirst()
                    .map(s -> s.stackStatusAsString()).filter(s -> !s.equals("DELETE_COMPLETE"));
        } catch (CloudFormationException e) {
            // DescribeStacks answers a missing stack with a ValidationError "Stack with id X does not exist".
            if (e.awsErrorDetails() != null && "ValidationError".equals(e.awsErrorDetails().errorCode())
                    && String.valueOf(e.awsErrorDetails().errorMessage()).contains("does not exist")) {
                return Optional.empty();
            }
            throw e;
        }
    }

    private Optional<TableDescription> table(String name) {
        try {
            return Optional.of(allowed("dynamodb:DescribeTable", () -> dynamo.describeTable(b -> b.tableName(name))).table());
        } catch (ResourceNotFoundException e) {
            return Optional.empty();
        }
    }

    private Optional<DescribeSecretResponse> describeSecret(String name) {
        try {
            return Optional.of(allowed("secretsmanager:DescribeSecret", () -> secrets.describeSecret(b -> b.secretId(name))));
        } catch (software.amazon.awssdk.services.secretsmanager.model.ResourceNotFoundException e) {
            return Optional.empty();
        }
    }

    /** The value, if the operator may read it; on AWS the secret's own policy denies it (AccessDeniedException). */
    private Optional<String> readable(String name) {
        try {
            return Optional.ofNullable(secrets.getSecretValue(b -> b.secretId(name)).secretString());
        } catch (SecretsManagerException e) {
            if (e.awsErrorDetails() != null && "AccessDeniedException".equals(e.awsErrorDetails().errorCode())) {
                return Optional.empty();
            }
            throw e;
        }
    }

    private boolean logGroupExists(String name) {
        return allowed("logs:DescribeLogGroups", () -> logs.describeLogGroups(b -> b.logGroupNamePrefix(name))).logGroups().stream().anyMatch(g -> g.logGroupName().equals(name));
    }

    private boolean queueExists(String name) {
        try {
            allowed("sqs:GetQueueUrl", () -> sqs.getQueueUrl(b -> b.queueName(name)));
            return true;
        } catch (QueueDoesNotExistException e) {
            return false;
        }
    }

    /** The function's reserved concurrency now; none reserved (or no such function) is 0. */
    private int reserved(String function) {
        try {
            Integer reserved = allowed("lambda:GetFunctionConcurrency", () -> lambda.getFunctionConcurrency(b -> b.functionName(function)))
                    .reservedConcurrentExecutions();
            return reserved == null ? 0 : reserved;
        } catch (software.amazon.awssdk.services.lambda.model.ResourceNotFoundException e) {
            return 0;
        }
    }

    private Map<String, String> environment(String function) {
        try {
            var config = allowed("lambda:GetFunctionConfiguration", () -> lambda.getFunctionConfiguration(b -> b.functionName(function)));
            return config.environment() == null ? Map.of() : config.environment().variables();
        } catch (software.amazon.awssdk.services.lambda.model.ResourceNotFoundException e) {
            return Map.of();
        }
    }
}
