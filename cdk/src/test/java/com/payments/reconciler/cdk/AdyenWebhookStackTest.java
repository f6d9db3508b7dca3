package com.payments.reconciler.cdk;

import com.fasterxml.jackson.databind.JsonNode;
import com.payments.reconciler.workflow.EnvVars;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.payments.reconciler.workflow.LambdaFunction;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import software.amazon.awscdk.App;
import software.amazon.awscdk.AppProps;
import software.amazon.awscdk.assertions.Annotations;
import software.amazon.awscdk.assertions.Match;
import software.amazon.awscdk.assertions.Template;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The stack with {@code -c provider=adyen}: a synthesis of its own (the shared one is the default provider, which has no
 * receiver). The receiver's role allows exactly its own log group, its HMAC secret (and that key through Secrets
 * Manager), and sending to the ingestion queue (and that key through SQS); its URL's auth type is NONE; IngestEvents may
 * UpdateItem ReleaseCommands; cdk-nag and cfn-lint find nothing. Known-bad proof: without {@code merchantAccount} the
 * synthesis is refused naming the key ({@link #withoutAMerchantAccountTheStackIsRefused}); and the default synthesis has
 * no receiver at all ({@link #theDefaultProviderHasNoReceiver}).
 */
class AdyenWebhookStackTest {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static Synth adyen;

    private record Synth(ReconcilerStack stack, Template template, Annotations annotations, JsonNode root) {
    }

    private static synchronized Synth adyen() {
        if (adyen == null) {
            adyen = synth(context(true), "cdk-test-out-adyen");
        }
        return adyen;
    }

    private static Map<String, Object> context(boolean withMerchant) {
        Map<String, Object> context = new LinkedHashMap<>(SynthesizedStack.CONTEXT);
        context.put(StackConfig.PROVIDER, "adyen");
        if (withMerchant) {
            context.put(StackConfig.MERCHANT_ACCOUNT, "TestMerchant");
        }
        return context;
    }

    private static Synth synth(Map<String, Object> context, String out) {
        Path outdir = Path.of(System.getProperty("reconciler.target", "target"), out).toAbsolutePath();
        App app = new App(AppProps.builder().context(context).outdir(outdir.toString()).build());
        ReconcilerStack stack = ReconcilerApp.build(app, LambdaJar.fromSystemProperty());
        Template template = Template.fromStack(stack);
        return new Synth(stack, template, Annotations.fromStack(stack), JSON.valueToTree(template.toJSON()));
    }

    private static String id(Synth synth, software.constructs.IConstruct construct) {
        return synth.stack().getLogicalId((software.amazon.awscdk.CfnElement) construct.getNode().getDefaultChild());
    }

    private static List<JsonNode> statements(Synth synth, software.constructs.IConstruct role) {
        String roleId = id(synth, role);
        List<JsonNode> out = new ArrayList<>();
        synth.root().path("Resources").properties().forEach(e -> {
            JsonNode r = e.getValue();
            if (r.path("Type").asText().equals("AWS::IAM::Policy") && r.path("Properties").path("Roles").toString().contains("\"" + roleId + "\"")) {
                r.path("Properties").path("PolicyDocument").path("Statement").forEach(out::add);
            }
        });
        return out;
    }

    @Test
    void theReceiversRoleAllowsItsLogsItsSecretAndTheIngestQueueOnly() {
        Synth synth = adyen();
        AdyenWebhook webhook = synth.stack().adyenWebhook().orElseThrow();
        Map<String, List<String>> actionsBySid = new LinkedHashMap<>();
        for (JsonNode statement : statements(synth, webhook.role())) {
            List<String> actions = new ArrayList<>();
            JsonNode action = statement.path("Action");
            if (action.isArray()) {
                action.forEach(a -> actions.add(a.asText()));
            } else {
                actions.add(action.asText());
            }
            actionsBySid.put(statement.path("Sid").asText(), actions.stream().sorted().toList());
            assertThat(statement.path("Resource").toString()).as(statement.toString()).doesNotContain("\"*\"");
        }
        assertThat(actionsBySid).containsExactlyInAnyOrderEntriesOf(Map.of(
                "OwnLogGroup", List.of("logs:CreateLogStream", "logs:PutLogEvents"),
                "ReadWebhookHmacKey", List.of("secretsmanager:GetSecretValue"),
                "DecryptWebhookHmacKey", List.of("kms:Decrypt"),
                "OutcomesToIngestQueue", List.of("sqs:SendMessage"),
                "IngestQueueKey", List.of("kms:Decrypt", "kms:GenerateDataKey")));
        String roleText = statements(synth, webhook.role()).toString();
        assertThat(roleText).doesNotContain("dynamodb:").doesNotContain("states:");
        JsonNode url = synth.root().path("Resources").path(id(synth, webhook.url())).path("Properties");
        assertThat(url.path("AuthType").asText()).isEqualTo("NONE");
        // Basic auth and the merchant-account check are the handler's: it needs the merchant account the cancels name.
        JsonNode function = synth.root().path("Resources").path(id(synth, webhook.function())).path("Properties");
        assertThat(function.path("Environment").path("Variables").has(EnvVars.PROVIDER_MERCHANT_ACCOUNT)).isTrue();
        assertThat(function.path("ReservedConcurrentExecutions").asInt()).as("a small reserved concurrency by default")
                .isEqualTo(AdyenWebhook.DEFAULT_RESERVED_CONCURRENCY);
        assertThat(synth.root().path("Outputs").has(AdyenWebhook.OUTPUT_WEBHOOK_URL)).isTrue();
        assertThat(statements(synth, synth.stack().functions().role(LambdaFunction.INGEST_EVENTS)).toString())
                .contains("ProviderOutcomesToCommands").contains("dynamodb:UpdateItem");
    }

    @Test
    void cdkNagAndCfnLintFindNothing() throws Exception {
        Synth synth = adyen();
        assertThat(synth.annotations().findError("*", Match.anyValue()).stream().map(m -> m.getId() + " " + m.getEntry().getData()).toList()).isEmpty();
        assertThat(synth.annotations().findWarning("*", Match.anyValue()).stream().map(m -> m.getId() + " " + m.getEntry().getData()).toList()).isEmpty();
        Path target = Path.of(System.getProperty("reconciler.target", "target")).toAbsolutePath();
        Path file = target.resolve("cfn-lint").resolve("adyen.template.json");
        Files.createDirectories(file.getParent());
        JSON.writerWithDefaultPrettyPrinter().writeValue(file.toFile(), synth.root());
        Path log = Files.createTempFile(target, "cfn-lint-adyen", ".log");
        Process process = new ProcessBuilder(List.of("cfn-lint", "--format", "parseable", file.toString()))
                .redirectErrorStream(true).redirectOutput(log.toFile()).start();
        assertThat(process.waitFor(300, TimeUnit.SECONDS)).isTrue();
        String output = Files.readString(log, StandardCharsets.UTF_8);
        assertThat(process.exitValue()).as(output).isBetween(0, 15);
        assertThat(process.exitValue() & 2).as("cfn-lint E-level findings:\n" + output).isZero();
    }

    @Test
    void withoutAMerchantAccountTheStackIsRefused() {
        assertThatThrownBy(() -> synth(context(false), "cdk-test-out-adyen-bad"))
                .hasMessageContaining("'" + StackConfig.MERCHANT_ACCOUNT + "'");
    }

    @Test
    void theDefaultProviderHasNoReceiver() throws IOException {
        assertThat(SynthesizedStack.get().stack.adyenWebhook()).isEmpty();
    }

    /** The reserved concurrency's context value: 0..20; anything else refused naming the key (known-bad: 21, -1, "five"). */
    @Test
    void theReservedConcurrencyIsSmallAndRefusedOutsideItsRange() {
        assertThat(AdyenWebhook.reservedConcurrency(null)).isEqualTo(5);
        assertThat(AdyenWebhook.reservedConcurrency("0")).isZero();
        assertThat(AdyenWebhook.reservedConcurrency(20)).isEqualTo(20);
        for (Object bad : List.of("21", "-1", "five")) {
            assertThatThrownBy(() -> AdyenWebhook.reservedConcurrency(bad)).isInstanceOf(InvalidContext.class)
                    .hasMessageContaining(AdyenWebhook.RESERVED_CONCURRENCY_CONTEXT).hasMessageContaining("0 (none reserved) to 20");
        }
    }
}
