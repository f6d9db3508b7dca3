package com.payments.reconciler.delivery;

import com.payments.reconciler.workflow.Timing;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Keys the provider forgets, as tables: when a command's next request must be the status lookup, and what the lookup's
 * answer makes of it. The known-bad policy is main's before this rule: never ask (a command is re-sent blindly whatever
 * its first attempt's age), which the age table refuses.
 */
class ForgottenKeysTest {

    private static final Instant NOW = Instant.parse("2026-12-03T02:20:00Z");
    private static final String OP = "release-hold:a-1";

    /** One row of the age table: retention, first attempt's age (or never), whether the next request asks first. */
    private record AgeRow(String scenario, Duration retention, Optional<Duration> attemptedAgo, boolean asks) {
    }

    private static final Duration DAY = Duration.ofHours(24);
    private static final Duration TRUSTED_AT_A_DAY = DAY.minus(Timing.PROVIDER_KEY_MARGIN);
    private static final Duration OURS = Timing.IDEMPOTENCY_EXPIRY.minus(Timing.PROVIDER_KEY_MARGIN);

    private static final List<AgeRow> AGES = List.of(
            new AgeRow("never attempted, however old the command: nothing to forget", DAY, Optional.empty(), false),
            new AgeRow("attempted a minute ago (a retry in the same night)", DAY, Optional.of(Duration.ofMinutes(1)), false),
            new AgeRow("one millisecond inside the retention minus the margin", DAY, Optional.of(TRUSTED_AT_A_DAY.minusMillis(1)), false),
            new AgeRow("exactly at the retention minus the margin", DAY, Optional.of(TRUSTED_AT_A_DAY), true),
            new AgeRow("the next night, 24 h 15 min after a lost answer", DAY, Optional.of(Duration.ofMinutes(24 * 60 + 15)), true),
            new AgeRow("a provider keeping keys 30 days: our own records (17 days) are the shorter", Duration.ofDays(30),
                    Optional.of(OURS), true),
            new AgeRow("a provider keeping keys 30 days, inside our records", Duration.ofDays(30), Optional.of(OURS.minusMillis(1)), false),
            new AgeRow("a retention shorter than the margin: every attempted command asks", Duration.ofMinutes(30),
                    Optional.of(Duration.ZERO), true));

    /** A policy under test: whether a command first attempted at {@code firstAttemptAt} asks before its next request. */
    private interface Policy {
        boolean askFirst(Optional<Instant> firstAttemptAt, Instant now, Duration retention);
    }

    private static List<String> violations(Policy policy) {
        List<String> wrong = new ArrayList<>();
        for (AgeRow row : AGES) {
            boolean asks = policy.askFirst(row.attemptedAgo().map(NOW::minus), NOW, row.retention());
            if (asks != row.asks()) {
                wrong.add(row.scenario() + ": asks " + asks + ", expected " + row.asks());
            }
        }
        return wrong;
    }

    @Test
    void aCommandAsksTheStatusLookupFirstExactlyWhenItsFirstAttemptMayBeForgotten() {
        assertThat(violations(ForgottenKeys::askFirst)).isEmpty();
    }

    /** Known-bad: main's delivery re-sent every PENDING command blindly. */
    @Test
    void theBlindResendOfMainFailsTheAgeTable() {
        assertThat(violations((first, now, retention) -> false))
                .anySatisfy(v -> assertThat(v).startsWith("the next night, 24 h 15 min after a lost answer"))
                .hasSize(4);
    }

    @Test
    void trustIsTheShorterOfTheTwoRecordsMinusTheMarginAndNeverNegative() {
        assertThat(ForgottenKeys.trustedFor(DAY)).isEqualTo(Duration.ofHours(23));
        assertThat(ForgottenKeys.trustedFor(Duration.ofDays(366))).isEqualTo(OURS);
        assertThat(ForgottenKeys.trustedFor(Duration.ofMinutes(59))).isEqualTo(Duration.ZERO);
        assertThat(ForgottenKeys.trustedFor(Timing.PROVIDER_KEY_MARGIN)).isEqualTo(Duration.ZERO);
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', nullValues = "-", textBlock = """
            # case                                       | lookup        | status     | reference | expected
            released: delivered with the lookup's reference | answered   | RELEASED   | PRV-7     | Answer:Released(PRV-7)
            released without a reference: outside         | answered      | RELEASED   | -         | OutsideContract
            released with a blank reference: outside      | answered      | RELEASED   | ' '       | OutsideContract
            captured: rejected, nothing to release        | answered      | CAPTURED   | -         | Answer:Rejected(HOLD_CAPTURED)
            active: the release is sent                   | answered      | ACTIVE     | -         | Send
            active with a reference: still sent           | answered      | ACTIVE     | PRV-7     | Send
            a status outside the contract                 | answered      | CANCELLED  | -         | OutsideContract
            same hash as RELEASED, another text           | answered      | S&LEASED   | PRV-7     | OutsideContract
            same hash as ACTIVE, another text             | answered      | B$TIVE     | -         | OutsideContract
            same hash as CAPTURED, another text           | answered      | D"PTURED   | -         | OutsideContract
            lower case is not the contract's              | answered      | released   | PRV-7     | OutsideContract
            no status field                               | answered      | -          | -         | OutsideContract
            no lookup offered: escalated to a person      | not-offered   | -          | -         | Escalate
            no answer: asked again                        | unavailable   | -          | -         | AskAgain
            throttled: asked again                        | throttled     | -          | -         | AskAgain
            """)
    void theLookupsAnswerDecides(String scenario, String lookup, String status, String reference, String expected) {
        HoldLookup answer = switch (lookup) {
            case "answered" -> new HoldLookup.Answered(Optional.ofNullable(status), Optional.ofNullable(reference), 200, "{}");
            case "not-offered" -> new HoldLookup.NotOffered("GET /holds/{authorisationId} answered 404");
            case "unavailable" -> new HoldLookup.NoAnswer(new ProviderResult.Unavailable("provider answered 503"));
            case "throttled" -> new HoldLookup.NoAnswer(new ProviderResult.Throttled(429, Optional.empty()));
            default -> throw new IllegalArgumentException(lookup);
        };

        assertThat(describe(ForgottenKeys.afterLookup(answer, OP))).as(scenario).isEqualTo(expected);
    }

    @Test
    void aReferenceOfAtMost256CharactersIsAcceptedOneLongerIsOutsideTheContract() {
        String longest = "P".repeat(256);

        assertThat(describe(ForgottenKeys.afterLookup(new HoldLookup.Answered(Optional.of("RELEASED"), Optional.of(longest), 200, "{}"), OP)))
                .isEqualTo("Answer:Released(" + longest + ")");
        assertThat(describe(ForgottenKeys.afterLookup(new HoldLookup.Answered(Optional.of("RELEASED"), Optional.of(longest + "P"), 200, "{}"), OP)))
                .isEqualTo("OutsideContract");
    }

    @Test
    void theHashCollisionsAboveAreRealCollisions() {
        assertThat("S&LEASED".hashCode()).isEqualTo("RELEASED".hashCode());
        assertThat("B$TIVE".hashCode()).isEqualTo("ACTIVE".hashCode());
        assertThat("D\"PTURED".hashCode()).isEqualTo("CAPTURED".hashCode());
    }

    @Test
    void anEscalationSaysWhatAPersonDoes() {
        ForgottenKeys.Step step = ForgottenKeys.afterLookup(new HoldLookup.NotOffered("GET /holds/{authorisationId} answered 404"), OP);

        assertThat(((ForgottenKeys.Step.Escalate) step).reason()).contains("answered 404").contains("commands resolve");
    }

    @Test
    void anAnswerOutsideTheContractNamesTheFieldAndMasksWhatLooksLikeACardNumber() {
        ForgottenKeys.Step step = ForgottenKeys.afterLookup(new HoldLookup.Answered(Optional.of("4111111111111111"),
                Optional.empty(), 200, "{}"), OP);

        assertThat(((ForgottenKeys.Step.OutsideContract) step).why()).contains("field status").doesNotContain("4111111111111111");
    }

    @Test
    void aFinalAnswerIsNotAMissingOne() {
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> new HoldLookup.NoAnswer(new ProviderResult.Released("PRV-1")))
                .isInstanceOf(IllegalArgumentException.class);
    }

    private static String describe(ForgottenKeys.Step step) {
        return switch (step) {
            case ForgottenKeys.Step.Answer(ProviderResult.Released released) -> "Answer:Released(" + released.providerReference() + ")";
            case ForgottenKeys.Step.Answer(ProviderResult.Rejected rejected) -> "Answer:Rejected(" + rejected.code() + ")";
            case ForgottenKeys.Step.Answer(ProviderResult.Acknowledged taken) -> "Answer:Acknowledged(" + taken.requestReference() + ")";
            case ForgottenKeys.Step.Send send -> "Send";
            case ForgottenKeys.Step.Escalate escalate -> "Escalate";
            case ForgottenKeys.Step.OutsideContract outside -> "OutsideContract";
            case ForgottenKeys.Step.AskAgain again -> "AskAgain";
        };
    }
}
