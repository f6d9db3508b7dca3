package com.payments.reconciler.harness.local;

import com.payments.reconciler.audit.ProviderEffect;
import com.payments.reconciler.audit.StoreSnapshot;
import com.payments.reconciler.harness.ingest.SettlementFeed;
import com.payments.reconciler.ingest.EventDecoder;
import com.payments.reconciler.store.Tables.ReleaseCommands;
import com.payments.reconciler.workflow.LambdaFunction;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.function.Consumer;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;

/**
 * The scenario {@code local --scenario ended-after-decision}: once the night has decided and before any delivery call
 * runs, the platform voids, expires or captures some of the authorisations the night asked to release, through the
 * ingestion queue and the real IngestEvents. Every delivery invocation waits until those events are applied (the
 * first one publishes them), so the race is decided, not left to timing; the night must cancel each of those
 * commands before any provider call.
 */
public final class EndsAfterDecision implements InvocationHook, AutoCloseable {

    /** Share of the night's commands the platform ends or captures after the decision (at least three, one of each). */
    static final double SHARE = 0.05;

    private final LocalPipeline pipeline;
    private final SettlementFeed feed;
    private final String windowId;
    private final SplittableRandom random;
    private final Consumer<String> console;
    private Chosen chosen;

    /** The authorisations the platform ended or captured after the decision, by kind. */
    public record Chosen(List<String> voided, List<String> expired, List<String> reversed, List<String> captured) {
        public Set<String> all() {
            Set<String> all = new java.util.HashSet<>(voided);
            all.addAll(expired);
            all.addAll(reversed);
            all.addAll(captured);
            return all;
        }
    }

    public EndsAfterDecision(LocalPipeline pipeline, java.time.Clock clock, String windowId, long seed, Consumer<String> console) {
        this.pipeline = pipeline;
        this.feed = SettlementFeed.open(pipeline, clock, seed);
        this.windowId = windowId;
        this.random = new SplittableRandom(seed);
        this.console = console;
    }

    @Override
    public InjectedFailure before(LambdaFunction function, int invocation, byte[] payload) {
        if (function == LambdaFunction.DELIVER_COMMANDS) {
            publishOnce();
        }
        return null;
    }

    private synchronized void publishOnce() {
        if (chosen != null) {
            return;
        }
        List<String> pending = new ArrayList<>();
        for (Map<String, AttributeValue> command : StoreSnapshot.scan(pipeline.dynamo(), pipeline.tables()).of(ReleaseCommands.SCHEMA)) {
            if (windowId.equals(text(command, ReleaseCommands.WINDOW_ID)) && ReleaseCommands.STATUS_PENDING.equals(text(command, ReleaseCommands.STATUS))) {
                pending.add(text(command, ReleaseCommands.AUTHORISATION_ID));
            }
        }
        pending.sort(null);
        int wanted = (int) Math.min(pending.size(), Math.max(4, Math.round(pending.size() * SHARE)));
        List<List<String>> kinds = List.of(new ArrayList<>(), new ArrayList<>(), new ArrayList<>(), new ArrayList<>());
        for (int k = 0; k < wanted; k++) {
            kinds.get(k % kinds.size()).add(pending.remove(random.nextInt(pending.size())));
        }
        chosen = new Chosen(List.copyOf(kinds.get(0)), List.copyOf(kinds.get(1)), List.copyOf(kinds.get(2)), List.copyOf(kinds.get(3)));
        if (!chosen.voided().isEmpty()) {
            feed.end(chosen.voided(), EventDecoder.TYPE_VOIDED);
        }
        if (!chosen.expired().isEmpty()) {
            feed.end(chosen.expired(), EventDecoder.TYPE_EXPIRED);
        }
        if (!chosen.reversed().isEmpty()) {
            feed.end(chosen.reversed(), EventDecoder.TYPE_REVERSED);
        }
        if (!chosen.captured().isEmpty()) {
            feed.settle(chosen.captured());
        }
        console.accept("after the decision, before delivery, the platform voided " + chosen.voided().size() + ", expired "
                + chosen.expired().size() + ", fully reversed " + chosen.reversed().size() + " and captured " + chosen.captured().size()
                + " of the " + (pending.size() + wanted)
                + " authorisations the night asked to release");
    }

    /** What the platform ended or captured, once the night reached delivery (empty before). */
    public synchronized java.util.Optional<Chosen> chosen() {
        return java.util.Optional.ofNullable(chosen);
    }

    /** The chosen authorisations the provider released anyway: each is a defect. */
    public List<String> releasedAnyway(List<ProviderEffect> effects) {
        return releasedAnyway(chosen().map(Chosen::all).orElse(Set.of()), effects);
    }

    static List<String> releasedAnyway(Set<String> ended, List<ProviderEffect> effects) {
        return effects.stream().filter(e -> e.performed() > 0 && ended.contains(e.authorisationId())).map(ProviderEffect::authorisationId)
                .sorted().toList();
    }

    private static String text(Map<String, AttributeValue> item, String attribute) {
        AttributeValue value = item.get(attribute);
        return value == null ? null : value.s();
    }

    @Override
    public void close() {
        feed.close();
    }
}
