package com.payments.reconciler.harness.aws;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.node.ObjectNode;
import com.payments.reconciler.harness.local.LocalPipeline;
import com.payments.reconciler.store.Tables.Settlements;
import com.payments.reconciler.testing.LocalAwsClients;
import com.payments.reconciler.workflow.LambdaFunction;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.http.urlconnection.UrlConnectionHttpClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.sqs.SqsClient;

/**
 * The {@code NightWideHoldOnly} grant proven by behaviour on a local night under enforced IAM: a night whose ingestion
 * dead-letter queue holds a message records the night-wide hold {@code held#*} (NightWideHold: a GetItem of the key,
 * then the lease's ConditionCheck and a Put of the key in one transaction), every call allowed by the role as built,
 * each judged with its {@code dynamodb:LeadingKeys}. Its known-bad twin: the same night under a template without the
 * statement is refused those calls, and no hold is stored.
 */
class NightWideHoldEnforcedNightTest {

    private static final Set<String> HOLD_CALLERS = Set.of(LambdaFunction.RECONCILE_PAGE.logicalName(), LambdaFunction.DELIVER_COMMANDS.logicalName());

    /** One message in the dead-letter queue ReconcilePage's and DeliverCommands' environment names (its content is never read). */
    private static void deadLetterOne(EnforcedNight local) {
        try (SqsClient sqs = SqsClient.builder().region(LocalAwsClients.REGION).endpointOverride(local.pipeline.engineEndpoint())
                .httpClient(UrlConnectionHttpClient.builder().build())
                .credentialsProvider(StaticCredentialsProvider.create(AwsBasicCredentials.create("local", "local"))).build()) {
            sqs.sendMessage(b -> b.queueUrl(LocalPipeline.localDeadLetterQueueUrl()).messageBody("{\"eventId\":\"dead-lettered\"}"));
        }
        assertThat(local.pipeline.deadLettersHoldTheNight()).as("the dead-letter queue holds the night").isTrue();
    }

    private static boolean holdStored(EnforcedNight local) {
        return local.pipeline.dynamo().getItem(b -> b.tableName(local.pipeline.tables().settlements()).consistentRead(true)
                .key(Map.of(Settlements.AUTHORISATION_ID, AttributeValue.fromS(Settlements.NIGHT_WIDE_HOLD_KEY)))).hasItem();
    }

    /** The calls of ReconcilePage and DeliverCommands that name {@code held#*} on the Settlements table (the template's name). */
    private static List<RecordedCall> holdCalls(EnforcedNight local, EnforcedNight.Night night) {
        String settlements = ":table/" + local.pipeline.tables().settlements();
        return night.calls().stream()
                .filter(c -> c.accessKeyId().flatMap(k -> local.attribution.functionOf(c.caller())).filter(HOLD_CALLERS::contains).isPresent())
                .filter(c -> c.authorizes().stream().anyMatch(a -> namesTheHold(a, settlements)))
                .toList();
    }

    private static boolean namesTheHold(AuthorizedAction a, String settlements) {
        return a.resource().endsWith(settlements)
                && a.leadingKeys().equals(LeadingKeys.of(List.of(Settlements.NIGHT_WIDE_HOLD_KEY)));
    }

    private static String summary(EnforcedNight.Night night, List<RecordedCall> holdCalls) {
        return String.format("%s %s, %d calls, %d refused, hold calls: %s", night.run().status(), night.run().error().orElse(""),
                night.calls().size(), night.calls().stream().filter(RecordedCall::deniedByRecorder).count(),
                holdCalls.stream().map(c -> c.operation().orElse("?") + (c.deniedByRecorder() ? " refused" : " " + c.status())).toList());
    }

    @Test
    void aDeadLetteredNightRecordsTheNightWideHoldUnderEnforcedIam() {
        try (EnforcedNight local = new EnforcedNight("night-wide-hold", SynthesizedTemplate.load())) {
            EnforcedNight.Night night = local.run(20, 17, () -> deadLetterOne(local));
            List<RecordedCall> holdCalls = holdCalls(local, night);
            System.out.println("dead-lettered night, template as built: " + summary(night, holdCalls));

            assertThat(night.calls()).as("no call refused").noneMatch(RecordedCall::deniedByRecorder);
            assertThat(holdCalls).as("the hold's read and its fenced write, each allowed")
                    .anySatisfy(c -> assertThat(c.operation()).contains("dynamodb:GetItem"))
                    .anySatisfy(c -> {
                        assertThat(c.operation()).contains("dynamodb:TransactWriteItems");
                        assertThat(c.authorizes()).anyMatch(a -> a.action().equals("dynamodb:PutItem") && a.leadingKeys().values().contains(Settlements.NIGHT_WIDE_HOLD_KEY));
                    })
                    .allSatisfy(c -> assertThat(c.deniedByRecorder()).isFalse());
            assertThat(holdStored(local)).as("held#* stored").isTrue();
            assertThat(local.pipeline.provider().effects()).as("the held night releases nothing").isEmpty();
        }
    }

    @Test
    void knownBadWithoutTheStatementTheHoldIsRefused() {
        SynthesizedTemplate built = SynthesizedTemplate.load();
        ObjectNode json = (ObjectNode) built.json();
        assertThat(LeadingKeysTest.withoutNightWideHold(built, json)).isEqualTo(2);
        try (EnforcedNight local = new EnforcedNight("night-wide-hold-mutant", SynthesizedTemplate.of("no-night-wide-hold", json))) {
            EnforcedNight.Night night = local.run(20, 17, () -> deadLetterOne(local));
            List<RecordedCall> holdCalls = holdCalls(local, night);
            System.out.println("dead-lettered night, no NightWideHoldOnly: " + summary(night, holdCalls));

            assertThat(holdCalls).as("the hold's write was attempted and refused")
                    .anySatisfy(c -> {
                        assertThat(c.operation()).contains("dynamodb:TransactWriteItems");
                        assertThat(c.deniedByRecorder()).isTrue();
                        assertThat(c.errorType()).contains("AccessDeniedException");
                    })
                    .allSatisfy(c -> assertThat(c.deniedByRecorder()).isTrue());
            assertThat(holdStored(local)).as("no held#* stored").isFalse();
            assertThat(local.pipeline.provider().effects()).isEmpty();
        }
    }
}
