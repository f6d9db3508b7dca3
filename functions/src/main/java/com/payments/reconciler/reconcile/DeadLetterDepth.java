package com.payments.reconciler.reconcile;

import java.util.List;
import java.util.Map;
import java.util.Objects;
import software.amazon.awssdk.services.sqs.SqsClient;
import software.amazon.awssdk.services.sqs.model.QueueAttributeName;

/**
 * The ingestion dead-letter queue, as a night reads it before releasing (docs/decisions.md, "Held for feed"). SQS moves
 * a message there on its own after {@code maxReceiveCount} receives (throttling, a bad deploy of IngestEvents): it never
 * reaches our code as a refusal, so no hold item names it, and it may be any hold's settlement. So while the queue holds
 * anything the whole night is held: ReconcilePage commands no release and DeliverCommands sends none. IngestEvents' own
 * refusals are not there (they go to the refused-events queue, each covered exactly by its hold item), so the depth
 * counts only messages no hold item covers.
 *
 * <p>Conservative on purpose: SQS's counts are approximate and eventually consistent (the attributes "may not achieve
 * consistency until at least 1 minute after the producers stop sending messages", GetQueueAttributes in the SQS API
 * reference), so visible, in-flight and delayed messages are all counted and any non-zero holds. A queue that cannot be
 * read (AccessDenied, a timeout, a missing queue) holds too: an unread queue may hold a settlement.
 */
public final class DeadLetterDepth {

    /** The three counts that together are every message the queue holds: visible, in flight (being read), delayed. */
    static final List<QueueAttributeName> COUNTS = List.of(QueueAttributeName.APPROXIMATE_NUMBER_OF_MESSAGES,
            QueueAttributeName.APPROXIMATE_NUMBER_OF_MESSAGES_NOT_VISIBLE, QueueAttributeName.APPROXIMATE_NUMBER_OF_MESSAGES_DELAYED);

    /** What the queue said: {@link #holds()} unless it was read and empty. */
    public sealed interface Reading {
        boolean holds();

        /** One line for the log and the report: the count, or why the queue could not be read. */
        String why();
    }

    public record Empty() implements Reading {
        @Override
        public boolean holds() {
            return false;
        }

        @Override
        public String why() {
            return "the ingestion dead-letter queue is empty";
        }
    }

    /** @param messages visible + in flight + delayed, approximate */
    public record NotEmpty(long messages) implements Reading {
        @Override
        public boolean holds() {
            return true;
        }

        @Override
        public String why() {
            return "the ingestion dead-letter queue holds about " + messages + " messages (visible, in flight or delayed): any of them may be a settlement";
        }
    }

    /** @param cause the SDK's error class and message (never a message body: GetQueueAttributes returns none) */
    public record Unreadable(String cause) implements Reading {
        @Override
        public boolean holds() {
            return true;
        }

        @Override
        public String why() {
            return "the ingestion dead-letter queue could not be read (" + cause + "): an unread queue may hold a settlement";
        }
    }

    /** The counts, by attribute; throws when the queue cannot be read. */
    @FunctionalInterface
    public interface Source {
        Map<QueueAttributeName, String> counts(List<QueueAttributeName> names);
    }

    private final Source source;

    public DeadLetterDepth(Source source) {
        this.source = Objects.requireNonNull(source, "source");
    }

    /** The deployed queue: one GetQueueAttributes (the role may call only that, on this queue only). */
    public static DeadLetterDepth queue(SqsClient sqs, String queueUrl) {
        Objects.requireNonNull(queueUrl, "queueUrl");
        return new DeadLetterDepth(names -> sqs.getQueueAttributes(b -> b.queueUrl(queueUrl).attributeNames(names)).attributes());
    }

    /** A queue known empty: tests of other rules only. */
    public static DeadLetterDepth empty() {
        return new DeadLetterDepth(names -> names.stream().collect(java.util.stream.Collectors.toMap(n -> n, n -> "0")));
    }

    /** Reads the queue once. Never throws: a failed read is {@link Unreadable}, which holds. */
    public Reading read() {
        Map<QueueAttributeName, String> counts;
        try {
            counts = source.counts(COUNTS);
        } catch (RuntimeException e) {
            return new Unreadable(e.getClass().getSimpleName() + ": " + e.getMessage());
        }
        return of(counts);
    }

    /** The rule, pure: an absent or unreadable count is not zero. */
    static Reading of(Map<QueueAttributeName, String> counts) {
        long total = 0;
        for (QueueAttributeName name : COUNTS) {
            String value = counts == null ? null : counts.get(name);
            if (value == null) {
                return new Unreadable("no " + name + " in the answer");
            }
            try {
                long n = Long.parseLong(value.trim());
                if (n < 0) {
                    return new Unreadable(name + " was " + value);
                }
                total += n;
            } catch (NumberFormatException e) {
                return new Unreadable(name + " was not a number");
            }
        }
        return total == 0 ? new Empty() : new NotEmpty(total);
    }
}
