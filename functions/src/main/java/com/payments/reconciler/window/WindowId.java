package com.payments.reconciler.window;

import com.payments.reconciler.workflow.InvalidInput;
import java.time.DateTimeException;
import java.time.Instant;
import java.time.LocalDate;
import java.time.OffsetDateTime;
import java.time.ZoneId;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeParseException;
import java.util.Objects;

/**
 * A nightly window: the schedule's nominal date in the schedule's time zone (docs/design.md §8). Derived from
 * Scheduler's {@code <aws.scheduler.scheduled-time>}, which is the nominal time of the occurrence even
 * when a flexible time window delays the invocation, so every delivery of one occurrence names the
 * same window.
 */
public record WindowId(LocalDate date) implements Comparable<WindowId> {

    public WindowId {
        Objects.requireNonNull(date, "date");
        if (date.getYear() < 2000 || date.getYear() > 9999) {
            throw new InvalidInput("window", "must be a date from 2000-01-01 to 9999-12-31, was " + date);
        }
    }

    /**
     * Parses {@code YYYY-MM-DD} (a CLI flag, a field of the execution input, the night the first task resolved): the one
     * window-id check, so an input and the night built from it accept exactly the same ids.
     */
    public static WindowId parse(String text, String field) {
        if (text == null || text.isBlank()) {
            throw new InvalidInput(field, "required, a date YYYY-MM-DD");
        }
        try {
            LocalDate date = LocalDate.parse(text, DateTimeFormatter.ISO_LOCAL_DATE);
            if (!date.toString().equals(text)) {
                throw new DateTimeParseException("not canonical", text, 0);
            }
            if (date.getYear() < 2000 || date.getYear() > 9999) {
                throw new InvalidInput(field, "must be a date from 2000-01-01 to 9999-12-31, was " + text);
            }
            return new WindowId(date);
        } catch (DateTimeParseException e) {
            throw new InvalidInput(field, "must be a date YYYY-MM-DD, was '" + text + "'");
        }
    }

    /**
     * The window of a Scheduler occurrence: {@code scheduledTime} (ISO-8601 with offset, e.g.
     * {@code 2026-12-01T02:00:00Z}) seen in the schedule's time zone.
     */
    public static WindowId fromScheduledTime(String scheduledTime, ZoneId zone) {
        return new WindowId(scheduledInstant(scheduledTime).atZone(zone).toLocalDate());
    }

    public static Instant scheduledInstant(String scheduledTime) {
        if (scheduledTime == null || scheduledTime.isBlank()) {
            throw new InvalidInput("scheduledTime", "required, Scheduler's <aws.scheduler.scheduled-time>, an ISO-8601 time such as 2026-12-01T02:00:00Z");
        }
        try {
            return OffsetDateTime.parse(scheduledTime, DateTimeFormatter.ISO_OFFSET_DATE_TIME).toInstant();
        } catch (DateTimeException e) {
            throw new InvalidInput("scheduledTime", "must be an ISO-8601 time with an offset such as 2026-12-01T02:00:00Z, was '" + scheduledTime + "'");
        }
    }

    @Override
    public int compareTo(WindowId other) {
        return date.compareTo(other.date);
    }

    @Override
    public String toString() {
        return date.toString();
    }
}
