package com.payments.reconciler.ingest;

/**
 * Where IngestEvents puts an event it refused, at once, so a permanently bad event does not take the receives meant for
 * transient failures (the queue's redrive policy remains the net for everything else).
 */
public interface DeadLetters {

    /**
     * Puts the refused message in the dead-letter queue; throws when it could not, and the message is then reported as a
     * batch item failure (received again, and moved by the redrive policy if it keeps failing).
     *
     * @param messageId the ingestion queue's message id, carried along so the log line and the dead letter meet
     * @param body the message as received (a refused event may hold what looked like card data: it goes where the
     *             redrive policy would have put it, never into a log)
     */
    void send(String messageId, String body, Refusal refusal);
}
