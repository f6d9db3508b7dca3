package com.payments.reconciler.delivery;

import java.time.Duration;
import java.time.Instant;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeParseException;
import java.util.Optional;

/**
 * RFC 9110 §10.2.3 {@code Retry-After}: delay-seconds (a non-negative integer) or an HTTP-date
 * (IMF-fixdate, e.g. {@code Wed, 02 Dec 2026 03:00:05 GMT}), read against our clock.
 */
final class RetryAfter {

    /** A provider asking for longer than this is not waited for inside one call: the command is deferred. */
    static final Duration LONGEST_HONOURED = Duration.ofHours(1);

    private RetryAfter() {
    }

    /** The wait it asks for from {@code now}: zero for a date already past; empty when absent or not in either form. */
    static Optional<Duration> parse(String header, Instant now) {
        if (header == null || header.isBlank()) {
            return Optional.empty();
        }
        String value = header.strip();
        if (value.chars().allMatch(Character::isDigit)) {
            if (value.length() > 9) {
                return Optional.of(LONGEST_HONOURED);
            }
            return Optional.of(min(Duration.ofSeconds(Long.parseLong(value))));
        }
        try {
            Instant at = ZonedDateTime.parse(value, DateTimeFormatter.RFC_1123_DATE_TIME).toInstant();
            Duration wait = Duration.between(now, at);
            return Optional.of(wait.isNegative() ? Duration.ZERO : min(wait));
        } catch (DateTimeParseException e) {
            return Optional.empty();
        }
    }

    private static Duration min(Duration wait) {
        return wait.compareTo(LONGEST_HONOURED) > 0 ? LONGEST_HONOURED : wait;
    }
}
