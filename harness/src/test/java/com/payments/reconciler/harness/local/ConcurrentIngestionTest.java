package com.payments.reconciler.harness.local;

import com.payments.reconciler.audit.StoreSnapshot;
import com.payments.reconciler.harness.ingest.LocalIngestQueue;
import com.payments.reconciler.harness.ingest.MappingSpec;
import com.payments.reconciler.harness.ingest.PlatformFeed;
import com.payments.reconciler.workflow.LambdaFunction;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Ingestion with the mapping's concurrent pollers (in-process IngestEvents, moto's SQS and DynamoDB): the report's
 * counts stay exact when batches are invoked at once, and a message SQS delivers to two pollers at once (at-least-once
 * delivery) is counted once. Concurrency is shown with latches, never with timing.
 */
class ConcurrentIngestionTest {

    private static final String CREATED = "{\"version\":1,\"type\":\"authorisation.created\",\"eventId\":\"evt-%1$s\","
            + "\"authorisationId\":\"auth-%1$s\",\"amountMinor\":2599,\"currency\":\"EUR\",\"merchantId\":\"merchant-1\","
            + "\"authorisedAt\":\"2026-11-28T10:00:00Z\"}";
    /** Valid but for a card number in a field: IngestEvents refuses it and sends it to the refused-events queue itself. */
    private static final String CARD = CREATED.formatted("card").replace("\"merchantId\"", "\"pan\":\"4111111111111111\",\"merchantId\"");

    private static LocalPipeline pipeline;

    @BeforeAll
    static void start() {
        pipeline = LocalPipeline.start(LocalPipeline.Options.defaults(Path.of(System.getProperty("reconciler.target"), "concurrent-ingestion"),
                Clock.systemUTC()));
    }

    @AfterAll
    static void stop() {
        if (pipeline != null) {
            pipeline.close();
        }
    }

    @AfterEach
    void reset() {
        pipeline.reset();
    }

    @Test
    void countsAreExactWithTheMappingsPollersInvokingAtOnce() {
        MappingSpec spec = LocalRun.localMapping(LocalPipeline.Hosting.IN_PROCESS);
        assertThat(spec.pollers()).as("the template's MaximumConcurrency and IngestEvents' reservation").isEqualTo(5);
        List<String> bodies = new ArrayList<>();
        for (int i = 0; i < 300; i++) {
            bodies.add(CREATED.formatted(i));
        }
        for (int i = 0; i < 300; i += 10) {
            bodies.add(CREATED.formatted(i)); // 30 published twice
        }
        bodies.add(CARD);
        Collections.shuffle(bodies, new Random(7));
        // The first invocation waits until a second one has started: only concurrent pollers get past it at once.
        CountDownLatch secondStarted = new CountDownLatch(1);
        AtomicBoolean overlapped = new AtomicBoolean();
        pipeline.hook(new InvocationHook() {
            @Override
            public InjectedFailure before(LambdaFunction function, int invocation, byte[] payload) {
                if (function == LambdaFunction.INGEST_EVENTS && invocation == 1) {
                    try {
                        overlapped.set(secondStarted.await(2, TimeUnit.MINUTES));
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                } else if (function == LambdaFunction.INGEST_EVENTS) {
                    secondStarted.countDown();
                }
                return null;
            }
        });
        List<Long> progress = Collections.synchronizedList(new ArrayList<>());

        PlatformFeed.Tally tally;
        try (LocalIngestQueue queue = LocalIngestQueue.create(pipeline.engineEndpoint(), LocalRun.LOCAL_QUEUE_PREFIX, spec)) {
            PlatformFeed feed = new PlatformFeed(queue, pipeline.lambdaEndpoint(), Clock.systemUTC(), spec.pollers(), false)
                    .withProgress((done, total) -> progress.add(done));
            tally = feed.feed(bodies, 0, () -> StoreSnapshot.scan(pipeline.dynamo(), pipeline.tables()));
        }

        assertThat(overlapped).as("a second batch was invoked while the first was still running").isTrue();
        assertThat(tally.published()).isEqualTo(331);
        assertThat(tally.accepted()).isEqualTo(300);
        assertThat(tally.duplicates()).isEqualTo(30);
        assertThat(tally.rejected()).isEqualTo(1);
        assertThat(tally.receives()).as("no message received twice: each batch invisible to the other pollers").isEqualTo(331);
        assertThat(progress).isNotEmpty().allMatch(done -> done <= 331);
        assertThat(progress.stream().mapToLong(Long::longValue).max().orElseThrow()).isEqualTo(331);
    }

    @Test
    void aMessageDeliveredToTwoPollersAtOnceIsCountedOnce() {
        // Visibility timeout 0: a received message is visible again at once, so the second poller receives it too, as
        // SQS's at-least-once delivery may; the first invocation waits until the second has started with it.
        MappingSpec spec = LocalRun.localMapping(LocalPipeline.Hosting.IN_PROCESS).withVisibilityTimeout(Duration.ZERO);
        CountDownLatch secondStarted = new CountDownLatch(1);
        AtomicInteger invocations = new AtomicInteger();
        pipeline.hook(new InvocationHook() {
            @Override
            public InjectedFailure before(LambdaFunction function, int invocation, byte[] payload) {
                if (function != LambdaFunction.INGEST_EVENTS) {
                    return null;
                }
                invocations.incrementAndGet();
                if (invocation == 1) {
                    try {
                        secondStarted.await(2, TimeUnit.MINUTES);
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                } else {
                    secondStarted.countDown();
                }
                return null;
            }
        });

        PlatformFeed.Tally tally;
        try (LocalIngestQueue queue = LocalIngestQueue.create(pipeline.engineEndpoint(), "twice-", spec)) {
            tally = new PlatformFeed(queue, pipeline.lambdaEndpoint(), Clock.systemUTC(), 2, false)
                    .feed(List.of(CREATED.formatted("once")), 0, () -> StoreSnapshot.scan(pipeline.dynamo(), pipeline.tables()));
        }

        assertThat(tally.receives()).as("one message, received by both pollers").isGreaterThanOrEqualTo(2);
        assertThat(tally.invocations()).isGreaterThanOrEqualTo(2);
        assertThat(tally.published()).isEqualTo(1);
        assertThat(tally.accepted()).isEqualTo(1);
        // Both pollers deleted it: counting deletions per call, not per message id, would report one duplicate here.
        assertThat(tally.duplicates()).as("the same message twice is not a second event").isZero();
        assertThat(tally.rejected()).isZero();
    }
}
