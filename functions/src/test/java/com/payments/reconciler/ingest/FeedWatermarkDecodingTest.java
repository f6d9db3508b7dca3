package com.payments.reconciler.ingest;

import com.payments.reconciler.ingest.EventDecoder.Decoded;
import com.payments.reconciler.ingest.IngestEvent.FeedWatermark;
import java.time.Instant;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import static org.assertj.core.api.Assertions.assertThat;

/** {@code feed.watermark}: decoded per feed, refused naming the field, and its write and duplicates as a table of cases. */
class FeedWatermarkDecodingTest {

    private static final String VALID = "{\"version\":1,\"type\":\"feed.watermark\",\"eventId\":\"wm-1\",\"feed\":\"settlements\","
            + "\"watermark\":\"2026-12-06T01:55:00+01:00\"}";

    @Test
    void aWatermarkDecodesWithItsFeedAndInstantAndKeysTheFeedsItem() {
        Decoded decoded = new EventDecoder().decode(VALID);
        assertThat(decoded).isEqualTo(new Decoded.Valid(new FeedWatermark("wm-1", "settlements", Instant.parse("2026-12-06T00:55:00Z"))));
        assertThat(((Decoded.Valid) decoded).event().authorisationId()).isEqualTo("feed#settlements")
                .doesNotMatch(EventDecoder.ID.pattern());
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', value = {
            "another feed|\"feed\":\"settlements\"|\"feed\":\"authorisations\"|feed|must be one of [settlements]",
            "no feed|,\"feed\":\"settlements\"||feed|required",
            "a feed as a number|\"feed\":\"settlements\"|\"feed\":7|feed|must be a JSON string",
            "no watermark|,\"watermark\":\"2026-12-06T01:55:00+01:00\"||watermark|required",
            "a watermark without offset|2026-12-06T01:55:00+01:00|2026-12-06T01:55:00|watermark|with an offset",
            "finer than a millisecond|2026-12-06T01:55:00+01:00|2026-12-06T01:55:00.0001+01:00|watermark|finer than a millisecond",
            "an authorisation id|\"feed\":\"settlements\"|\"feed\":\"settlements\",\"authorisationId\":\"a1\"|authorisationId|unknown field",
    })
    void aBadWatermarkIsRefusedNamingTheField(String why, String from, String to, String field, String problem) {
        Decoded decoded = new EventDecoder().decode(VALID.replace(from, to == null ? "" : to));
        assertThat(decoded).as(why).isInstanceOf(Decoded.Refused.class);
        Refusal refusal = ((Decoded.Refused) decoded).refusal();
        assertThat(refusal.field()).isEqualTo(field);
        assertThat(refusal.problem()).contains(problem);
    }

    @Test
    void itsWriteAdvancesTheFeedsItemAndAFailedAdvanceIsADuplicate() {
        FeedWatermark event = new FeedWatermark("wm-2", "settlements", Instant.parse("2026-12-06T01:00:00Z"));
        IngestionDecision decision = new IngestionDecision(4);
        assertThat(decision.first(event)).isEqualTo(new IngestWrite.AdvanceWatermark(event));
        assertThat(decision.followUp(new IngestWrite.AdvanceWatermark(event))).isEmpty();
        assertThat(decision.afterConditionFailed(new IngestWrite.AdvanceWatermark(event),
                new StoredItem.StoredWatermark(Optional.of("wm-2"), Optional.of(event.watermark()))))
                .isEqualTo(new IngestionDecision.Next.Duplicate("event already applied"));
        assertThat(decision.afterConditionFailed(new IngestWrite.AdvanceWatermark(event),
                new StoredItem.StoredWatermark(Optional.of("wm-3"), Optional.of(Instant.parse("2026-12-06T02:00:00Z")))))
                .isEqualTo(new IngestionDecision.Next.Duplicate("the settlements feed's watermark is already at 2026-12-06T02:00:00Z, "
                        + "not before 2026-12-06T01:00:00Z"));
        assertThat(IngestStore.ADVANCE_WATERMARK).isEqualTo("attribute_not_exists(#watermark) OR #watermark < :watermark");
    }
}
