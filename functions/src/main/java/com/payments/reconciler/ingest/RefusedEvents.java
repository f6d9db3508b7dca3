package com.payments.reconciler.ingest;

/**
 * Where IngestEvents puts an event it refused, at once, so a permanently bad event does not take the receives meant for
 * transient failures (the ingestion queue's redrive policy remains the net for everything else). It is a queue of its own,
 * not the dead-letter queue: the dead-letter queue then holds only what SQS's redrive moved there (a message no code has
 * seen), and its depth holds a whole night; a refused message is covered exactly by the hold item written before it is
 * sent ({@link FeedHold}), so it must not hold anything more (docs/design.md, "Held for feed").
 */
public interface RefusedEvents {

    /**
     * Puts the refused message in the refused-events queue; throws when it could not, and the message is then reported as
     * a batch item failure (received again, and moved to the dead-letter queue by the redrive policy if it keeps failing).
     *
     * @param messageId the ingestion queue's message id, carried along so the log line and the refused copy meet
     * @param body the message as received (a refused event may hold what looked like card data: it goes to a queue under
     *             the same data key as the ingestion queue, never into a log)
     */
    void send(String messageId, String body, Refusal refusal);
}
