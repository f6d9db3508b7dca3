package com.payments.reconciler.ingest;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

import static org.assertj.core.api.Assertions.assertThat;

/** The screen itself: the known test card numbers are found in every notation, and ordinary values are not. */
class CardDataScreenTest {

    @ParameterizedTest
    @ValueSource(strings = {
            "4111111111111111",            // Visa test number, 16 digits
            "4111 1111 1111 1111",         // spaces
            "4111-1111-1111-1111",         // dashes
            "378282246310005",             // Amex, 15
            "5500000000000004",            // Mastercard
            "6011000990139424",            // Discover
            "4222222222222",               // 13-digit Visa
            "ref 4111111111111111 end",    // embedded in text
            "x4111111111111111y",          // glued to letters
            "ref20261128-4111111111111111", // a run of 24 digits: found in a 12-19 stretch
            "card=4111 1111-1111 1111",    // mixed separators
    })
    void findsACardNumberInEveryNotation(String text) {
        assertThat(CardDataScreen.containsCardNumber(text)).as(text).isTrue();
    }

    @ParameterizedTest
    @ValueSource(strings = {
            "4111111111111112",            // Luhn-invalid
            "994111111111111111",          // 18 digits, Luhn-invalid as a whole: a run of 12-19 is judged whole
            "41111111111",                 // 11 digits: too short
            "auth-20261128-000042",        // dashes join 8+6 = 14 digits, Luhn-invalid
            "2026-11-28T14:03:07.512+01:00",
            "4111  1111 1111 1111",        // two spaces break the run into 4 + 12 (the 12 fail Luhn)
            "550e8400-e29b-41d4-a716-44665544abcd",
            "99999999999",
            "evt-7Qm2-001",
    })
    void leavesOrdinaryValuesAlone(String text) {
        assertThat(CardDataScreen.containsCardNumber(text)).as(text).isFalse();
    }

    @ParameterizedTest
    @CsvSource({"4111111111111111,true", "4111111111111112,false", "79927398713,true", "79927398710,false"})
    void luhnIsTheStandardCheck(String digits, boolean valid) {
        int[] d = digits.chars().map(c -> c - '0').toArray();
        assertThat(CardDataScreen.luhnValid(d, 0, d.length)).isEqualTo(valid);
    }

    @ParameterizedTest
    @ValueSource(strings = {"pan", "PAN", "cardNumber", "card_number", "CVV", "cvc2", "expiry_date", "cardholderName", "track2"})
    void cardholderFieldNamesAreKnown(String name) {
        assertThat(CardDataScreen.isCardholderFieldName(name)).isTrue();
    }
}
