package com.payments.reconciler.cli.aws;

import com.payments.reconciler.cli.local.ExecutionFollower;
import com.payments.reconciler.cli.local.LocalPipeline;
import com.payments.reconciler.cli.local.LocalRun;
import com.payments.reconciler.cli.local.SyntheticData;
import com.payments.reconciler.window.ExecutionInput;
import com.payments.reconciler.window.StartResult;
import com.payments.reconciler.window.WindowConfig;
import com.payments.reconciler.window.WindowId;
import com.payments.reconciler.workflow.LambdaFunction;
import java.net.URI;
import java.nio.file.Path;
import java.time.Clock;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Collectors;

/**
 * A local night whose handlers reach moto only through an enforcing {@link AwsCallRecorder}, each function
 * signing with its own access key id; the gate is the {@link LeastPrivilegeProof} of the given template.
 */
final class EnforcedNight implements AutoCloseable {

    static final String REGION = "eu-west-1";
    static final WindowId WINDOW = WindowId.parse("2026-12-01", "window");
    static final WindowConfig CONFIG = WindowConfig.defaults();
    static final Map<String, String> FUNCTION_BY_ACCESS_KEY_ID = Arrays.stream(LambdaFunction.values())
            .collect(Collectors.toMap(LocalPipeline::accessKeyIdOf, LambdaFunction::logicalName));
    static final CallerAttribution ATTRIBUTION = CallerAttribution.byAccessKeyId(FUNCTION_BY_ACCESS_KEY_ID);

    /**
     * @param first the schedule event's start
     * @param second the duplicate delivery's answer
     * @param run the execution as followed to its end
     * @param expected what the seeded data implies
     * @param calls every AWS call the handlers made, in order
     */
    record Night(StartResult first, StartResult second, ExecutionFollower.Followed run, SyntheticData.Expected expected,
                 List<RecordedCall> calls) {
    }

    final LocalPipeline pipeline;
    final LeastPrivilegeProof proof;
    private AwsCallRecorder recorder;
    /** Set once the local resources exist: handlers make no AWS call before their first invocation. */
    private final AtomicReference<AwsCallRecorder.Authorizer> gate = new AtomicReference<>();

    EnforcedNight(String name, SynthesizedTemplate template) {
        String stateMachineName = template.resources("AWS::StepFunctions::StateMachine").values().iterator().next()
                .path("Properties").path("StateMachineName").asText();
        // The functions name their secret by ARN (PROVIDER_SECRET_ID), so no name needs a lookup.
        ArnScope scope = ArnScope.of(LocalResources.MOTO_ACCOUNT, Map.of());
        pipeline = LocalPipeline.start(LocalPipeline.Options.defaults(Path.of(System.getProperty("reconciler.target"), name), Clock.systemUTC())
                .withFastRetries()
                .withEnv(CONFIG.toEnvironment())
                // The template's DescribeExecution grant names its executions by the state machine's name.
                .withStateMachineName(stateMachineName)
                .withAwsEndpoints((function, engines) -> recorder(engines, scope).endpoint()));
        proof = new LeastPrivilegeProof(template, new IntrinsicResolver(TemplateResources.of(template, pipeline.tables(),
                pipeline.stateMachineArn(), pipeline.providerSecretArn(), REGION, LocalResources.MOTO_ACCOUNT)));
        gate.set(proof.authorizer(ATTRIBUTION));
    }

    /** Started by the pipeline's first handler, once moto's endpoint is known. */
    private synchronized AwsCallRecorder recorder(URI engines, ArnScope scope) {
        if (recorder == null) {
            recorder = AwsCallRecorder.start(engines, scope, List.of(), AwsCallRecorder.Mode.ENFORCE,
                    (caller, actions, unmapped) -> Optional.ofNullable(gate.get())
                            .map(g -> g.denial(caller, actions, unmapped)).orElse(Optional.of("the local resources are not provisioned yet")));
        }
        return recorder;
    }

    /** Seeds the data, delivers the schedule event twice (as Scheduler may) and follows the execution to its end. */
    Night run(int authorisations, long seed) {
        ExecutionInput input = CONFIG.inputFor(WINDOW);
        SyntheticData.Expected expected = new SyntheticData(authorisations, 0.2, 0.1, seed)
                .load(pipeline.dynamo(), pipeline.tables(), input.cutoff(), input.shards());
        recorder.clear();
        String scheduledTime = input.windowStart().toString();
        StartResult first = LocalRun.deliverScheduleEvent(pipeline, scheduledTime);
        StartResult second = LocalRun.deliverScheduleEvent(pipeline, scheduledTime);
        ExecutionFollower.Followed run = pipeline.follow(first.executionArn(), event -> { });
        return new Night(first, second, run, expected, recorder.calls());
    }

    @Override
    public void close() {
        try {
            pipeline.close();
        } finally {
            if (recorder != null) {
                recorder.close();
            }
        }
    }
}
