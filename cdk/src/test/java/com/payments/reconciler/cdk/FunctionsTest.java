package com.payments.reconciler.cdk;

import com.payments.reconciler.testing.LocalAwsClients;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.payments.reconciler.store.AwsClients;
import com.payments.reconciler.store.TableNames;
import com.payments.reconciler.window.WindowConfig;
import com.payments.reconciler.workflow.EnvVars;
import com.payments.reconciler.workflow.HandlerEnvironment;
import com.payments.reconciler.workflow.LambdaFunction;
import com.payments.reconciler.workflow.ProviderQuota;
import com.payments.reconciler.workflow.ReservedConcurrency;
import com.payments.reconciler.workflow.Timing;
import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.zip.ZipEntry;
import java.util.zip.ZipFile;
import org.junit.jupiter.api.Test;
import software.amazon.awscdk.App;
import software.amazon.awscdk.AppProps;
import software.amazon.awscdk.assertions.Template;

/** The six functions: runtime, architecture, SnapStart behind an alias, timing budget, logs, tracing, environment. */
class FunctionsTest {

    // The window settings too: every task resolves the night from them, never from the execution input.
    private static final Set<String> WORKFLOW_ENV = Set.of(TableNames.ENV_LEASES, TableNames.ENV_AUTHORISATIONS,
            TableNames.ENV_SETTLEMENTS, TableNames.ENV_RELEASE_COMMANDS, TableNames.ENV_IDEMPOTENCY, EnvVars.LEASE_NAME,
            EnvVars.SCHEDULE_TIME_ZONE, EnvVars.SCHEDULE_LOCAL_TIME, EnvVars.GRACE_PERIOD, EnvVars.SHARDS, EnvVars.DRY_RUN,
            EnvVars.WINDOW_HORIZON_DAYS);

    private final SynthesizedStack synth = SynthesizedStack.get();
    private final TemplateJson template = new TemplateJson(synth);

    @Test
    void java25OnArm64WithTheTimingBudgetsMemoryAndTimeout() {
        assertThat(template.resources("AWS::Lambda::Function")).hasSize(LambdaFunction.values().length);
        for (LambdaFunction function : LambdaFunction.values()) {
            JsonNode props = function(function).path("Properties");
            assertThat(props.path("FunctionName").asText()).isEqualTo("test-" + function.logicalName());
            assertThat(props.path("Runtime").asText()).isEqualTo("java25");
            assertThat(TemplateJson.strings(props.path("Architectures"))).containsExactly("arm64");
            assertThat(props.path("Handler").asText()).isEqualTo(function.handler());
            assertThat(props.path("MemorySize").asInt()).isEqualTo(function.memoryMb());
            assertThat(props.path("Timeout").asLong()).isEqualTo(function.timeout().toSeconds());
            assertThat(props.path("TracingConfig").path("Mode").asText()).isEqualTo("Active");
        }
    }

    @Test
    void theJarsHandlersAreCompiledForTheRuntimeTheStackDeploys() throws IOException {
        // Lambda's java25 runs class files up to major version 69 (Java 25); the build's release must not exceed it.
        try (ZipFile jar = new ZipFile(synth.jar.path().toFile())) {
            for (LambdaFunction function : LambdaFunction.values()) {
                ZipEntry entry = jar.getEntry(function.handlerClass().replace('.', '/') + ".class");
                assertThat(entry).as(function.handlerClass() + " in the Lambda jar").isNotNull();
                try (InputStream in = jar.getInputStream(entry)) {
                    byte[] header = in.readNBytes(8);
                    assertThat(((header[6] & 0xff) << 8) | (header[7] & 0xff)).as(function.handlerClass()).isEqualTo(69);
                }
            }
        }
    }

    @Test
    void snapStartOnAPublishedVersionBehindTheLiveAlias() {
        for (LambdaFunction function : LambdaFunction.values()) {
            String functionId = template.logicalId(synth.stack.functions().function(function));
            assertThat(function(function).path("Properties").path("SnapStart").path("ApplyOn").asText()).isEqualTo("PublishedVersions");
            JsonNode alias = template.resource(template.logicalId(synth.stack.functions().alias(function))).path("Properties");
            assertThat(alias.path("Name").asText()).isEqualTo(ReconcilerFunctions.ALIAS);
            assertThat(alias.path("FunctionName").path("Ref").asText()).isEqualTo(functionId);
            String versionId = alias.path("FunctionVersion").path("Fn::GetAtt").path(0).asText();
            JsonNode version = template.resource(versionId);
            assertThat(version.path("Type").asText()).isEqualTo("AWS::Lambda::Version");
            assertThat(version.path("Properties").path("FunctionName").path("Ref").asText()).isEqualTo(functionId);
        }
        assertThat(template.resources("AWS::Lambda::Version")).hasSize(LambdaFunction.values().length);
        assertThat(template.resources("AWS::Lambda::Alias")).hasSize(LambdaFunction.values().length);
    }

    @Test
    void codeIsTheFunctionsModulesShadedJar() throws IOException {
        for (LambdaFunction function : LambdaFunction.values()) {
            String key = function(function).path("Properties").path("Code").path("S3Key").asText();
            assertThat(key).endsWith(".jar");
            Path staged = synth.outdir.resolve("asset." + key);
            assertThat(Files.mismatch(staged, synth.jar.path())).as("staged asset is the -lambda.jar byte for byte").isEqualTo(-1L);
        }
        assertThat(synth.jar.path().getFileName().toString()).endsWith("-lambda.jar");
    }

    @Test
    void explicitLogGroupsWithAYearsRetentionEncryptedUnderTheTelemetryKey() {
        JsonNode telemetryKey = template.getAtt(synth.stack.keys().telemetry(), "Arn");
        for (LambdaFunction function : LambdaFunction.values()) {
            JsonNode logConfig = function(function).path("Properties").path("LoggingConfig");
            JsonNode group = template.resource(logConfig.path("LogGroup").path("Ref").asText());
            assertThat(group.path("Properties").path("LogGroupName").asText()).isEqualTo("/aws/lambda/test-" + function.logicalName());
            assertThat(group.path("Properties").path("RetentionInDays").asInt()).isEqualTo(365);
            assertThat(group.path("Properties").path("KmsKeyId")).isEqualTo(telemetryKey);
            assertThat(group.path("DeletionPolicy").asText()).isEqualTo("RetainExceptOnCreate");
        }
    }

    @Test
    void environmentCarriesNamesAndArnsOnlyWhatEachHandlerReads() {
        for (LambdaFunction function : LambdaFunction.values()) {
            Set<String> names = environment(function).keySet();
            Set<String> expected = switch (function) {
                case START_WINDOW -> Set.of(EnvVars.STATE_MACHINE_ARN, EnvVars.SCHEDULE_TIME_ZONE, EnvVars.SCHEDULE_LOCAL_TIME,
                        EnvVars.GRACE_PERIOD, EnvVars.SHARDS, EnvVars.DRY_RUN, EnvVars.WINDOW_HORIZON_DAYS);
                case DELIVER_COMMANDS -> union(WORKFLOW_ENV, Set.of(EnvVars.PROVIDER_BASE_URL, EnvVars.PROVIDER_SECRET_ID,
                        EnvVars.PROVIDER_REQUESTS_PER_SECOND, EnvVars.PROVIDER_MAX_CONCURRENT_REQUESTS, EnvVars.PROVIDER_KEY_RETENTION,
                        EnvVars.MAX_SETTLEMENT_FEED_LAG, EnvVars.PROVIDER_ADAPTER, EnvVars.PROVIDER_OUTCOME_TIMEOUT,
                        EnvVars.INGEST_DEAD_LETTER_QUEUE_URL));
                case INGEST_EVENTS -> Set.of(TableNames.ENV_AUTHORISATIONS, TableNames.ENV_SETTLEMENTS, TableNames.ENV_RELEASE_COMMANDS, EnvVars.SHARDS,
                        EnvVars.INGEST_REFUSED_QUEUE_URL);
                case RECONCILE_PAGE -> union(WORKFLOW_ENV, Set.of(EnvVars.MAX_SETTLEMENT_FEED_LAG, EnvVars.RELEASE_SURGE_FACTOR,
                        EnvVars.INGEST_DEAD_LETTER_QUEUE_URL));
                default -> WORKFLOW_ENV;
            };
            assertThat(names).as(function.logicalName()).containsExactlyInAnyOrderElementsOf(expected);
        }
        Map<String, JsonNode> deliver = environment(LambdaFunction.DELIVER_COMMANDS);
        assertThat(deliver.get(EnvVars.PROVIDER_SECRET_ID)).as("the secret's ARN, never its value").isEqualTo(template.ref(synth.stack.providerSecret()));
        assertThat(deliver.get(EnvVars.PROVIDER_BASE_URL).asText()).isEqualTo("https://provider.test/v1");
        assertThat(deliver.get(EnvVars.PROVIDER_REQUESTS_PER_SECOND).asText()).isEqualTo("12.5");
        assertThat(deliver.get(EnvVars.PROVIDER_MAX_CONCURRENT_REQUESTS).asText()).isEqualTo("16");
        // The context value, as DeliverCommands reads it back.
        assertThat(deliver.get(EnvVars.PROVIDER_KEY_RETENTION).asText()).isEqualTo("PT12H");
        assertThat(deliver.get(EnvVars.PROVIDER_ADAPTER).asText()).as("the context's default adapter").isEqualTo("generic-http");
        assertThat(environment(LambdaFunction.START_WINDOW).get(EnvVars.STATE_MACHINE_ARN))
                .isEqualTo(template.ref(synth.stack.workflow().stateMachine()));
        // Ingestion files new pending authorisations under exactly the shards StartWindow's executions query.
        assertThat(WindowConfig.fromEnvironment(plain(LambdaFunction.INGEST_EVENTS)).shards())
                .isEqualTo(WindowConfig.fromEnvironment(plain(LambdaFunction.START_WINDOW)).shards()).isEqualTo(8);
    }

    @Test
    void startWindowReadsBackExactlyTheContextsWindowConfiguration() {
        WindowConfig read = WindowConfig.fromEnvironment(plain(LambdaFunction.START_WINDOW));
        assertThat(read).isEqualTo(synth.config.window());
        assertThat(read.zone().getId()).isEqualTo("Europe/London");
        assertThat(read.localTime().toString()).isEqualTo("02:30");
        assertThat(read.shards()).isEqualTo(8);
        assertThat(read.horizonDays()).isEqualTo(14);
    }

    /** DeliverCommands reads back exactly the context's provider quota (12.5 requests/s, 16 at once in the stack tests). */
    @Test
    void deliverCommandsReadsBackExactlyTheContextsProviderQuota() {
        AwsClients local = new LocalAwsClients(URI.create("http://127.0.0.1:9"), List.of());
        HandlerEnvironment env = new HandlerEnvironment(plain(LambdaFunction.DELIVER_COMMANDS), local, Clock.systemUTC());
        assertThat(ProviderQuota.fromEnvironment(env)).isEqualTo(synth.config.providerQuota()).isEqualTo(new ProviderQuota(12.5, 16));
    }

    /**
     * Reserved concurrency is the rule's, per function: 2 overlapping executions × what one execution runs at once
     * (the delivery Map's MaxConcurrency for DeliverCommands, 1 otherwise); IngestEvents, which no execution runs,
     * its queue mapping's MaximumConcurrency (IngestionTest checks the mapping carries the same number).
     */
    @Test
    void everyFunctionReservesTheConcurrencyTheWorkflowCanUse() {
        for (LambdaFunction function : LambdaFunction.values()) {
            assertThat(function(function).path("Properties").path("ReservedConcurrentExecutions").isInt()).as(function.logicalName()).isTrue();
            assertThat(function(function).path("Properties").path("ReservedConcurrentExecutions").asInt()).as(function.logicalName())
                    .isEqualTo(ReservedConcurrency.of(function));
        }
        // The rule's values today, so a change to it is seen here: 8 for DeliverCommands (Map concurrency 4), 5 for
        // IngestEvents, 2 for the others.
        assertThat(ReservedConcurrency.of(LambdaFunction.DELIVER_COMMANDS)).isEqualTo(2 * Timing.DELIVERY_MAP_CONCURRENCY).isEqualTo(8);
        assertThat(ReservedConcurrency.of(LambdaFunction.START_WINDOW)).isEqualTo(2);
        assertThat(ReservedConcurrency.of(LambdaFunction.INGEST_EVENTS)).isEqualTo(ReservedConcurrency.INGESTION_MAX_CONCURRENCY).isEqualTo(5);
        assertThat(ReservedConcurrency.total()).isEqualTo(21);
    }

    /** {@code -c reserveConcurrency=false}: no function reserves anything (an account whose limit cannot keep 100 unreserved). */
    @Test
    void reserveConcurrencyFalseRemovesEveryReservation() {
        Map<String, Object> context = new HashMap<>(SynthesizedStack.CONTEXT);
        context.put(StackConfig.RESERVE_CONCURRENCY, "false");
        Path outdir = synth.outdir.resolveSibling("cdk-test-out-unreserved");
        App app = new App(AppProps.builder().context(context).outdir(outdir.toString()).build());
        ReconcilerStack stack = ReconcilerApp.build(app, synth.jar);
        JsonNode root = new ObjectMapper().valueToTree(Template.fromStack(stack).toJSON());
        List<JsonNode> functions = new ArrayList<>();
        root.path("Resources").forEach(r -> {
            if (r.path("Type").asText().equals("AWS::Lambda::Function")) {
                functions.add(r);
            }
        });
        assertThat(functions).hasSize(LambdaFunction.values().length)
                .allSatisfy(f -> assertThat(f.path("Properties").has("ReservedConcurrentExecutions")).isFalse());
    }

    @Test
    void workflowFunctionsReadTheStacksTableNames() {
        for (LambdaFunction function : LambdaFunction.values()) {
            if (function.invokedByWorkflow()) {
                assertThat(TableNames.fromEnvironment(plain(function))).isEqualTo(TableNames.withPrefix("test-"));
            }
        }
    }

    /** Each handler is built from its deployed environment alone, as Lambda will: a missing variable fails here. */
    @Test
    void everyHandlerConstructsFromItsDeployedEnvironment() {
        AwsClients local = new LocalAwsClients(URI.create("http://127.0.0.1:9"), List.of());
        Clock clock = Clock.fixed(Instant.parse("2026-12-01T02:30:00Z"), ZoneOffset.UTC);
        for (LambdaFunction function : LambdaFunction.values()) {
            HandlerEnvironment env = new HandlerEnvironment(plain(function), local, clock);
            assertThatCode(() -> Class.forName(function.handlerClass()).getConstructor(HandlerEnvironment.class).newInstance(env))
                    .as(function.logicalName()).doesNotThrowAnyException();
        }
    }

    /** The environment with CloudFormation references replaced by values of the shape they resolve to. */
    private Map<String, String> plain(LambdaFunction function) {
        Map<String, String> env = new HashMap<>();
        environment(function).forEach((name, value) -> env.put(name, value.isTextual() ? value.asText() : switch (name) {
            case EnvVars.STATE_MACHINE_ARN -> "arn:aws:states:eu-west-1:123456789012:stateMachine:test-hold-release-reconciler";
            case EnvVars.PROVIDER_SECRET_ID -> "arn:aws:secretsmanager:eu-west-1:123456789012:secret:test/provider-api-key-AbCdEf";
            case EnvVars.INGEST_DEAD_LETTER_QUEUE_URL -> "https://sqs.eu-west-1.amazonaws.com/123456789012/test-ingest-events-dlq";
            case EnvVars.INGEST_REFUSED_QUEUE_URL -> "https://sqs.eu-west-1.amazonaws.com/123456789012/test-ingest-events-refused";
            default -> throw new AssertionError(function + " " + name + " is a reference of unexpected kind: " + value);
        }));
        return env;
    }

    private Map<String, JsonNode> environment(LambdaFunction function) {
        Map<String, JsonNode> env = new LinkedHashMap<>();
        function(function).path("Properties").path("Environment").path("Variables").properties()
                .forEach(e -> env.put(e.getKey(), e.getValue()));
        return env;
    }

    private JsonNode function(LambdaFunction function) {
        return template.resource(template.logicalId(synth.stack.functions().function(function)));
    }


    private static Set<String> union(Set<String> a, Set<String> b) {
        Set<String> all = new HashSet<>(a);
        all.addAll(b);
        return all;
    }
}
