package com.payments.reconciler.harness.aws;

import com.payments.reconciler.audit.StoreSnapshot;
import com.payments.reconciler.harness.ingest.LocalIngestQueue;
import com.payments.reconciler.harness.ingest.PlatformFeed;
import com.payments.reconciler.cli.operator.ExecutionFollower;
import com.payments.reconciler.harness.local.LocalPipeline;
import com.payments.reconciler.harness.local.LocalRun;
import com.payments.reconciler.harness.local.SyntheticData;
import com.payments.reconciler.harness.local.SyntheticEvents;
import com.payments.reconciler.window.NightWindow;
import com.payments.reconciler.window.StartResult;
import com.payments.reconciler.window.WindowConfig;
import com.payments.reconciler.window.WindowId;
import java.nio.file.Path;
import java.time.Clock;
import java.util.List;
import java.util.Map;

/**
 * A local night hosted as the stack deploys it: every function of the given template in Lambda sandboxes of
 * its own (container credentials, one access key id per function), every AWS call through the pipeline's
 * enforcing front door, whose gate is the {@link LeastPrivilegeProof} of that template.
 */
final class EnforcedNight implements AutoCloseable {

    static final WindowConfig CONFIG = WindowConfig.defaults();
    /** StartWindow refuses a window not yet started or past the horizon, so the night's window follows the sandboxes' clock. */
    static final WindowId WINDOW = CONFIG.latestStartedWindow(Clock.systemUTC().instant());

    /**
     * @param first the schedule event's start
     * @param second the duplicate delivery's answer
     * @param run the execution as followed to its end
     * @param expected what the seeded data implies
     * @param calls every AWS call the functions made, in order
     */
    record Night(StartResult first, StartResult second, ExecutionFollower.Followed run, SyntheticData.Expected expected,
                 List<RecordedCall> calls) {
    }

    final LocalPipeline pipeline;
    private final SynthesizedTemplate template;
    final LeastPrivilegeProof proof;
    final CallerAttribution attribution;
    private final AwsCallRecorder recorder;

    EnforcedNight(String name, SynthesizedTemplate template) {
        this.template = template;
        pipeline = LocalPipeline.start(LocalPipeline.Options.defaults(Path.of(System.getProperty("reconciler.target"), name), Clock.systemUTC())
                .withFastRetries()
                .withEnv(CONFIG.toEnvironment())
                .withHosting(new LocalPipeline.Sandboxes(template)));
        proof = pipeline.sandboxes().orElseThrow().proof();
        attribution = pipeline.sandboxes().orElseThrow().attribution();
        recorder = pipeline.awsCalls().orElseThrow();
    }

    /** Each function's own access key id, as its sandboxes' container credentials carry it. */
    Map<String, String> functionByAccessKeyId() {
        return pipeline.sandboxes().orElseThrow().lambda().functionsByAccessKeyId();
    }

    /** Seeds the data, delivers the schedule event twice (as Scheduler may) and follows the execution to its end. */
    Night run(int authorisations, long seed) {
        return run(authorisations, seed, () -> { });
    }

    /** As {@link #run(int, long)}, with {@code beforeSchedule} run once the data is ingested (e.g. a dead-lettered message). */
    Night run(int authorisations, long seed, Runnable beforeSchedule) {
        NightWindow input = CONFIG.nightFor(WINDOW);
        recorder.clear();
        // The platform's side as deployed: the data as events, through the ingestion queue and IngestEvents in its sandbox,
        // so IngestEvents' writes are judged by its role like every other function's calls.
        SyntheticEvents events = new SyntheticData(authorisations, 0.2, 0.1, seed).events(input.cutoff());
        SyntheticData.Expected expected = events.expected();
        try (LocalIngestQueue queue = LocalIngestQueue.create(pipeline.engineEndpoint(), "enforced-",
                LocalRun.localMapping(new LocalPipeline.Sandboxes(template)))) {
            PlatformFeed.Tally tally = new PlatformFeed(queue, pipeline.lambdaEndpoint(), Clock.systemUTC()).feed(events.bodiesWithWatermark(Clock.systemUTC().instant()), 0,
                    () -> StoreSnapshot.scan(pipeline.dynamo(), pipeline.tables()));
            if (tally.rejected() > 0 || tally.deadLettered() > 0) {
                throw new IllegalStateException("the night's data was not ingested cleanly: " + tally);
            }
        }
        beforeSchedule.run();
        String scheduledTime = input.windowStart().toString();
        StartResult first = LocalRun.deliverScheduleEvent(pipeline, scheduledTime);
        StartResult second = LocalRun.deliverScheduleEvent(pipeline, scheduledTime);
        ExecutionFollower.Followed run = pipeline.follow(first.executionArn(), event -> { });
        return new Night(first, second, run, expected, recorder.calls());
    }

    @Override
    public void close() {
        pipeline.close();
    }
}
