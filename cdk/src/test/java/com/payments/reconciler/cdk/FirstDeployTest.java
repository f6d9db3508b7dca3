package com.payments.reconciler.cdk;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.payments.reconciler.workflow.DeployTarget;
import com.payments.reconciler.workflow.Metrics;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;
import software.amazon.awscdk.App;
import software.amazon.awscdk.AppProps;
import software.amazon.awscdk.Environment;

/**
 * What goes wrong the first time the stack meets a real account, each as a check on the template or the app:
 * a failed first create leaves nothing behind, the committed settings deploy on a small account and schedule no
 * live night against the placeholder provider, a region without SnapStart is refused at synth, and every alarm
 * says when it recovers and pages once per incident. Each check has a known-bad input it fails on.
 */
class FirstDeployTest {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Path CDK_JSON = Path.of(System.getProperty("reconciler.repositoryRoot", "..")).resolve("cdk.json");
    private final SynthesizedStack synth = SynthesizedStack.get();
    private final TemplateJson template = new TemplateJson(synth);

    // --- a failed first create leaves nothing behind -------------------------------------------------------------

    /**
     * Every resource the stack does not delete with itself is RetainExceptOnCreate: kept on delete and replacement,
     * but deleted by the rollback of the create that made it, so a failed first deploy can simply be deployed again.
     */
    @Test
    void everyRetainedResourceIsDeletedByTheRollbackOfItsOwnCreate() {
        assertThat(retainedResourcesKeptAfterAFailedCreate(template.root())).isEmpty();
        assertThat(retainedResources(template.root())).as("what the stack keeps").hasSize(4 + 1 + 7 + 2);
    }

    /** The check can fail: the template as it was, with plain {@code Retain} on a table. */
    @Test
    void theRetentionCheckFailsOnAPlainRetain() {
        JsonNode bad = template.root().deepCopy();
        String table = template.logicalId(synth.stack.tables().table(com.payments.reconciler.store.Tables.Leases.SCHEMA));
        ((ObjectNode) bad.path("Resources").path(table)).put("DeletionPolicy", "Retain");
        assertThat(retainedResourcesKeptAfterAFailedCreate(bad)).containsExactly(table + " (DeletionPolicy Retain)");
    }

    /**
     * Deletion protection would stop the rollback of a failed first create from deleting a table (the rollback ends
     * ROLLBACK_FAILED, the table stays, and the next create collides with it): off in the committed settings, turned on
     * by {@code tableDeletionProtection=true} once the stack exists; the shared synthesis sets it.
     */
    @Test
    void deletionProtectionIsOffForTheFirstCreateAndOnWhenAsked() throws IOException {
        StackConfig committed = StackConfig.fromContext(committedContext()::get);
        assertThat(committed.tableDeletionProtection()).isFalse();
        template.resources("AWS::DynamoDB::Table").values().stream().filter(t -> t.path("DeletionPolicy").asText().startsWith("Retain"))
                .forEach(t -> assertThat(t.path("Properties").path("DeletionProtectionEnabled").asBoolean()).isTrue());
    }

    // --- the committed settings fit a small account and the placeholder provider -------------------------------

    /** A new account's concurrency cannot keep 100 unreserved beside 21: the committed settings reserve nothing. */
    @Test
    void theCommittedSettingsReserveNoConcurrency() throws IOException {
        assertThat(StackConfig.fromContext(committedContext()::get).reserveConcurrency()).isFalse();
        assertThat(StackConfig.fromContext(k -> null).reserveConcurrency()).as("the default without cdk.json").isFalse();
    }

    /** The committed settings carry the placeholder provider URL, so they deploy a dry run; a live night needs a real URL. */
    @Test
    void aLiveNightWithThePlaceholderProviderIsRefusedAtSynth() throws IOException {
        StackConfig committed = StackConfig.fromContext(committedContext()::get);
        assertThat(committed.providerBaseUrl().toString()).isEqualTo(DeployTarget.PLACEHOLDER_PROVIDER_BASE_URL);
        assertThat(committed.window().dryRun()).as("the committed first deploy").isTrue();
        Map<String, Object> live = new HashMap<>(committedContext());
        live.put(StackConfig.DRY_RUN, false);
        assertThatThrownBy(() -> StackConfig.fromContext(live::get)).isInstanceOf(InvalidContext.class)
                .hasMessageContaining("'" + StackConfig.PROVIDER_BASE_URL + "'").hasMessageContaining(StackConfig.DRY_RUN + "=false")
                .hasMessageContaining(DeployTarget.PLACEHOLDER_PROVIDER_BASE_URL);
        live.put(StackConfig.PROVIDER_BASE_URL, "https://api.card-provider.example/v2");
        assertThat(StackConfig.fromContext(live::get).window().dryRun()).as("a real URL makes it live").isFalse();
    }

    // --- ingestion retries transient failures -----------------------------------------------------------------------

    /**
     * AWS's guidance for a queue that feeds Lambda: a maxReceiveCount of at least 5, so throttles, a SnapStart error
     * or a store blip do not dead-letter good events; refused events do not need the receives (IngestEvents sends them).
     */
    @Test
    void theIngestionQueueRetriesTransientFailuresAtLeastFiveReceives() {
        JsonNode queue = template.resource(template.logicalId(synth.stack.ingestion().queue()));
        assertThat(queue.path("Properties").path("RedrivePolicy").path("maxReceiveCount").asInt()).isGreaterThanOrEqualTo(5);
    }

    /**
     * Refused events go to the refused-events queue from IngestEvents itself: it knows the queue (its URL in the
     * environment, and not the dead-letter queue's) and may send to that queue only, with the data key's use through SQS
     * for it, and nothing else new.
     */
    @Test
    void ingestEventsSendsRefusedEventsToTheRefusedQueueOnly() {
        var functions = synth.stack.functions();
        var ingestion = synth.stack.ingestion();
        JsonNode env = template.resource(template.logicalId(functions.function(com.payments.reconciler.workflow.LambdaFunction.INGEST_EVENTS)))
                .path("Properties").path("Environment").path("Variables");
        assertThat(env.path(com.payments.reconciler.workflow.EnvVars.INGEST_REFUSED_QUEUE_URL)).isEqualTo(template.ref(ingestion.refusedQueue()));
        assertThat(env.has(com.payments.reconciler.workflow.EnvVars.INGEST_DEAD_LETTER_QUEUE_URL)).isFalse();
        List<JsonNode> sends = new ArrayList<>();
        template.resources("AWS::IAM::Policy").values().forEach(p -> p.path("Properties").path("PolicyDocument").path("Statement").forEach(s -> {
            if (TemplateJson.strings(s.path("Action")).contains("sqs:SendMessage")) {
                sends.add(s);
            }
        }));
        List<JsonNode> ingestSends = template.statementsOf(functions.role(com.payments.reconciler.workflow.LambdaFunction.INGEST_EVENTS)).stream()
                .filter(s -> TemplateJson.strings(s.path("Action")).contains("sqs:SendMessage")).toList();
        assertThat(ingestSends).singleElement().satisfies(s -> {
            assertThat(TemplateJson.strings(s.path("Action"))).containsExactly("sqs:SendMessage");
            assertThat(TemplateJson.nodes(s.path("Resource"))).containsExactly(template.getAtt(ingestion.refusedQueue(), "Arn"));
        });
        assertThat(template.statementsOf(functions.role(com.payments.reconciler.workflow.LambdaFunction.INGEST_EVENTS)))
                .anySatisfy(s -> assertThat(TemplateJson.strings(s.path("Action"))).containsExactly("kms:GenerateDataKey"));
    }

    // --- SnapStart's regions -------------------------------------------------------------------------------------

    @Test
    void aRegionWithoutSnapStartForJavaIsRefusedAtSynthNamingTheRegion() {
        for (String region : DeployTarget.SNAPSTART_JAVA_NOT_OFFERED.keySet()) {
            App app = new App(AppProps.builder().context(SynthesizedStack.CONTEXT).outdir(synth.outdir.resolveSibling("cdk-test-out-region").toString()).build());
            assertThatThrownBy(() -> ReconcilerApp.build(app, synth.jar, Environment.builder().region(region).build()))
                    .isInstanceOf(InvalidContext.class).hasMessageContaining(region).hasMessageContaining("SnapStart");
        }
        assertThat(DeployTarget.snapStartRefusal("eu-west-1")).isEmpty();
        assertThat(DeployTarget.snapStartRefusal("cn-north-1")).isPresent();
    }

    // --- alarms --------------------------------------------------------------------------------------------------

    /**
     * Whoever heard an alarm on a lasting state (messages waiting, a night that did not start) hears that it is over:
     * those alarms have the paging action as their OK action. An alarm on events (a count per period) has none: it goes
     * back to OK at the next quiet period whatever became of what paged, and an OK notice would announce a recovery
     * that did not happen.
     */
    @Test
    void stateAlarmsSayWhenTheyAreOverAndEventAlarmsDoNot() {
        assertThat(alarmsWithWrongRecovery(template.root())).isEmpty();
        assertThat(alarm(template.root(), "test-IngestDeadLetters").path("OKActions")).isNotEmpty();
        assertThat(alarm(template.root(), "test-ExecutionsFailed").path("OKActions")).isEmpty();
    }

    @Test
    void theRecoveryCheckFailsOnAStateAlarmWithoutOkActionsAndAnEventAlarmWithThem() {
        JsonNode bad = template.root().deepCopy();
        JsonNode dlq = bad.path("Resources").path(alarmId(bad, "test-IngestDeadLetters")).path("Properties");
        ((ObjectNode) dlq).remove("OKActions");
        JsonNode failed = bad.path("Resources").path(alarmId(bad, "test-ExecutionsFailed")).path("Properties");
        ((ObjectNode) failed).set("OKActions", failed.path("AlarmActions").deepCopy());
        assertThat(alarmsWithWrongRecovery(bad)).containsExactlyInAnyOrder("test-IngestDeadLetters", "test-ExecutionsFailed");
    }

    @Test
    void theTimedOutAlarmSaysWhatToDoFirst() {
        String description = alarm(template.root(), "test-ExecutionsTimedOut").path("AlarmDescription").asText();
        assertThat(description).contains("bin/reconciler status --window W").contains("redrive");
    }

    /**
     * One page per incident: a superseded run counts in ExecutionsFailed (AWS/States) and in the SupersededRuns log
     * metric; exactly one paging alarm may watch the metrics it moves.
     */
    @Test
    void aSupersededRunPagesOnce() {
        assertThat(pagingAlarmsSeeing(template.root(), Set.of("ExecutionsFailed", Metrics.SUPERSEDED_RUNS)))
                .containsExactly("test-ExecutionsFailed");
        JsonNode superseded = alarm(template.root(), "test-SupersededRuns");
        assertThat(superseded.path("AlarmDescription").asText()).contains("ExecutionsFailed");
    }

    @Test
    void theOnePageCheckFailsWhenSupersededRunsPagesToo() {
        JsonNode bad = template.root().deepCopy();
        JsonNode failed = alarm(bad, "test-ExecutionsFailed");
        ObjectNode superseded = (ObjectNode) alarm(bad, "test-SupersededRuns");
        superseded.set("AlarmActions", failed.path("AlarmActions").deepCopy());
        assertThat(pagingAlarmsSeeing(bad, Set.of("ExecutionsFailed", Metrics.SUPERSEDED_RUNS)))
                .containsExactlyInAnyOrder("test-ExecutionsFailed", "test-SupersededRuns");
    }

    // --- the checks ----------------------------------------------------------------------------------------------

    static Map<String, JsonNode> retainedResources(JsonNode root) {
        Map<String, JsonNode> kept = new LinkedHashMap<>();
        root.path("Resources").properties().forEach(e -> {
            String policy = e.getValue().path("DeletionPolicy").asText("Delete");
            if (!policy.equals("Delete")) {
                kept.put(e.getKey(), e.getValue());
            }
        });
        return kept;
    }

    static List<String> retainedResourcesKeptAfterAFailedCreate(JsonNode root) {
        List<String> wrong = new ArrayList<>();
        retainedResources(root).forEach((id, r) -> {
            String deletion = r.path("DeletionPolicy").asText();
            if (!deletion.equals("RetainExceptOnCreate")) {
                wrong.add(id + " (DeletionPolicy " + deletion + ")");
            }
            if (!r.path("UpdateReplacePolicy").asText().equals("Retain")) {
                wrong.add(id + " (UpdateReplacePolicy " + r.path("UpdateReplacePolicy").asText() + ")");
            }
        });
        return wrong;
    }

    /** The metrics whose alarms describe a lasting state rather than count events. */
    static final Set<String> STATE_METRICS = Set.of("ApproximateNumberOfMessagesVisible", "ApproximateAgeOfOldestMessage",
            "ExecutionsStarted");

    /** Paging alarms whose OK actions disagree with their kind: a state alarm without them, an event alarm with them. */
    static List<String> alarmsWithWrongRecovery(JsonNode root) {
        List<String> wrong = new ArrayList<>();
        root.path("Resources").forEach(r -> {
            if (r.path("Type").asText().equals("AWS::CloudWatch::Alarm")) {
                JsonNode p = r.path("Properties");
                if (p.path("AlarmActions").isEmpty()) {
                    return;
                }
                // A state metric watched directly or in a metric math expression (IngestDeadLetters adds the queue's three counts).
                List<String> watched = new ArrayList<>();
                watched.add(p.path("MetricName").asText());
                p.path("Metrics").forEach(m -> watched.add(m.path("MetricStat").path("Metric").path("MetricName").asText()));
                boolean state = watched.stream().anyMatch(STATE_METRICS::contains);
                boolean sayItIsOver = p.path("OKActions").equals(p.path("AlarmActions"));
                if (state != sayItIsOver) {
                    wrong.add(p.path("AlarmName").asText());
                }
            }
        });
        return wrong;
    }

    /** Alarms with an action that watch any of {@code metrics} (directly or in a metric math expression). */
    static Set<String> pagingAlarmsSeeing(JsonNode root, Set<String> metrics) {
        Set<String> paging = new TreeSet<>();
        root.path("Resources").forEach(r -> {
            if (r.path("Type").asText().equals("AWS::CloudWatch::Alarm")) {
                JsonNode p = r.path("Properties");
                List<String> watched = new ArrayList<>();
                watched.add(p.path("MetricName").asText());
                p.path("Metrics").forEach(m -> watched.add(m.path("MetricStat").path("Metric").path("MetricName").asText()));
                if (p.path("AlarmActions").size() > 0 && watched.stream().anyMatch(metrics::contains)) {
                    paging.add(p.path("AlarmName").asText());
                }
            }
        });
        return paging;
    }

    private static JsonNode alarm(JsonNode root, String name) {
        return root.path("Resources").path(alarmId(root, name)).path("Properties");
    }

    private static String alarmId(JsonNode root, String name) {
        List<String> ids = new ArrayList<>();
        root.path("Resources").properties().forEach(e -> {
            if (e.getValue().path("Properties").path("AlarmName").asText().equals(name)) {
                ids.add(e.getKey());
            }
        });
        assertThat(ids).as(name).hasSize(1);
        return ids.get(0);
    }

    static Map<String, Object> committedContext() throws IOException {
        Map<String, Object> context = new HashMap<>();
        JSON.readTree(Files.readString(CDK_JSON)).path("context").properties()
                .forEach(e -> context.put(e.getKey(), JSON.convertValue(e.getValue(), Object.class)));
        return context;
    }
}
