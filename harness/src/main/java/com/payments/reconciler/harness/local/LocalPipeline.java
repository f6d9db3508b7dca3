package com.payments.reconciler.harness.local;

import com.payments.reconciler.cli.operator.ExecutionFollower;

import com.amazonaws.services.lambda.runtime.RequestStreamHandler;
import com.payments.reconciler.harness.aws.AwsCallRecorder;
import com.payments.reconciler.harness.aws.SynthesizedTemplate;
import com.payments.reconciler.local.moto.MotoServer;
import com.payments.reconciler.local.moto.WriteLog;
import com.payments.reconciler.local.provider.AdyenFake;
import com.payments.reconciler.local.provider.ProviderFaults;
import com.payments.reconciler.local.provider.RequestQuota;
import com.payments.reconciler.local.provider.SimulatedProvider;
import com.payments.reconciler.store.AwsClients;
import com.payments.reconciler.store.TableCreator;
import com.payments.reconciler.store.TableNames;
import com.payments.reconciler.testing.LocalAwsClients;
import com.payments.reconciler.delivery.ProviderAdapters;
import com.payments.reconciler.workflow.EnvVars;
import com.payments.reconciler.workflow.FixedNames;
import com.payments.reconciler.workflow.HandlerEnvironment;
import com.payments.reconciler.workflow.LambdaFunction;
import com.payments.reconciler.workflow.ProviderKeyRetention;
import com.payments.reconciler.workflow.ProviderQuota;
import java.lang.reflect.InvocationTargetException;
import java.net.URI;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Consumer;
import software.amazon.awssdk.core.interceptor.ExecutionInterceptor;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.secretsmanager.SecretsManagerClient;
import software.amazon.awssdk.services.sfn.SfnClient;
import software.amazon.awssdk.services.sfn.model.HistoryEvent;

/**
 * The whole system on loopback: moto (DynamoDB and Step Functions, the real ASL executed by its
 * interpreter), a local Lambda Invoke endpoint hosting the real handler classes, and the tables and
 * state machine created from the same definitions the CDK stack deploys. Handlers are built exactly
 * as Lambda builds them (by class name), with an environment pointing at the local engines.
 */
public final class LocalPipeline implements AutoCloseable {

    /**
     * @param workDir where moto's logs go
     * @param clock the handlers' clock (tests and scenarios shift it to expire leases)
     * @param fastRetries Retry waits capped at 1 s (tests); the retriers are otherwise as written
     * @param dynamoInterceptors the handlers' DynamoDB fault layer, if any
     * @param providerFaults the simulated provider's seeded faults
     * @param env extra handler environment (e.g. the window configuration StartWindow reads)
     * @param hosting how the functions run: handler classes in this JVM, or the synthesised stack's functions in sandboxes
     */
    public record Options(Path workDir, Clock clock, boolean fastRetries, List<ExecutionInterceptor> dynamoInterceptors,
                          ProviderFaults providerFaults, Map<String, String> env, Hosting hosting,
                          Optional<ProviderQuota> providerQuota) {
        public Options {
            dynamoInterceptors = List.copyOf(dynamoInterceptors);
            env = Map.copyOf(env);
        }

        public Options(Path workDir, Clock clock, boolean fastRetries, List<ExecutionInterceptor> dynamoInterceptors,
                       ProviderFaults providerFaults, Map<String, String> env, Hosting hosting) {
            this(workDir, clock, fastRetries, dynamoInterceptors, providerFaults, env, hosting, Optional.empty());
        }

        /**
         * The simulated provider enforces this quota, and the night is configured with it (DeliverCommands'
         * environment), as a deployment sets its context to the provider's contract.
         */
        public Options withProviderQuota(Optional<ProviderQuota> quota) {
            Map<String, String> merged = new HashMap<>(env);
            quota.ifPresent(q -> merged.putAll(q.environment()));
            return new Options(workDir, clock, fastRetries, dynamoInterceptors, providerFaults, merged, hosting, quota);
        }

        public Options(Path workDir, Clock clock, boolean fastRetries, List<ExecutionInterceptor> dynamoInterceptors,
                       ProviderFaults providerFaults, Map<String, String> env) {
            this(workDir, clock, fastRetries, dynamoInterceptors, providerFaults, env, Hosting.IN_PROCESS);
        }

        public static Options defaults(Path workDir, Clock clock) {
            return new Options(workDir, clock, false, List.of(), ProviderFaults.NONE, Map.of());
        }

        public Options withFastRetries() {
            return new Options(workDir, clock, true, dynamoInterceptors, providerFaults, env, hosting, providerQuota);
        }

        public Options withDynamoInterceptors(List<ExecutionInterceptor> interceptors) {
            return new Options(workDir, clock, fastRetries, interceptors, providerFaults, env, hosting, providerQuota);
        }

        public Options withProviderFaults(ProviderFaults faults) {
            return new Options(workDir, clock, fastRetries, dynamoInterceptors, faults, env, hosting, providerQuota);
        }

        public Options withEnv(Map<String, String> more) {
            Map<String, String> merged = new HashMap<>(env);
            merged.putAll(more);
            return new Options(workDir, clock, fastRetries, dynamoInterceptors, providerFaults, merged, hosting, providerQuota);
        }

        /** The synthesised stack's functions in Lambda sandboxes, behind the enforcing front door (see {@link TemplateHosting}). */
        public Options withHosting(Hosting value) {
            return new Options(workDir, clock, fastRetries, dynamoInterceptors, providerFaults, env, value, providerQuota);
        }


    }

    /**
     * How the functions run. {@link #IN_PROCESS}: the handler classes in this JVM, built with the harness's clients
     * (fault interceptors, a shiftable clock): chaos, bench and scenarios that pause a worker. {@link Sandboxes}: each
     * function of the synthesised template in JVM sandboxes of its own, started by Lambda's Runtime Interface Client
     * from the deployment package with container credentials, its AWS calls gated by its role (the default of
     * {@code bin/reconciler local}).
     */
    public sealed interface Hosting permits InProcess, Sandboxes {
        Hosting IN_PROCESS = new InProcess();

        /** What the report calls it. */
        String label();

        static Hosting sandboxes() {
            return new Sandboxes(SynthesizedTemplate.load());
        }
    }

    public record InProcess() implements Hosting {
        @Override
        public String label() {
            return "in-process";
        }
    }

    public record Sandboxes(SynthesizedTemplate template) implements Hosting {
        @Override
        public String label() {
            return "lambda-sandboxes";
        }
    }


    private final Options options;
    /** In-process handlers today; a {@code ProcessLambdaService} runs them as Lambda does (same contract). */
    private final LambdaService lambda;
    private final MotoServer moto;
    private final SimulatedProvider provider;
    /**
     * Present when the night talks through the Adyen adapter ({@link EnvVars#PROVIDER_ADAPTER} {@code adyen}): the Adyen fake
     * answers DeliverCommands' cancels and holds their CANCELLATION notifications until the harness delivers them
     * ({@link AdyenWebhooks}). Replaced on {@link #reset()}: the fake has no reset of its own.
     */
    private volatile Optional<AdyenFake> adyen = Optional.empty();
    /**
     * The Adyen fake's HMAC key, and what the receiver's secret holds: a test value (the functions module's webhook tests
     * use the same), never a merchant's key; the fake signs with it and the receiver verifies with it, meeting only on the wire.
     */
    static final String ADYEN_TEST_HMAC_KEY = "44782DEF547AAA06C910C43932B1EB0C71FC68D9D0C057550C48EC2ACF6BA056";
    /** The merchant account the local Adyen cancels name (the fake refuses any other, as Adyen does with errorCode 901). */
    public static final String ADYEN_MERCHANT_ACCOUNT = "LocalMerchantECOM";
    /** The webhook's basic-auth credentials the receiver's secret holds and the harness's posts carry: test values. */
    static final String ADYEN_WEBHOOK_USERNAME = "local-adyen-webhook";
    static final String ADYEN_WEBHOOK_PASSWORD = "local-adyen-webhook-password";
    /** The webhook HMAC key's secret, as the stack names it: {@code {providerSecretName}-adyen-webhook-hmac}. */
    static final String WEBHOOK_HMAC_SECRET_NAME = "local-provider-api-key-adyen-webhook-hmac";
    /** The Adyen fake's seed (its shuffles and duplicates): fixed, so a local Adyen night is the same for the same data. */
    static final long ADYEN_SEED = 30;
    private String webhookSecretArn;
    /** The local tables' names: the logical names with a prefix. */
    public static final TableNames TABLES = TableNames.withPrefix("local-");
    static final String PROVIDER_SECRET_NAME = "local-provider-api-key";
    private final TableNames tables;
    /** Present when the functions run in sandboxes from the template. */
    private final Optional<TemplateHosting> sandboxes;
    private final HandlerClients handlerAws;
    private final AwsClients operatorAws;
    private final DynamoDbClient dynamo;
    private final SfnClient sfn;
    private final WriteLog writeLog;
    private String stateMachineArn;
    private String providerSecretArn;
    /** Where the in-process handlers send provider calls, when not to the provider itself (the harness's proxy). */
    private volatile URI providerFront;

    private LocalPipeline(Options options, LambdaService lambda, MotoServer moto, SimulatedProvider provider,
                          Optional<TemplateHosting> sandboxes) {
        this.options = options;
        this.lambda = lambda;
        this.sandboxes = sandboxes;
        this.tables = sandboxes.map(TemplateHosting::tables).orElse(TABLES);
        this.moto = moto;
        this.provider = provider;
        this.handlerAws = new HandlerClients(new LocalAwsClients(moto.endpoint(), options.dynamoInterceptors()));
        this.operatorAws = new LocalAwsClients(moto.endpoint(), List.of());
        this.dynamo = operatorAws.dynamo();
        this.sfn = operatorAws.sfn();
        this.writeLog = new WriteLog(moto.endpoint());
    }

    public static LocalPipeline start(Options options) {
        MotoServer.requireMoto();
        Optional<TemplateHosting> sandboxes = options.hosting() instanceof Sandboxes(SynthesizedTemplate template)
                ? Optional.of(TemplateHosting.start(options.workDir(), template)) : Optional.empty();
        LambdaService lambda = sandboxes.<LambdaService>map(TemplateHosting::lambda).orElseGet(LocalLambdaEndpoint::start);
        MotoServer moto;
        SimulatedProvider provider;
        try {
            moto = MotoServer.start(options.workDir(), Optional.of(lambda.uri()));
        } catch (RuntimeException e) {
            sandboxes.ifPresentOrElse(TemplateHosting::close, lambda::close);
            throw e;
        }
        try {
            sandboxes.ifPresent(s -> s.openFrontDoor(moto.endpoint()));
            // Stamped with the handlers' clock, so each effect's time compares with the settlements' (I3 at the call).
            SimulatedProvider.Builder builder = SimulatedProvider.builder().faults(options.providerFaults()).clock(options.clock());
            options.providerQuota().ifPresent(q -> builder.quota(new RequestQuota(q.requestsPerSecond(), q.maxConcurrentRequests())));
            // The provider forgets keys after the retention the night is configured with (DeliverCommands' environment).
            Optional.ofNullable(options.env().get(EnvVars.PROVIDER_KEY_RETENTION))
                    .ifPresent(text -> builder.keyRetention(ProviderKeyRetention.parse(text).retention()));
            provider = builder.start();
        } catch (RuntimeException e) {
            moto.close();
            sandboxes.ifPresentOrElse(TemplateHosting::close, lambda::close);
            throw e;
        }
        LocalPipeline pipeline = new LocalPipeline(options, lambda, moto, provider, sandboxes);
        try {
            pipeline.startAdyenIfChosen();
            pipeline.provision();
            pipeline.registerHandlers();
            return pipeline;
        } catch (RuntimeException e) {
            pipeline.close();
            throw e;
        }
    }

    private void provision() {
        new TableCreator(dynamo).createAll(tables);
        String machineName = sandboxes.map(TemplateHosting::stateMachineName).orElse(StateMachineDeployer.STATE_MACHINE_NAME);
        stateMachineArn = new StateMachineDeployer(sfn).deploy(options.fastRetries(), machineName);
        providerSecretArn = putProviderSecret(sandboxes.map(TemplateHosting::providerSecretName).orElse(PROVIDER_SECRET_NAME));
        createLocalIngestionQueues();
        if (adyenChosen()) {
            try (SecretsManagerClient secrets = operatorAws.secrets()) {
                String secret = com.payments.reconciler.workflow.Json.mapper().createObjectNode()
                        .put(com.payments.reconciler.webhook.WebhookKey.SECRET_FIELD, ADYEN_TEST_HMAC_KEY)
                        .put(com.payments.reconciler.webhook.WebhookKey.USERNAME_FIELD, ADYEN_WEBHOOK_USERNAME)
                        .put(com.payments.reconciler.webhook.WebhookKey.PASSWORD_FIELD, ADYEN_WEBHOOK_PASSWORD).toString();
                webhookSecretArn = secrets.createSecret(b -> b.name(WEBHOOK_HMAC_SECRET_NAME).secretString(secret)).arn();
            }
        }
    }

    /**
     * The ingestion dead-letter queue ReconcilePage's and DeliverCommands' environment names ({@link #localDeadLetterQueueUrl()})
     * and the refused-events queue IngestEvents' names ({@link #localRefusedQueueUrl()}), empty: the night counts the
     * dead-letter queue's messages before releasing, and a queue that does not exist cannot be read, which holds the whole
     * night; IngestEvents' send to a missing refused queue fails and leaves the message to the redrive policy. {@code local}'s
     * LocalIngestQueue opens the same queues (CreateQueue of an existing name with the same attributes returns it).
     */
    private void createLocalIngestionQueues() {
        try (software.amazon.awssdk.services.sqs.SqsClient sqs = operatorAws.sqs()) {
            sqs.createQueue(b -> b.queueName(LocalRun.LOCAL_QUEUE_PREFIX + FixedNames.INGEST_DEAD_LETTER_QUEUE_SUFFIX));
            sqs.createQueue(b -> b.queueName(LocalRun.LOCAL_QUEUE_PREFIX + FixedNames.INGEST_REFUSED_QUEUE_SUFFIX));
        }
    }

    /**
     * Whether a night run now would be held whole by the local dead-letter queue: the night's own rule
     * ({@link com.payments.reconciler.reconcile.DeadLetterDepth}) on the queue the functions read. For the invariant audit,
     * which then counts an AUTHORISED, uncommanded authorisation as held, not lost.
     */
    public boolean deadLettersHoldTheNight() {
        return queueDepth(localDeadLetterQueueUrl()).holds();
    }

    /**
     * The night's depth rule ({@link com.payments.reconciler.reconcile.DeadLetterDepth}) read on any local queue: on the
     * refused-events queue it is the arrangement before refusals had a queue of their own (the known-bad twin of
     * {@link #deadLettersHoldTheNight()}: every refusal held the whole night).
     */
    public com.payments.reconciler.reconcile.DeadLetterDepth.Reading queueDepth(String queueUrl) {
        try (software.amazon.awssdk.services.sqs.SqsClient sqs = operatorAws.sqs()) {
            return com.payments.reconciler.reconcile.DeadLetterDepth.queue(sqs, queueUrl).read();
        }
    }

    /**
     * Deletes the local refused-events queue, for a test that shows the redrive policy moving a refused event to the
     * dead-letter queue (IngestEvents' own send then fails, as for a queue it may not write to).
     */
    public void deleteLocalRefusedQueue() {
        try (software.amazon.awssdk.services.sqs.SqsClient sqs = operatorAws.sqs()) {
            sqs.deleteQueue(b -> b.queueUrl(sqs.getQueueUrl(q -> q.queueName(LocalRun.LOCAL_QUEUE_PREFIX
                    + FixedNames.INGEST_REFUSED_QUEUE_SUFFIX)).queueUrl()));
        }
    }

    /** Whether the night talks through the Adyen adapter (the handlers' environment says so, as the stack context does). */
    private boolean adyenChosen() {
        return ProviderAdapters.Adapter.ADYEN.contextValue().equals(options.env().get(EnvVars.PROVIDER_ADAPTER));
    }

    /** The Adyen fake, on the handlers' clock, with the API key the provider secret holds. */
    private void startAdyenIfChosen() {
        if (adyenChosen()) {
            if (sandboxes.isPresent()) {
                // The synthesised template is the default stack's: no receiver, no merchant account in DeliverCommands' environment.
                throw new IllegalArgumentException("--engine: lambda-sandboxes cannot run --provider adyen (the synthesised template is "
                        + "the default stack's, without the webhook receiver); use --engine in-process");
            }
            adyen.ifPresent(AdyenFake::close);
            adyen = Optional.of(AdyenFake.start(options.clock(), ADYEN_TEST_HMAC_KEY, provider.apiKey(), ADYEN_MERCHANT_ACCOUNT, ADYEN_SEED));
        }
    }

    /** The simulated provider's key where the deployed function reads it: a Secrets Manager secret. */
    private String putProviderSecret(String name) {
        try (SecretsManagerClient secrets = operatorAws.secrets()) {
            return secrets.createSecret(b -> b.name(name)
                    .secretString("{\"apiKey\":\"" + provider.apiKey() + "\"}")).arn();
        }
    }

    /**
     * The card platform's settlement feed is complete up to the handlers' now: a {@code feed.watermark} at
     * {@code options.clock()}'s instant, through the real ingestion code (decoder, decision, the monotonic write). For
     * runs that load their data into the tables directly, settlements included, as if the feed had delivered them; runs
     * that publish their own feed (local, --nights) publish their own watermarks instead.
     */
    public void settlementFeedComplete() {
        java.time.Instant now = options.clock().instant();
        var outcome = new com.payments.reconciler.ingest.EventIngestion(new com.payments.reconciler.ingest.EventDecoder(),
                new com.payments.reconciler.ingest.IngestionDecision(1),
                new com.payments.reconciler.ingest.IngestStore(dynamo, tables.authorisations(), tables.settlements(),
                        com.payments.reconciler.store.Backoff.standard()), java.util.Optional.empty(), options.clock()).ingest(SyntheticEvents.watermark("loaded:" + now.truncatedTo(java.time.temporal.ChronoUnit.MILLIS), now));
        if (outcome instanceof com.payments.reconciler.ingest.IngestOutcome.Refused refused) {
            throw new IllegalStateException("the loaded data's feed watermark was refused: " + refused.refusal().message());
        }
    }

    /** Empties every table and execution: each test case starts from nothing, in milliseconds. */
    public void reset() {
        moto.reset();
        provider.reset();
        startAdyenIfChosen();
        lambda.resetCounts();
        lambda.hook(InvocationHook.NONE);
        provision();
        // The secret's ARN changes with every creation (a random suffix, as on AWS): handlers read it at construction.
        registerHandlers();
    }

    /** SDK clients held by the registered in-process handlers (one generation: older ones are closed on reset). */
    public int openHandlerClients() {
        return handlerAws.open();
    }

    public Map<String, String> handlerEnvironment() {
        Map<String, String> env = new HashMap<>(options.env());
        TableNames.ENV_VARS.forEach((schema, variable) -> env.put(variable, tables.nameOf(schema)));
        env.put("AWS_REGION", StateMachineDeployer.LOCAL_REGION);
        env.putIfAbsent(EnvVars.LEASE_NAME, EnvVars.DEFAULT_LEASE_NAME);
        // In-process handlers have no template: the stack's default quota, as `cdk deploy` sets it, unless the run chose one.
        ProviderQuota.DEFAULT.environment().forEach(env::putIfAbsent);
        env.put(EnvVars.STATE_MACHINE_ARN, stateMachineArn);
        env.put(EnvVars.PROVIDER_BASE_URL, (providerFront != null ? providerFront : providerBaseUrl()).toString());
        env.put(EnvVars.PROVIDER_SECRET_ID, providerSecretArn);
        adyen.ifPresent(fake -> {
            env.put(EnvVars.PROVIDER_MERCHANT_ACCOUNT, ADYEN_MERCHANT_ACCOUNT);
            env.put(EnvVars.WEBHOOK_HMAC_SECRET_ID, webhookSecretArn);
        });
        // In-process IngestEvents sends refused events to the local run's refused-events queue; ReconcilePage and
        // DeliverCommands read the local dead-letter queue's depth (LocalIngestQueue's names for both).
        env.putIfAbsent(EnvVars.INGEST_DEAD_LETTER_QUEUE_URL, localDeadLetterQueueUrl());
        env.putIfAbsent(EnvVars.INGEST_REFUSED_QUEUE_URL, localRefusedQueueUrl());
        return env;
    }

    /**
     * {@code bin/reconciler local}'s ingestion dead-letter queue ({@link LocalRun#LOCAL_QUEUE_PREFIX}); moto finds a queue
     * by the URL's account and name.
     */
    public static String localDeadLetterQueueUrl() {
        return localQueueUrl(FixedNames.INGEST_DEAD_LETTER_QUEUE_SUFFIX);
    }

    /**
     * {@code bin/reconciler local}'s refused-events queue. Harness tests with ingestion queues of other prefixes see the
     * refusals here too (the one queue IngestEvents' environment names), not in their own prefix's refused queue.
     */
    public static String localRefusedQueueUrl() {
        return localQueueUrl(FixedNames.INGEST_REFUSED_QUEUE_SUFFIX);
    }

    private static String localQueueUrl(String suffix) {
        return "https://sqs." + StateMachineDeployer.LOCAL_REGION + ".amazonaws.com/" + com.payments.reconciler.harness.aws.LocalResources.MOTO_ACCOUNT
                + "/" + LocalRun.LOCAL_QUEUE_PREFIX + suffix;
    }

    private void registerHandlers() {
        if (sandboxes.isPresent()) {
            sandboxes.get().deploy(tables, stateMachineArn, providerSecretArn, providerBaseUrl(), options.env());
            return;
        }
        LocalLambdaEndpoint inProcess = (LocalLambdaEndpoint) lambda;
        handlerAws.retireAll();
        HandlerEnvironment env = new HandlerEnvironment(handlerEnvironment(), handlerAws, options.clock());
        for (LambdaFunction function : LambdaFunction.values()) {
                inProcess.register(function, instantiate(function, env));
        }
    }

    /** Builds a handler the way Lambda does, by class name, with the local environment. */
    static RequestStreamHandler instantiate(LambdaFunction function, HandlerEnvironment env) {
        try {
            Class<?> type = Class.forName(function.handlerClass());
            return (RequestStreamHandler) type.getConstructor(HandlerEnvironment.class).newInstance(env);
        } catch (InvocationTargetException e) {
            throw new IllegalStateException("handler " + function.handlerClass() + " failed to initialise: " + e.getCause(), e.getCause());
        } catch (ReflectiveOperationException | ClassCastException e) {
            throw new IllegalStateException("handler " + function.handlerClass() + " needs a public constructor taking "
                    + HandlerEnvironment.class.getSimpleName() + " and must implement RequestStreamHandler", e);
        }
    }

    /**
     * Points the in-process handlers' provider calls at {@code front} (a harness proxy in front of {@link #provider()}),
     * or back at the provider with null. Only between runs: the handlers are rebuilt.
     */
    public void routeProviderThrough(URI front) {
        if (sandboxes.isPresent()) {
            throw new IllegalStateException("the provider route is for in-process hosting only");
        }
        providerFront = front;
        registerHandlers();
    }

    public String startExecution(String name, String input) {
        return sfn.startExecution(b -> b.stateMachineArn(stateMachineArn).name(name).input(input)).executionArn();
    }

    public ExecutionFollower.Followed follow(String executionArn, Consumer<HistoryEvent> listener) {
        return new ExecutionFollower(sfn).follow(executionArn, listener, Duration.ofMinutes(30));
    }

    public ExecutionFollower.Followed run(String name, String input) {
        return follow(startExecution(name, input), event -> { });
    }

    /** See {@link LambdaService#limitInvocationTime}. */
    public void limitInvocationTime(Duration limit) {
        lambda.limitInvocationTime(limit);
    }

    public void hook(InvocationHook hook) {
        lambda.hook(hook);
    }

    public Map<LambdaFunction, Integer> invocationCounts() {
        return lambda.invocationCounts();
    }

    public TableNames tables() {
        return tables;
    }

    /** A client for seeding and inspecting data (no fault layer). */
    public DynamoDbClient dynamo() {
        return dynamo;
    }

    public SfnClient sfn() {
        return sfn;
    }

    public String stateMachineArn() {
        return stateMachineArn;
    }

    /** The provider key's secret in moto (its ARN changes with every reset). */
    public String providerSecretArn() {
        return providerSecretArn;
    }

    public MotoServer moto() {
        return moto;
    }

    public WriteLog writeLog() {
        return writeLog;
    }

    /** The engine's log of applied writes, as the auditor reads it. */
    public List<com.payments.reconciler.audit.AppliedWrite> appliedWrites() {
        return writeLog.entries().stream()
                .map(e -> com.payments.reconciler.audit.AppliedWrite.fromLog(e.seq(), e.operation(), e.request(), e.response(), e.items()))
                .toList();
    }

    /** Where DeliverCommands' adapter sends its requests: the Adyen fake with the Adyen adapter, else the simulated provider. */
    public URI providerBaseUrl() {
        return adyen.map(AdyenFake::baseUrl).orElseGet(provider::baseUrl);
    }

    /** The Adyen fake, when the night talks through the Adyen adapter. */
    public Optional<AdyenFake> adyen() {
        return adyen;
    }

    /**
     * The card platform captured this authorisation: its hold is captured at the provider the night talks to, so a stray
     * release meets the provider's refusal (Stripe's payment_intent_unexpected_state, Adyen's success=false).
     */
    public void capture(String authorisationId) {
        provider.capture(authorisationId);
        adyen.ifPresent(fake -> fake.capture(authorisationId));
    }

    /** Requests the provider the night talks to answered (the Adyen fake counts its own; the simulated provider per operation). */
    public long providerRequests() {
        return adyen.map(AdyenFake::requests).orElseGet(() -> provider.effects().stream().mapToLong(e -> e.requests()).sum());
    }

    /**
     * The real webhook receiver handler, built as Lambda builds it from the environment the stack gives it (the HMAC key's
     * secret, the ingestion queue), in this JVM with the in-process handlers' clients and clock. Adyen runs only.
     */
    public com.payments.reconciler.webhook.AdyenWebhookHandler adyenWebhookHandler(String ingestQueueUrl) {
        if (adyen.isEmpty()) {
            throw new IllegalStateException("the webhook receiver is for --provider adyen only");
        }
        Map<String, String> env = new HashMap<>(handlerEnvironment());
        env.put(EnvVars.INGEST_QUEUE_URL, ingestQueueUrl);
        return new com.payments.reconciler.webhook.AdyenWebhookHandler(new HandlerEnvironment(env, handlerAws, options.clock()));
    }

    /**
     * The receiver handler with its signature check replaced by {@code verifier} applied to the real one: the chaos
     * campaign's webhook mutant (a receiver that skips the HMAC check) lives here, in the harness, never in the jar. The
     * rest is what Lambda builds: the webhook secret (basic auth, keys) from Secrets Manager, the queue, the merchant account.
     */
    public com.payments.reconciler.webhook.AdyenWebhookHandler adyenWebhookHandler(String ingestQueueUrl,
            java.util.function.UnaryOperator<com.payments.reconciler.webhook.NotificationVerifier> verifier) {
        if (adyen.isEmpty()) {
            throw new IllegalStateException("the webhook receiver is for --provider adyen only");
        }
        Map<String, String> envMap = new HashMap<>(handlerEnvironment());
        envMap.put(EnvVars.INGEST_QUEUE_URL, ingestQueueUrl);
        HandlerEnvironment env = new HandlerEnvironment(envMap, handlerAws, options.clock());
        com.payments.reconciler.webhook.WebhookKey key = com.payments.reconciler.webhook.WebhookKey.fromSecretsManager(env.aws().secrets(),
                env.required(EnvVars.WEBHOOK_HMAC_SECRET_ID), env.clock());
        software.amazon.awssdk.services.sqs.SqsClient sqs = env.aws().sqs();
        return new com.payments.reconciler.webhook.AdyenWebhookHandler(key, new com.payments.reconciler.webhook.AdyenWebhookReceiver(
                () -> verifier.apply(key.get().verifier()), body -> sqs.sendMessage(b -> b.queueUrl(ingestQueueUrl).messageBody(body)),
                com.payments.reconciler.workflow.EmfMetrics.toStdout(env.clock(), com.payments.reconciler.webhook.AdyenWebhookHandler.LOGICAL_NAME),
                env.required(EnvVars.PROVIDER_MERCHANT_ACCOUNT)));
    }

    /** The {@code Authorization} header Adyen sends with each notification: basic auth with the webhook's credentials. */
    public String adyenWebhookAuthorization() {
        return "Basic " + java.util.Base64.getEncoder().encodeToString((ADYEN_WEBHOOK_USERNAME + ":" + ADYEN_WEBHOOK_PASSWORD)
                .getBytes(java.nio.charset.StandardCharsets.UTF_8));
    }

    /** The provider's own record of every release it performed, whichever key, as the auditor reads it. */
    public List<com.payments.reconciler.audit.ProviderRelease> providerReleases() {
        if (adyen.isPresent()) {
            // The Adyen fake's effect log: a payment's cancellation performed at most once, by the first cancel reaching it.
            return adyen.get().releases().stream().map(r -> new com.payments.reconciler.audit.ProviderRelease(r.authorisationId(),
                    r.operationId(), r.performedAt())).toList();
        }
        return provider.releases().stream().map(r -> new com.payments.reconciler.audit.ProviderRelease(r.authorisationId(),
                r.operationId(), r.performedAt())).toList();
    }

    /** The provider's effect log, each operation with the times it was performed, as the auditor reads it. */
    public List<com.payments.reconciler.audit.ProviderEffect> providerEffects() {
        if (adyen.isPresent()) {
            // Per operation (the cancel's reference): the fake keeps performed cancellations, not requests per operation.
            return adyen.get().releases().stream().collect(java.util.stream.Collectors.groupingBy(
                            com.payments.reconciler.local.provider.PerformedRelease::operationId, java.util.LinkedHashMap::new,
                            java.util.stream.Collectors.toList()))
                    .values().stream().map(rs -> new com.payments.reconciler.audit.ProviderEffect(rs.getFirst().operationId(),
                            rs.getFirst().authorisationId(), rs.size(), rs.size(),
                            rs.stream().map(com.payments.reconciler.local.provider.PerformedRelease::performedAt).toList())).toList();
        }
        // Grouped once: a night has one entry per operation, and looking each up in the release log would be quadratic.
        Map<String, List<Long>> performedAt = provider.releases().stream().collect(java.util.stream.Collectors.groupingBy(
                com.payments.reconciler.local.provider.PerformedRelease::operationId,
                java.util.stream.Collectors.mapping(com.payments.reconciler.local.provider.PerformedRelease::performedAt,
                        java.util.stream.Collectors.toList())));
        return provider.effects().stream().map(e -> new com.payments.reconciler.audit.ProviderEffect(e.operationId(),
                e.authorisationId(), e.performed(), e.requests(), performedAt.getOrDefault(e.operationId(), List.of()))).toList();
    }

    public SimulatedProvider provider() {
        return provider;
    }

    public URI lambdaEndpoint() {
        return lambda.uri();
    }

    /** The local engine's endpoint (DynamoDB, Step Functions), for operator commands run against this night. */
    public URI engineEndpoint() {
        return moto.endpoint();
    }

    /** How the functions run, as the report names it. */
    public String hostingLabel() {
        return options.hosting().label();
    }

    /** The front door the sandboxes' AWS calls go through (sandbox hosting only). */
    public Optional<AwsCallRecorder> awsCalls() {
        return sandboxes.map(TemplateHosting::recorder);
    }

    /** The least-privilege proof the front door enforces, and how it tells the callers apart (sandbox hosting only). */
    public Optional<TemplateHosting> sandboxes() {
        return sandboxes;
    }

    @Override
    public void close() {
        try {
            handlerAws.retireAll();
            adyen.ifPresent(AdyenFake::close);
            provider.close();
        } finally {
            try {
                moto.close();
            } finally {
                sandboxes.ifPresentOrElse(TemplateHosting::close, lambda::close);
            }
        }
    }
}
