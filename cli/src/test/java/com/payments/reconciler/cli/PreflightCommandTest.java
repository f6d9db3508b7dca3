package com.payments.reconciler.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.payments.reconciler.cli.preflight.Check;
import com.payments.reconciler.local.moto.MotoServer;
import com.payments.reconciler.workflow.FixedNames;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.URI;
import java.nio.file.Path;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.awscore.client.builder.AwsClientBuilder;
import software.amazon.awssdk.awscore.client.builder.AwsSyncClientBuilder;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.cloudformation.CloudFormationClient;
import software.amazon.awssdk.services.cloudwatchlogs.CloudWatchLogsClient;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.BillingMode;
import software.amazon.awssdk.services.dynamodb.model.KeyType;
import software.amazon.awssdk.services.dynamodb.model.ScalarAttributeType;
import software.amazon.awssdk.services.secretsmanager.SecretsManagerClient;
import software.amazon.awssdk.services.sqs.SqsClient;

/**
 * {@code bin/reconciler preflight} against moto (CloudFormation, DynamoDB, Secrets Manager, CloudWatch Logs, SQS) with
 * Lambda's GetAccountSettings as a recorded AWS answer (moto has none): a clean, bootstrapped account passes, and each
 * blocker planted on its own is a finding that names its fix, exit 1.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class PreflightCommandTest {

    private static final String REGION = "us-east-1";
    /** A region of the same moto where CDKToolkit was never created. */
    private static final String UNBOOTSTRAPPED_REGION = "eu-central-1";
    private MotoServer moto;
    private RecordedAccountSettings endpoint;

    record Result(int exit, String out, String err) {
    }

    @BeforeAll
    void start() {
        moto = MotoServer.start(Path.of(System.getProperty("reconciler.target")).resolve("preflight-moto"));
        endpoint = new RecordedAccountSettings(moto.endpoint(), 1000, 1000);
        client(CloudFormationClient.builder(), REGION).createStack(b -> b.stackName("CDKToolkit")
                .templateBody("{\"Resources\":{\"Handle\":{\"Type\":\"AWS::CloudFormation::WaitConditionHandle\"}}}"));
    }

    @AfterAll
    void stop() {
        endpoint.close();
        moto.close();
    }

    private Result preflight(String... args) {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        String[] all = new String[args.length + 2];
        System.arraycopy(args, 0, all, 0, args.length);
        all[args.length] = "--endpoint-url";
        all[args.length + 1] = endpoint.uri().toString();
        String[] withCommand = new String[all.length + 1];
        withCommand[0] = "preflight";
        System.arraycopy(all, 0, withCommand, 1, all.length);
        int exit = ReconcilerCli.execute(withCommand, new PrintWriter(out, true), new PrintWriter(err, true));
        return new Result(exit, out.toString(), err.toString());
    }

    private static String prefix() {
        return "pf" + UUID.randomUUID().toString().substring(0, 8) + "-";
    }

    @Test
    void aCleanBootstrappedAccountHasNoFindings() {
        endpoint.limits(1000, 1000);
        Result r = preflight("--name-prefix", prefix(), "--region", REGION);
        assertThat(r.exit()).as(r.out() + r.err()).isZero();
        for (Check check : Check.values()) {
            assertThat(r.out()).contains("ok    " + check.title());
        }
        assertThat(r.out()).contains("no findings");
    }

    @Test
    void aLeftoverTableNamedAsTheStacksIsAFindingWithItsFix() {
        endpoint.limits(1000, 1000);
        String prefix = prefix();
        String table = FixedNames.tableNames(prefix).get(0);
        client(DynamoDbClient.builder(), REGION).createTable(b -> b.tableName(table).billingMode(BillingMode.PAY_PER_REQUEST)
                .keySchema(k -> k.attributeName("leaseName").keyType(KeyType.HASH))
                .attributeDefinitions(a -> a.attributeName("leaseName").attributeType(ScalarAttributeType.S)));
        Result r = preflight("--name-prefix", prefix, "--region", REGION);
        assertThat(r.exit()).as(r.out() + r.err()).isEqualTo(ExitCodes.RUN_FAILED);
        assertThat(r.out()).contains("FIX   leftovers: table " + table + " exists").contains("npx cdk import").contains("1 finding(s)");
    }

    @Test
    void leftoverSecretLogGroupAndQueueAreFindingsEachWithItsFix() {
        endpoint.limits(1000, 1000);
        String prefix = prefix();
        client(SecretsManagerClient.builder(), REGION).createSecret(b -> b.name(FixedNames.defaultProviderSecretName(prefix)).secretString("x"));
        String logGroup = FixedNames.logGroupNames(prefix).get(5);
        client(CloudWatchLogsClient.builder(), REGION).createLogGroup(b -> b.logGroupName(logGroup));
        String queue = prefix + FixedNames.INGEST_DEAD_LETTER_QUEUE_SUFFIX;
        client(SqsClient.builder(), REGION).createQueue(b -> b.queueName(queue));
        Result r = preflight("--name-prefix", prefix, "--region", REGION);
        assertThat(r.exit()).as(r.out() + r.err()).isEqualTo(ExitCodes.RUN_FAILED);
        assertThat(r.out()).contains("secret " + FixedNames.defaultProviderSecretName(prefix) + " exists").contains("force-delete-without-recovery")
                .contains("log group " + logGroup + " exists").contains("delete-log-group")
                .contains("queue " + queue + " exists").contains("read or copy its messages").contains("3 finding(s)");
    }

    @Test
    void aDeployedStacksReservationsAreReadNotAssumed() {
        // A stack in CREATE_COMPLETE whose functions reserve nothing (moto: none exist, GetFunctionConcurrency and
        // GetFunctionConfiguration answer ResourceNotFound): reserving 21 more would leave 89 unreserved.
        String prefix = prefix();
        client(CloudFormationClient.builder(), REGION).createStack(b -> b.stackName(FixedNames.stackName(prefix))
                .templateBody("{\"Resources\":{\"Handle\":{\"Type\":\"AWS::CloudFormation::WaitConditionHandle\"}}}"));
        endpoint.limits(1000, 110);
        try {
            Result deployed = preflight("--name-prefix", prefix, "--region", REGION, "--reserve-concurrency", "true");
            assertThat(deployed.exit()).as(deployed.out() + deployed.err()).isEqualTo(ExitCodes.RUN_FAILED);
            assertThat(deployed.out()).contains("stack CREATE_COMPLETE").contains("(the deployed functions reserve 0 now)")
                    .contains("FIX   concurrency: reserveConcurrency=true reserves 21").contains("  ok    stack")
                    .contains("FIX   provider-url: DeliverCommands has no");
        } finally {
            endpoint.limits(1000, 1000);
        }
    }

    @Test
    void aConcurrencyLimitOfTenIsAFindingAndSoIsAReservationThatWouldLeaveFewerThanAHundred() {
        endpoint.limits(10, 10);
        Result small = preflight("--name-prefix", prefix(), "--region", REGION);
        assertThat(small.exit()).as(small.out() + small.err()).isEqualTo(ExitCodes.RUN_FAILED);
        assertThat(small.out()).contains("FIX   concurrency: the account's Lambda concurrency limit is 10").contains("Service Quotas");

        endpoint.limits(1000, 110);
        Result reserving = preflight("--name-prefix", prefix(), "--region", REGION, "--reserve-concurrency", "true");
        assertThat(reserving.exit()).isEqualTo(ExitCodes.RUN_FAILED);
        assertThat(reserving.out()).contains("reserveConcurrency=true reserves 21").contains("110 unreserved of 1000")
                .contains("reserveConcurrency=false");
        endpoint.limits(1000, 1000);
        assertThat(preflight("--name-prefix", prefix(), "--region", REGION, "--reserve-concurrency", "true").exit()).isZero();
    }

    @Test
    void aRegionWithoutTheBootstrapStackIsAFinding() {
        endpoint.limits(1000, 1000);
        Result r = preflight("--name-prefix", prefix(), "--region", UNBOOTSTRAPPED_REGION);
        assertThat(r.exit()).as(r.out() + r.err()).isEqualTo(ExitCodes.RUN_FAILED);
        assertThat(r.out()).contains("FIX   bootstrap: no CDKToolkit stack in " + UNBOOTSTRAPPED_REGION).contains("npx cdk bootstrap");
    }

    @Test
    void badUsageIsExitTwoAndCallsNothing() {
        int before = endpoint.requests();
        for (String[] args : new String[][] {{"--reserve-concurrency", "yes"}, {"--name-prefix", "has spaces"},
                {"--region", "Europe"}, {"--provider-secret-name", "a b"}}) {
            Result r = preflight(args);
            assertThat(r.exit()).as(String.join(" ", args)).isEqualTo(ExitCodes.BAD_INPUT);
            assertThat(r.err()).contains(args[0]);
        }
        assertThat(endpoint.requests()).as("no request reached AWS").isEqualTo(before);
    }

    @Test
    void anUnreachableEndpointIsExitThree() {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        int exit = ReconcilerCli.execute(new String[] {"preflight", "--region", REGION, "--endpoint-url", "http://127.0.0.1:9"},
                new PrintWriter(out, true), new PrintWriter(err, true));
        assertThat(exit).isEqualTo(ExitCodes.AWS_ERROR);
        assertThat(err.toString()).contains("could not reach AWS");
    }

    @Test
    void helpDocumentsEveryCheckAndTheExitCodes() {
        StringWriter out = new StringWriter();
        int exit = ReconcilerCli.execute(new String[] {"preflight", "--help"}, new PrintWriter(out, true), new PrintWriter(new StringWriter(), true));
        assertThat(exit).isZero();
        for (Check check : Check.values()) {
            assertThat(out.toString()).contains(check.title() + ": ");
        }
        assertThat(out.toString()).contains("Exit codes").contains("AWS unreachable").contains("--endpoint-url").contains("--reserve-concurrency");
    }

    private <B extends AwsClientBuilder<B, C> & AwsSyncClientBuilder<B, C>, C> C client(B builder, String region) {
        return builder.region(Region.of(region)).endpointOverride(moto.endpoint())
                .credentialsProvider(StaticCredentialsProvider.create(AwsBasicCredentials.create("local", "local"))).build();
    }
}
