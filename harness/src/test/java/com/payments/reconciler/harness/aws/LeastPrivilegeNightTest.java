package com.payments.reconciler.harness.aws;

import static org.assertj.core.api.Assertions.assertThat;

import com.payments.reconciler.workflow.LambdaFunction;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import software.amazon.awssdk.services.sfn.model.ExecutionStatus;

/**
 * Least privilege proven by behaviour: a real local night (the schedule event delivered twice, the shipped
 * ASL run by moto, each function of the synthesised template in Lambda sandboxes from the deployment package)
 * with every AWS call going through the {@link AwsCallRecorder}, each function signing with the container
 * credentials of its own sandboxes (one access key id per function), then every
 * recorded call evaluated against that function's role in the synthesised template: all allowed, and every
 * allowed action exercised or listed below with its reason. The recorder also enforces the same evaluation
 * (a call the role does not allow is answered AccessDeniedException and never reaches moto), so the night's
 * success shows the functions need nothing beyond their roles.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class LeastPrivilegeNightTest {


    /** What a night does not exercise, and why. Each entry must be used by some role (checked below). */
    static final List<LeastPrivilegeProof.Allowance> NOT_EXERCISED_BY_A_NIGHT = List.of(
            new LeastPrivilegeProof.Allowance("logs:CreateLogStream", Optional.of("OwnLogGroup"),
                    "the Lambda service writes the function's logs with its role, not the handler's SDK clients"),
            new LeastPrivilegeProof.Allowance("logs:PutLogEvents", Optional.of("OwnLogGroup"),
                    "the Lambda service writes the function's logs with its role, not the handler's SDK clients"),
            new LeastPrivilegeProof.Allowance("xray:PutTraceSegments", Optional.empty(),
                    "active tracing: Lambda's X-Ray daemon sends the segments, not the handler"),
            new LeastPrivilegeProof.Allowance("xray:PutTelemetryRecords", Optional.empty(),
                    "active tracing: Lambda's X-Ray daemon sends the telemetry, not the handler"),
            new LeastPrivilegeProof.Allowance("kms:Decrypt", Optional.of("TableKeyThroughDynamoDb"),
                    "DynamoDB calls KMS with the caller's permissions (kms:ViaService dynamodb); moto encrypts nothing"),
            new LeastPrivilegeProof.Allowance("kms:Encrypt", Optional.of("TableKeyThroughDynamoDb"),
                    "DynamoDB calls KMS with the caller's permissions (kms:ViaService dynamodb); moto encrypts nothing"),
            new LeastPrivilegeProof.Allowance("kms:GenerateDataKey", Optional.of("TableKeyThroughDynamoDb"),
                    "DynamoDB calls KMS with the caller's permissions (kms:ViaService dynamodb); moto encrypts nothing"),
            new LeastPrivilegeProof.Allowance("kms:DescribeKey", Optional.of("TableKeyThroughDynamoDb"),
                    "DynamoDB calls KMS with the caller's permissions (kms:ViaService dynamodb); moto encrypts nothing"),
            new LeastPrivilegeProof.Allowance("kms:Decrypt", Optional.of("DecryptProviderApiKey"),
                    "Secrets Manager decrypts the secret with the caller's permissions (kms:ViaService secretsmanager); moto does not"),
            new LeastPrivilegeProof.Allowance("sqs:SendMessage", Optional.of("SendToFailureQueue"),
                    "failure path: Lambda's asynchronous invocation sends StartWindow's event to its on-failure queue with the "
                            + "function's role once its retries are spent; the handler never calls SQS, and a night's start succeeds"),
            new LeastPrivilegeProof.Allowance("kms:GenerateDataKey", Optional.of("FailureQueueKey"),
                    "SQS encrypts the failed event with the sender's permissions (kms:ViaService sqs), on the failure path above"),
            new LeastPrivilegeProof.Allowance("kms:Decrypt", Optional.of("FailureQueueKey"),
                    "SQS calls KMS with the sender's permissions (kms:ViaService sqs), on the failure path above"),
            new LeastPrivilegeProof.Allowance("dynamodb:GetItem", Optional.of("IdempotencyTable"),
                    "failure path: Powertools reads its record only when its conditional put finds one (a delivery retried "
                            + "after its record was written); a clean night writes each record once"),
            new LeastPrivilegeProof.Allowance("dynamodb:DeleteItem", Optional.of("IdempotencyTable"),
                    "failure path: Powertools deletes its record when the guarded provider call throws; a clean night has no such failure"),
            // IngestEvents: the night's data arrives through the ingestion queue and IngestEvents in its sandbox, so its
            // DynamoDB writes are judged by its role; the event source mapping is the harness's, polling with its own credentials.
            // These grants carry Sids of their own (ConsumeIngestQueue, IngestQueueKey), so they cannot excuse a workflow function's.
            new LeastPrivilegeProof.Allowance("sqs:ReceiveMessage", Optional.of("ConsumeIngestQueue"),
                    "the ingestion queue's event source mapping polls with IngestEvents' role; the local engines have no mapping"),
            new LeastPrivilegeProof.Allowance("sqs:DeleteMessage", Optional.of("ConsumeIngestQueue"),
                    "the mapping deletes the messages a batch applied, with IngestEvents' role; the local engines have no mapping"),
            new LeastPrivilegeProof.Allowance("sqs:GetQueueAttributes", Optional.of("ConsumeIngestQueue"),
                    "the mapping reads the queue's attributes with IngestEvents' role; the local engines have no mapping"),
            new LeastPrivilegeProof.Allowance("kms:Decrypt", Optional.of("IngestQueueKey"),
                    "SQS decrypts received messages with the receiver's permissions (kms:ViaService sqs); moto encrypts nothing"),
            new LeastPrivilegeProof.Allowance("sqs:SendMessage", Optional.of("RefusedEventsToTheirQueue"),
                    "failure path: IngestEvents sends only a refused event, to the refused-events queue; the night's events are all valid"),
            new LeastPrivilegeProof.Allowance("kms:GenerateDataKey", Optional.of("RefusedQueueKey"),
                    "SQS encrypts the refused event with the sender's permissions (kms:ViaService sqs), on the failure path above"),
            new LeastPrivilegeProof.Allowance("dynamodb:GetItem", Optional.of(com.payments.reconciler.cdk.DataAccess.NIGHT_WIDE_HOLD_SID),
                    "dead-letter path: ReconcilePage and DeliverCommands read held#* only after a non-zero dead-letter depth "
                            + "(NightWideHold); a clean night's dead-letter queue is empty (a dead-lettered night: NightWideHoldEnforcedNightTest)"),
            new LeastPrivilegeProof.Allowance("dynamodb:PutItem", Optional.of(com.payments.reconciler.cdk.DataAccess.NIGHT_WIDE_HOLD_SID),
                    "dead-letter path: they record held#* (fenced) only after a non-zero dead-letter depth with no hold stored"),
            new LeastPrivilegeProof.Allowance("dynamodb:GetItem", Optional.of("LeasesTable"),
                    "race path: ReconcilePage reads the night's record again only when another run of the window recorded it "
                            + "between its lookup and its put (NightRecords, recorded once); one run a night never does"),
            new LeastPrivilegeProof.Allowance("dynamodb:GetItem", Optional.of("IngestReleaseCommandsTable"),
                    "capturedAfterRelease: IngestEvents reads a command only for a settlement of an authorisation a night had "
                            + "already decided; the night's events are all published before it decides"));

    private EnforcedNight local;
    private LeastPrivilegeProof proof;
    private EnforcedNight.Night night;
    private LeastPrivilegeProof.Report report;
    private List<RecordedCall> calls;

    @BeforeAll
    void night() {
        local = new EnforcedNight("least-privilege", SynthesizedTemplate.load());
        proof = local.proof;
        night = local.run(60, 7);
        calls = night.calls();
        report = proof.check(calls, local.attribution, NOT_EXERCISED_BY_A_NIGHT);
        System.out.println(summary());
    }

    @AfterAll
    void close() {
        if (local != null) {
            local.close();
        }
    }

    @Test
    void theNightSucceedsWithOnlyWhatTheRolesAllow() {
        assertThat(night.second().duplicateSuppressed()).as("the second delivery is suppressed").isTrue();
        assertThat(night.run().status()).isEqualTo(ExecutionStatus.SUCCEEDED);
        assertThat(local.pipeline.provider().effects()).hasSize(night.expected().releasable());
    }

    @Test
    void everyCallIsAttributedToAFunctionAndMappedToIamActions() {
        assertThat(report.unattributed()).isEmpty();
        assertThat(report.unmapped()).isEmpty();
        // Every function made AWS calls, each with its own key: IngestEvents wrote the night's data before the schedule fired.
        assertThat(local.functionByAccessKeyId()).hasSize(LambdaFunction.values().length);
        assertThat(calls.stream().map(c -> c.accessKeyId().orElse("unsigned")).distinct())
                .as("every function made AWS calls, each with its own key").containsExactlyInAnyOrderElementsOf(local.functionByAccessKeyId().keySet());
    }

    @Test
    void everyCallIsAllowedByItsFunctionsRoleInTheSynthesisedTemplate() {
        assertThat(report.denied()).as("denied calls").isEmpty();
        assertThat(report.verdicts()).isNotEmpty();
    }

    @Test
    void everyAllowedActionIsExercisedOrListedWithItsReason() {
        assertThat(report.gaps()).as("granted, never exercised, no reason given").isEmpty();
        assertThat(report.allowancesUsed().values()).as("every listed reason is needed by some role")
                .containsAll(NOT_EXERCISED_BY_A_NIGHT);
    }

    @Test
    void theProviderKeyIsReadOnlyByDeliverCommandsAndAnyOtherRoleWouldBeDenied() {
        List<LeastPrivilegeProof.Verdict> reads = report.verdicts().stream()
                .filter(v -> v.action().action().equals("secretsmanager:GetSecretValue")).toList();
        assertThat(reads).isNotEmpty().allSatisfy(v -> assertThat(v.function()).isEqualTo(LambdaFunction.DELIVER_COMMANDS.logicalName()));
        for (LambdaFunction other : LambdaFunction.values()) {
            if (other != LambdaFunction.DELIVER_COMMANDS) {
                assertThat(proof.decide(other.logicalName(), reads.getFirst().action()).verdict()).as(other.logicalName())
                        .isEqualTo(IamDecision.Verdict.EXPLICIT_DENY);
            }
        }
    }

    @Test
    void theGateRefusedNothingAndEveryAnswerCameFromMoto() {
        assertThat(calls).noneMatch(RecordedCall::deniedByRecorder);
        assertThat(calls).allSatisfy(c -> assertThat(c.status()).isBetween(200, 499));
    }

    private String summary() {
        StringBuilder out = new StringBuilder("least privilege, one local night: " + calls.size() + " AWS calls\n");
        Map<String, Map<String, Long>> byFunction = new TreeMap<>();
        for (LeastPrivilegeProof.Verdict v : report.verdicts()) {
            byFunction.computeIfAbsent(v.function(), f -> new TreeMap<>())
                    .merge(v.call().operation().orElse("?") + " -> " + v.action() + " : " + v.decision(), 1L, Long::sum);
        }
        byFunction.forEach((f, rows) -> {
            out.append(f).append('\n');
            rows.forEach((row, n) -> out.append(String.format("  %5d x %s%n", n, row)));
        });
        Map<Integer, Long> statuses = calls.stream().collect(Collectors.groupingBy(RecordedCall::status, TreeMap::new, Collectors.counting()));
        out.append("answers by status: ").append(statuses).append('\n');
        out.append("not exercised, with reasons:\n");
        report.allowancesUsed().forEach((k, a) -> out.append("  ").append(k).append(": ").append(a.reason()).append('\n'));
        report.gaps().forEach(g -> out.append("  GAP ").append(g).append('\n'));
        report.denied().forEach(d -> out.append("  DENIED ").append(d.function()).append(' ').append(d.action()).append(' ').append(d.decision()).append('\n'));
        return out.toString();
    }
}
