package com.payments.reconciler.harness.local;

import com.fasterxml.jackson.databind.node.ObjectNode;
import com.payments.reconciler.ingest.EventDecoder;
import com.payments.reconciler.local.provider.StripeWire;
import com.payments.reconciler.workflow.Json;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;

/**
 * The synthetic data as a card platform publishes it (docs/integration.md): one {@code authorisation.created} per
 * authorisation (contract version 2, with its providerReference), one {@code settlement.posted} per settled one, and an
 * {@code authorisation.voided} or {@code .expired} for some of the young ones — only young ones, so the night's
 * expected figures are those of the data loaded directly. Published as a standard queue delivers: some events
 * twice, all in a shuffled order (settlements and ends often before their authorisation). The duplicates, ends and
 * order are drawn from their own stream of the seed, so the authorisations are the same as {@link SyntheticData#load}'s.
 *
 * @param bodies the messages to publish, in publishing order
 * @param distinct the distinct events (each applied once)
 * @param duplicates bodies published a second time
 * @param ends void and expiry events among the distinct ones
 */
public record SyntheticEvents(SyntheticData.Expected expected, List<String> bodies, int distinct, int duplicates, int ends) {

    /** Of the young authorisations, the fraction the platform voids or lets expire before the window. */
    static final double END_FRACTION = 0.2;
    /** Of all events, the fraction published twice (at-least-once publishing). */
    static final double DUPLICATE_FRACTION = 0.02;
    /** Keeps the events' draws apart from the data's, which start from the seed itself. */
    private static final long EVENT_STREAM = 0x1D_E5_7E_D0_0DL;

    public SyntheticEvents {
        bodies = List.copyOf(bodies);
    }

    static SyntheticEvents of(List<SyntheticData.Generated> data, Instant cutoff, long seed,
                              java.util.function.UnaryOperator<String> providerReference) {
        SplittableRandom random = new SplittableRandom(seed ^ EVENT_STREAM);
        List<String> events = new ArrayList<>();
        int ends = 0;
        for (SyntheticData.Generated g : data) {
            events.add(created(g, providerReference));
            if (g.settled()) {
                events.add(settled(g, cutoff));
            }
            if (g.young() && random.nextDouble() < END_FRACTION) {
                events.add(ended(g, random.nextBoolean() ? "authorisation.voided" : "authorisation.expired"));
                ends++;
            }
        }
        int distinct = events.size();
        for (int i = 0; i < distinct; i++) {
            if (random.nextDouble() < DUPLICATE_FRACTION) {
                events.add(events.get(i));
            }
        }
        int duplicates = events.size() - distinct;
        for (int i = events.size() - 1; i > 0; i--) {
            int j = random.nextInt(i + 1);
            String swap = events.get(i);
            events.set(i, events.get(j));
            events.set(j, swap);
        }
        return new SyntheticEvents(SyntheticData.expected(data), events, distinct, duplicates, ends);
    }

    /** The fields every event of the contract carries, for the synthetic feeds to fill in. */
    public static ObjectNode event(String type, String eventId, String authorisationId) {
        ObjectNode e = Json.mapper().createObjectNode();
        e.put("version", EventDecoder.VERSION);
        e.put("type", type);
        e.put("eventId", eventId);
        e.put("authorisationId", authorisationId);
        return e;
    }

    /**
     * {@code feed.watermark} for the settlement feed: every settlement posted at or before {@code at} has been published
     * (docs/integration.md, "Feed completeness"). A platform publishes one after each batch it sent.
     */
    public static String watermark(String eventId, Instant at) {
        // The contract refuses an instant finer than a millisecond (never rounds it): a clock's nanoseconds go.
        Instant millis = at.truncatedTo(java.time.temporal.ChronoUnit.MILLIS);
        ObjectNode e = Json.mapper().createObjectNode();
        e.put("version", EventDecoder.VERSION);
        e.put("type", "feed.watermark");
        e.put("eventId", eventId);
        e.put("feed", "settlements");
        e.put("watermark", millis.toString());
        return e.toString();
    }

    /** The bodies, then the settlement feed's watermark at {@code at}: published after everything it vouches for. */
    public List<String> bodiesWithWatermark(Instant at) {
        List<String> all = new ArrayList<>(bodies);
        // The id as an ISO instant, never bare epoch digits: a 13-digit run can pass the card-number screen.
        all.add(watermark("watermark:" + at.truncatedTo(java.time.temporal.ChronoUnit.MILLIS), at));
        return List.copyOf(all);
    }

    /**
     * Contract version 2, with the provider's id of the authorisation: e.g. the PaymentIntent id the simulated provider holds
     * for it ({@link StripeWire#paymentIntentFor}), which the Stripe adapter cancels and the generic contract ignores, or the
     * Adyen fake's payment pspReference.
     */
    private static String created(SyntheticData.Generated g, java.util.function.UnaryOperator<String> providerReference) {
        return event("authorisation.created", "created:" + g.id(), g.id()).put("version", 2).put("amountMinor", g.amountMinor())
                .put("currency", g.currency()).put("merchantId", g.merchantId()).put("authorisedAt", g.authorisedAt().toString())
                .put("providerReference", providerReference.apply(g.id())).toString();
    }

    private static String settled(SyntheticData.Generated g, Instant settledAt) {
        return event("settlement.posted", "settled:" + g.id(), g.id()).put("amountMinor", g.amountMinor())
                .put("currency", g.currency()).put("settledAt", settledAt.toString()).toString();
    }

    private static String ended(SyntheticData.Generated g, String type) {
        return event(type, "ended:" + g.id(), g.id()).put("endedAt", g.authorisedAt().plus(Duration.ofHours(1)).toString()).toString();
    }

    /** Messages to publish, the duplicates included. */
    public int published() {
        return bodies.size();
    }
}
