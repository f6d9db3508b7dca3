package com.payments.reconciler.harness.local;

import com.payments.reconciler.cli.operator.ExecutionFollower;

import com.payments.reconciler.audit.AppliedWrite;
import com.payments.reconciler.audit.InvariantAudit;
import com.payments.reconciler.audit.ProviderEffect;
import com.payments.reconciler.window.NightWindow;
import com.payments.reconciler.window.WindowConfig;
import com.payments.reconciler.window.WindowId;
import java.nio.file.Path;
import java.time.Clock;
import java.util.List;

/**
 * One local pipeline per test class (moto, the Invoke endpoint, the provider), reset between tests:
 * each test starts from empty tables and a fresh state machine in milliseconds.
 */
final class PipelineFixture implements AutoCloseable {

    static final WindowId WINDOW = WindowId.parse("2026-12-01", "window");
    static final WindowConfig CONFIG = WindowConfig.defaults();
    final ShiftableClock clock = new ShiftableClock(Clock.systemUTC());
    final RequestCounter requests = new RequestCounter();
    final LocalPipeline pipeline;

    PipelineFixture(String name, WritePause... pauses) {
        List<software.amazon.awssdk.core.interceptor.ExecutionInterceptor> interceptors = new java.util.ArrayList<>(List.of(pauses));
        interceptors.add(requests);
        pipeline = LocalPipeline.start(LocalPipeline.Options.defaults(Path.of(System.getProperty("reconciler.target"), name), clock)
                .withFastRetries().withDynamoInterceptors(interceptors).withEnv(CONFIG.toEnvironment()));
    }

    NightWindow input() {
        return CONFIG.nightFor(WINDOW);
    }

    SyntheticData.Expected load(int authorisations, double settled, long seed) {
        SyntheticData.Expected expected = new SyntheticData(authorisations, settled, 0.1, seed)
                .load(pipeline.dynamo(), pipeline.tables(), input().cutoff(), input().shards());
        pipeline.settlementFeedComplete();
        pipeline.writeLog().clear();
        return expected;
    }

    ExecutionFollower.Followed run(String name) {
        return pipeline.run(name, CONFIG.inputFor(WINDOW).toJson());
    }

    InvariantAudit.Report audit(boolean complete) {
        return PipelineEvidence.of(pipeline).audit(complete ? new InvariantAudit.Completion(input().cutoff(), true) : null);
    }

    List<ProviderEffect> effects() {
        return pipeline.providerEffects();
    }

    @Override
    public void close() {
        pipeline.close();
    }
}
