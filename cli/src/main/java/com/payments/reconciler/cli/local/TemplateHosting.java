package com.payments.reconciler.cli.local;

import com.fasterxml.jackson.databind.JsonNode;
import com.payments.reconciler.cli.aws.ArnScope;
import com.payments.reconciler.cli.aws.AwsCallRecorder;
import com.payments.reconciler.cli.aws.CallerAttribution;
import com.payments.reconciler.cli.aws.IntrinsicResolver;
import com.payments.reconciler.cli.aws.LeastPrivilegeProof;
import com.payments.reconciler.cli.aws.LocalResources;
import com.payments.reconciler.cli.aws.SynthesizedTemplate;
import com.payments.reconciler.cli.aws.TemplateResources;
import com.payments.reconciler.cli.lambda.FunctionCode;
import com.payments.reconciler.cli.lambda.FunctionSpec;
import com.payments.reconciler.cli.lambda.ProcessLambdaService;
import com.payments.reconciler.store.TableNames;
import com.payments.reconciler.store.TableSchema;
import com.payments.reconciler.store.Tables;
import com.payments.reconciler.workflow.EnvVars;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Stream;

/**
 * The functions hosted as the synthesised stack deploys them: each function of the template in JVM sandboxes of
 * its own ({@link ProcessLambdaService}: the template's Handler, MemorySize and Timeout, its Environment with
 * every intrinsic resolved to the local resources, container credentials of its own), and every AWS call they
 * make going through an enforcing {@link AwsCallRecorder} in front of moto that answers AccessDeniedException
 * unless the function's role in the template allows it. Two values of the template are replaced, because the
 * local world has its own: the provider's base URL (the simulated provider) and the window settings the run
 * was given (StartWindow's variables the stack sets from cdk.json). The endpoint reaches the SDK only as its
 * standard {@code AWS_ENDPOINT_URL}.
 */
public final class TemplateHosting implements AutoCloseable {

    /** Where the cli finds the deployment package (bin/reconciler and the build set it). */
    static final String LAMBDA_JAR_PROPERTY = "reconciler.lambdaJar";

    private final SynthesizedTemplate template;
    private final ProcessLambdaService lambda;
    private final AtomicReference<AwsCallRecorder.Authorizer> gate = new AtomicReference<>();
    private final AtomicReference<LeastPrivilegeProof> proof = new AtomicReference<>();
    private AwsCallRecorder recorder;

    private TemplateHosting(SynthesizedTemplate template, ProcessLambdaService lambda) {
        this.template = template;
        this.lambda = lambda;
    }

    /** Starts the Invoke API with no function yet: moto needs its address before the resources exist. */
    static TemplateHosting start(Path workDir, SynthesizedTemplate template) {
        ProcessLambdaService.Config config = ProcessLambdaService.Config.defaults(workDir.resolve("lambda"),
                FunctionCode.shadedJar(lambdaJar())).withRegion(StateMachineDeployer.LOCAL_REGION);
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
            env.put("AWS_ENDPOINT_URL", recorder.endpoint().toString());
            lambda.deploy(new FunctionSpec(function.function().logicalName(), function.handler(), function.memorySize(),
                    Duration.ofSeconds(function.timeoutSeconds()), env));
        }
        LeastPrivilegeProof proof = new LeastPrivilegeProof(template, resolver);
        gate.set(proof.authorizer(attribution()));
        this.proof.set(proof);
    }

    /** The proof the front door enforces, against the resources of the last {@link #deploy}. */
    public LeastPrivilegeProof proof() {
        return proof.get();
    }

    /** Which function made a call: by the access key id of the container credentials the sandbox was given. */
    public CallerAttribution attribution() {
        return caller -> caller.accessKeyId().flatMap(lambda::functionOfAccessKeyId);
    }

    private String onlyProperty(String type, String property) {
        List<JsonNode> all = List.copyOf(template.resources(type).values());
        if (all.size() != 1 || !all.getFirst().path("Properties").path(property).isTextual()) {
            throw new IllegalStateException(template.name() + " must have one " + type + " with a literal " + property);
        }
        return all.getFirst().path("Properties").path(property).asText();
    }

    /** The functions module's shaded jar: the system property, else {@code functions/target/functions-*-lambda.jar} here. */
    static Path lambdaJar() {
        String property = System.getProperty(LAMBDA_JAR_PROPERTY);
        if (property != null && !property.isBlank()) {
            return Path.of(property);
        }
        Path target = Path.of("functions", "target");
        try (Stream<Path> jars = Files.isDirectory(target) ? Files.list(target) : Stream.empty()) {
            return jars.filter(p -> p.getFileName().toString().matches("functions-.*-lambda\\.jar")).findFirst()
                    .orElseThrow(() -> new IllegalStateException("no Lambda jar: set -D" + LAMBDA_JAR_PROPERTY
                            + " or run from the repository root after `mvn -B -pl functions -am package -DskipTests`"));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
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
