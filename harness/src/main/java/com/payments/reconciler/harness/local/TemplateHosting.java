package com.payments.reconciler.harness.local;

import com.fasterxml.jackson.databind.JsonNode;
import com.payments.reconciler.harness.aws.ArnScope;
import com.payments.reconciler.harness.aws.AwsCallRecorder;
import com.payments.reconciler.harness.aws.CallerAttribution;
import com.payments.reconciler.harness.aws.IntrinsicResolver;
import com.payments.reconciler.harness.aws.LeastPrivilegeProof;
import com.payments.reconciler.harness.aws.LocalResources;
import com.payments.reconciler.harness.aws.SynthesizedTemplate;
import com.payments.reconciler.harness.aws.TemplateResources;
import com.payments.reconciler.harness.lambda.FunctionCode;
import com.payments.reconciler.harness.lambda.FunctionSpec;
import com.payments.reconciler.harness.lambda.ProcessLambdaService;
import com.payments.reconciler.store.TableNames;
import com.payments.reconciler.store.TableSchema;
import com.payments.reconciler.store.Tables;
import com.payments.reconciler.workflow.EnvVars;
import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicReference;

/**
 * The functions hosted as the synthesised stack deploys them: each function of the template in JVM sandboxes of
 * its own ({@link ProcessLambdaService}: the template's Handler, MemorySize and Timeout, ReservedConcurrentExecutions as
 * its sandbox cap, its Environment with every intrinsic resolved to the local resources, container credentials of its
 * own), and every AWS call they make going through an enforcing {@link AwsCallRecorder} in front of moto that
 * answers AccessDeniedException unless the function's role in the template allows it. Two values of the template are replaced, because the
 * local world has its own: the provider's base URL (the simulated provider) and the window settings the run
 * was given (StartWindow's variables the stack sets from cdk.json). The endpoint reaches the SDK only as its
 * standard {@code AWS_ENDPOINT_URL}.
 */
public final class TemplateHosting implements AutoCloseable {

    private final SynthesizedTemplate template;
    private final ProcessLambdaService lambda;
    private final AtomicReference<AwsCallRecorder.Authorizer> gate = new AtomicReference<>();
    private final AtomicReference<LeastPrivilegeProof> proof = new AtomicReference<>();
    private final AtomicReference<CallerAttribution> attribution = new AtomicReference<>();
    private AwsCallRecorder recorder;

    private TemplateHosting(SynthesizedTemplate template, ProcessLambdaService lambda) {
        this.template = template;
        this.lambda = lambda;
    }

    /** Starts the Invoke API with no function yet: moto needs its address before the resources exist. */
    static TemplateHosting start(Path workDir, SynthesizedTemplate template) {
        ProcessLambdaService.Config config = ProcessLambdaService.Config.defaults(workDir.resolve("lambda"),
                FunctionCode.shadedJar(FunctionCode.deploymentPackage())).withRegion(StateMachineDeployer.LOCAL_REGION);
        return new TemplateHosting(template, ProcessLambdaService.start(config, List.of()));
    }

    public ProcessLambdaService lambda() {
        return lambda;
    }

    /** Opens the front door every function's AWS calls go through; nothing passes it until {@link #deploy}. */
    void openFrontDoor(URI engines) {
        recorder = AwsCallRecorder.start(engines, ArnScope.of(LocalResources.MOTO_ACCOUNT, Map.of()), List.of(),
                AwsCallRecorder.Mode.ENFORCE, (caller, actions, unmapped) -> Optional.ofNullable(gate.get())
                        .map(g -> g.denial(caller, actions, unmapped)).orElse(Optional.of("the local resources are not provisioned yet")));
    }

    AwsCallRecorder recorder() {
        return recorder;
    }

    /** The template's table names (the stack's prefix and the logical names). */
    TableNames tables() {
        Map<String, JsonNode> tables = template.resources("AWS::DynamoDB::Table");
        String prefix = null;
        for (TableSchema schema : Tables.ALL) {
            String name = tables.values().stream().map(t -> t.path("Properties").path("TableName").asText())
                    .filter(n -> n.endsWith(schema.logicalName())).findFirst()
                    .orElseThrow(() -> new IllegalStateException(template.name() + " has no table for " + schema.logicalName()));
            String its = name.substring(0, name.length() - schema.logicalName().length());
            if (prefix != null && !prefix.equals(its)) {
                throw new IllegalStateException(template.name() + "'s tables do not share one prefix: " + prefix + " and " + its);
            }
            prefix = its;
        }
        return TableNames.withPrefix(prefix);
    }

    String stateMachineName() {
        return onlyProperty("AWS::StepFunctions::StateMachine", "StateMachineName");
    }

    String providerSecretName() {
        return onlyProperty("AWS::SecretsManager::Secret", "Name");
    }

    /**
     * Configures every function from the template against the resources just created (again after a reset:
     * the secret's ARN changes with each creation, and the sandboxes are replaced).
     */
    void deploy(TableNames tables, String stateMachineArn, String secretArn, URI providerBaseUrl, Map<String, String> windowSettings) {
        LocalResources resources = TemplateResources.of(template, tables, stateMachineArn, secretArn,
                StateMachineDeployer.LOCAL_REGION, LocalResources.MOTO_ACCOUNT);
        IntrinsicResolver resolver = new IntrinsicResolver(resources);
        for (SynthesizedTemplate.TemplateFunction function : template.functions()) {
            Map<String, String> env = new LinkedHashMap<>(function.environment(resolver));
            if (env.containsKey(EnvVars.PROVIDER_BASE_URL)) {
                env.put(EnvVars.PROVIDER_BASE_URL, providerBaseUrl.toString());
            }
            windowSettings.forEach((name, value) -> env.computeIfPresent(name, (k, v) -> value));
            // The local run's dead-letter and refused-events queues, as in-process (LocalPipeline): the template's names are
            // not the local queues'.
            env.computeIfPresent(EnvVars.INGEST_DEAD_LETTER_QUEUE_URL, (k, v) -> LocalPipeline.localDeadLetterQueueUrl());
            env.computeIfPresent(EnvVars.INGEST_REFUSED_QUEUE_URL, (k, v) -> LocalPipeline.localRefusedQueueUrl());
            env.put("AWS_ENDPOINT_URL", recorder.endpoint().toString());
            lambda.deploy(spec(function, env));
        }
        LeastPrivilegeProof proof = new LeastPrivilegeProof(template, resolver);
        // Every function is deployed now, so the key lookup is complete; keys survive a redeploy.
        CallerAttribution byKey = CallerAttribution.byAccessKeyId(lambda.functionsByAccessKeyId());
        attribution.set(byKey);
        gate.set(proof.authorizer(byKey));
        this.proof.set(proof);
    }

    /** The template's function as the sandboxes run it: its Handler, MemorySize, Timeout and reserved concurrency, with {@code env}. */
    static FunctionSpec spec(SynthesizedTemplate.TemplateFunction function, Map<String, String> env) {
        return new FunctionSpec(function.function().logicalName(), function.handler(), function.memorySize(),
                Duration.ofSeconds(function.timeoutSeconds()), env, function.reservedConcurrency());
    }

    /** The proof the front door enforces, against the resources of the last {@link #deploy}. */
    public LeastPrivilegeProof proof() {
        return proof.get();
    }

    /** Which function made a call: by the access key id of the container credentials its sandboxes were given. */
    public CallerAttribution attribution() {
        return attribution.get();
    }

    private String onlyProperty(String type, String property) {
        List<JsonNode> all = List.copyOf(template.resources(type).values());
        if (all.size() != 1 || !all.getFirst().path("Properties").path(property).isTextual()) {
            throw new IllegalStateException(template.name() + " must have one " + type + " with a literal " + property);
        }
        return all.getFirst().path("Properties").path(property).asText();
    }

    @Override
    public void close() {
        try {
            lambda.close();
        } finally {
            if (recorder != null) {
                recorder.close();
            }
        }
    }
}
