package com.payments.reconciler.ingest;

import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.params.provider.Arguments.arguments;

/**
 * The ingestion side of "Held for feed", as a table: which hold a refused body calls for. Known-bad row kept: a body
 * whose type is unknown (a future or garbled settlement type) must hold the night; a rule that only held
 * {@code settlement.posted} would let it through.
 */
class FeedHoldDecisionTableTest {

    static Stream<Arguments> rows() {
        return Stream.of(
                arguments("settlement, readable id", "{\"type\":\"settlement.posted\",\"authorisationId\":\"auth-1\",\"extra\":1}", new FeedHold.One("auth-1")),
                arguments("settlement, id not in the id form", "{\"type\":\"settlement.posted\",\"authorisationId\":\"#bad\"}", new FeedHold.NightWide()),
                arguments("settlement, id not a string", "{\"type\":\"settlement.posted\",\"authorisationId\":42}", new FeedHold.NightWide()),
                arguments("settlement, no id", "{\"type\":\"settlement.posted\"}", new FeedHold.NightWide()),
                arguments("not JSON", "{\"type\":\"settlement.posted\",", new FeedHold.NightWide()),
                arguments("JSON but not an object", "[1,2]", new FeedHold.NightWide()),
                arguments("no type", "{\"authorisationId\":\"auth-1\"}", new FeedHold.NightWide()),
                arguments("unknown type (known-bad for a settlement.posted-only rule)", "{\"type\":\"settlement.postd\",\"authorisationId\":\"auth-1\"}",
                        new FeedHold.NightWide()),
                arguments("authorisation.created", "{\"type\":\"authorisation.created\",\"authorisationId\":\"auth-1\"}", new FeedHold.None()),
                arguments("authorisation.voided", "{\"type\":\"authorisation.voided\",\"authorisationId\":\"auth-1\"}", new FeedHold.None()),
                arguments("feed.watermark", "{\"type\":\"feed.watermark\",\"feed\":\"settlements\"}", new FeedHold.None()),
                arguments("provider.outcome (a verdict on a sent request, no settlement)",
                        "{\"type\":\"provider.outcome\",\"authorisationId\":\"auth-1\",\"success\":\"maybe\"}", new FeedHold.None()),
                arguments("null body", null, new FeedHold.NightWide()));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("rows")
    void holdOf(String row, String body, FeedHold expected) {
        assertThat(FeedHold.of(body)).isEqualTo(expected);
    }

    /**
     * Every type the decoder accepts is classified on purpose: a type added to the contract and forgotten here would make
     * each of its refusals hold the whole night (a refused provider.outcome once did).
     */
    @Test
    void everyDecodedTypeIsSettlementOrListedAsNotSettlementBearing() throws IllegalAccessException {
        assertThat(unclassified(FeedHold.NOT_SETTLEMENT_BEARING)).isEmpty();
    }

    @Test
    void knownBadTheListWithoutTheProviderOutcomeLeavesItUnclassified() throws IllegalAccessException {
        Set<String> withoutOutcome = new HashSet<>(FeedHold.NOT_SETTLEMENT_BEARING);
        withoutOutcome.remove(EventDecoder.TYPE_PROVIDER_OUTCOME);
        assertThat(unclassified(withoutOutcome)).containsExactly(EventDecoder.TYPE_PROVIDER_OUTCOME);
    }

    private static List<String> unclassified(Set<String> notSettlementBearing) throws IllegalAccessException {
        List<String> missing = new ArrayList<>();
        for (Field field : EventDecoder.class.getFields()) {
            if (field.getName().startsWith("TYPE_") && Modifier.isStatic(field.getModifiers()) && field.getType() == String.class) {
                String type = (String) field.get(null);
                if (!type.equals(EventDecoder.TYPE_SETTLED) && !notSettlementBearing.contains(type)) {
                    missing.add(type);
                }
            }
        }
        return missing;
    }
}
