package com.payments.reconciler.harness.local;

import com.payments.reconciler.cli.operator.HistoryRenderer;
import com.payments.reconciler.testing.MutableClock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.services.sfn.model.HistoryEvent;
import software.amazon.awssdk.services.sfn.model.HistoryEventType;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * What a local night prints while it runs: progress lines only for phases longer than {@link ProgressLines#EVERY}, at
 * most one per interval of the injected clock, and each fact once — the counts of a reconcile page are not repeated by
 * the Choice after it. No test here waits: the clock is moved and the ticks are called.
 */
class ProgressOutputTest {

    private static final Instant T0 = Instant.parse("2026-12-06T02:00:00Z");

    @Test
    void aPhaseShorterThanTheIntervalPrintsNothingAndALongerOneALinePerInterval() {
        MutableClock clock = new MutableClock(T0);
        List<String> printed = new ArrayList<>();
        ProgressLines lines = new ProgressLines(clock, printed::add);
        long[] done = {0};
        // Invocations every 400 ms for 4.8 s: shorter than the interval, nothing printed.
        for (int i = 0; i < 12; i++) {
            clock.advance(Duration.ofMillis(400));
            done[0] += 10;
            lines.offer(() -> "ingestion: " + done[0] + " of 1000");
        }
        assertThat(printed).isEmpty();
        // Up to 16 s: the first offer at or after 5 s prints (5.2 s), then the first at or after 5 s more (10.4 s, 15.6 s).
        for (int i = 0; i < 28; i++) {
            clock.advance(Duration.ofMillis(400));
            done[0] += 10;
            lines.offer(() -> "ingestion: " + done[0] + " of 1000");
        }
        assertThat(printed).containsExactly("ingestion: 130 of 1000", "ingestion: 260 of 1000", "ingestion: 390 of 1000");
    }

    @Test
    void nothingNewIsNotPrintedAgain() {
        MutableClock clock = new MutableClock(T0);
        List<String> printed = new ArrayList<>();
        ProgressLines lines = new ProgressLines(clock, printed::add);
        for (int i = 0; i < 30; i++) {
            clock.advance(Duration.ofSeconds(1));
            lines.offer(() -> "delivery: 100 of 200");
        }
        assertThat(printed).containsExactly("delivery: 100 of 200");
    }

    @Test
    void deliveryPrintsItsCountsPerShardWithTheRateAndTheQuotaOnTicks() {
        MutableClock clock = new MutableClock(T0);
        List<String> printed = new ArrayList<>();
        Map<Integer, Long> delivered = new HashMap<>();
        NightProgress progress = new NightProgress(clock, printed::add,
                requested -> new DeliveryProgress(requested, 2, 160, 2, clock.instant()), () -> Map.copyOf(delivered));
        progress.tick(); // before delivery: nothing to say
        progress.on(exited(3, 2, "ReconcilePage", "{\"page\":{\"more\":false,\"totals\":{\"candidates\":2200,\"releaseRequested\":2000}}}"));
        progress.on(event(4, 3, HistoryEventType.MAP_STATE_ENTERED, "DeliverReleases", "{}", true));
        for (int second = 1; second <= 11; second++) {
            clock.advance(Duration.ofSeconds(1));
            delivered.put(0, 80L * second);
            delivered.put(1, 76L * second);
            progress.tick();
        }
        progress.on(exited(9, 8, "DeliverReleases", "{}"));
        clock.advance(Duration.ofSeconds(10));
        progress.tick();

        assertThat(printed).containsExactly(
                "  delivery: 780 of 2,000 released, 156.0/s (quota 160/s); shard 0: 400, 80.0/s of 80/s; shard 1: 380, 76.0/s of 80/s",
                "  delivery: 1,560 of 2,000 released, 156.0/s (quota 160/s); shard 0: 800, 80.0/s of 80/s; shard 1: 760, 76.0/s of 80/s");
    }

    @Test
    void deliveryPrintsEachShardsReleasesOfItsBacklog() {
        MutableClock clock = new MutableClock(T0);
        List<String> printed = new ArrayList<>();
        Map<Integer, Long> delivered = new HashMap<>();
        java.util.concurrent.atomic.AtomicInteger counts = new java.util.concurrent.atomic.AtomicInteger();
        ShardBacklog backlog = new ShardBacklog(2, shard -> {
            counts.incrementAndGet();
            return shard == 0 ? 1_030L : 970L;
        });
        NightProgress progress = new NightProgress(clock, printed::add,
                requested -> new DeliveryProgress(requested, 2, 160, 2, clock.instant()), () -> Map.copyOf(delivered), backlog::counted);
        progress.on(exited(3, 2, "ReconcilePage", "{\"page\":{\"more\":false,\"totals\":{\"candidates\":2200,\"releaseRequested\":2000}}}"));
        progress.on(event(4, 3, HistoryEventType.MAP_STATE_ENTERED, "DeliverReleases", "{}", true));
        // Counted once, at the first delivery call and not before: other functions' invocations do not count.
        backlog.before(com.payments.reconciler.workflow.LambdaFunction.RECONCILE_PAGE, 1, new byte[0]);
        assertThat(backlog.counted()).isEmpty();
        backlog.before(com.payments.reconciler.workflow.LambdaFunction.DELIVER_COMMANDS, 1, new byte[0]);
        backlog.before(com.payments.reconciler.workflow.LambdaFunction.DELIVER_COMMANDS, 2, new byte[0]);
        for (int second = 1; second <= 5; second++) {
            clock.advance(Duration.ofSeconds(1));
            delivered.put(0, 80L * second);
            delivered.put(1, 76L * second);
            progress.tick();
        }

        assertThat(counts).hasValue(2);
        assertThat(printed).containsExactly(
                "  delivery: 780 of 2,000 released, 156.0/s (quota 160/s); shard 0: 400 of 1,030, 80.0/s of 80/s; shard 1: 380 of 970, 76.0/s of 80/s");
    }

    @Test
    void aChoiceAfterAPageDoesNotRepeatThePagesCounts() {
        HistoryRenderer renderer = new HistoryRenderer(T0);
        String page = "{\"lease\":{\"epoch\":1},\"page\":{\"more\":true,\"totals\":{\"candidates\":2000,\"releaseRequested\":1808}}}";
        List<String> lines = new ArrayList<>();
        for (HistoryEvent event : List.of(
                event(1, 0, HistoryEventType.TASK_STATE_ENTERED, "ReconcilePage", "{\"lease\":{\"epoch\":1}}", true),
                event(2, 1, HistoryEventType.TASK_SUCCEEDED, null, null, false),
                event(3, 2, HistoryEventType.TASK_STATE_EXITED, "ReconcilePage", page, false),
                event(4, 3, HistoryEventType.CHOICE_STATE_ENTERED, "MorePages", page, true),
                event(5, 4, HistoryEventType.CHOICE_STATE_EXITED, "MorePages", page, false))) {
            renderer.render(event).ifPresent(lines::add);
        }

        assertThat(repeatedCounts(lines)).isEmpty();
        assertThat(lines).hasSize(4).anyMatch(l -> l.contains("✓ ReconcilePage  (candidates 2000, released 1808, more true)"))
                .anyMatch(l -> l.endsWith("✓ MorePages"));
    }

    @Test
    void theRepeatCheckFindsThePreviousOutputsRepeatedPageCounts() {
        // The known-bad input: lines as a local night printed them before (the Choice repeating the page's counts).
        List<String> before = List.of(
                "  reconcile-2026-12-06    60.6s ✓ ReconcilePage  (candidates 2000, released 1808, more true)",
                "  reconcile-2026-12-06    60.6s → MorePages",
                "  reconcile-2026-12-06    60.6s ✓ MorePages  (candidates 2000, released 1808, more true)");

        assertThat(repeatedCounts(before)).containsExactly("(candidates 2000, released 1808, more true)");
    }

    /** Count summaries printed by more than one line: a fact said twice. */
    static List<String> repeatedCounts(List<String> lines) {
        Pattern counts = Pattern.compile("\\((candidates|shard)[^)]*\\)");
        Map<String, Integer> seen = new HashMap<>();
        List<String> repeated = new ArrayList<>();
        for (String line : lines) {
            Matcher m = counts.matcher(line);
            while (m.find()) {
                if (seen.merge(m.group(), 1, Integer::sum) == 2) {
                    repeated.add(m.group());
                }
            }
        }
        return repeated;
    }

    private static HistoryEvent exited(long id, long previous, String state, String output) {
        return event(id, previous, HistoryEventType.TASK_STATE_EXITED, state, output, false);
    }

    private static HistoryEvent event(long id, long previous, HistoryEventType type, String state, String payload, boolean entered) {
        HistoryEvent.Builder b = HistoryEvent.builder().id(id).previousEventId(previous).type(type).timestamp(T0.plusSeconds(60));
        if (state != null && entered) {
            b.stateEnteredEventDetails(d -> d.name(state).input(payload));
        } else if (state != null) {
            b.stateExitedEventDetails(d -> d.name(state).output(payload));
        }
        return b.build();
    }
}
