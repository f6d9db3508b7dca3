package com.payments.reconciler.local.faults;

import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.Map;

/**
 * DynamoDB's {@code ClientRequestToken} bookkeeping for TransactWriteItems, which moto does not implement:
 * a token, once a request carrying it has committed, stands for that request (by hash) and its first
 * response for {@link #VALIDITY} after completion. Only commits are recorded: a cancelled transaction
 * applied nothing, so a retry under the same token is evaluated afresh (the production code does not rely
 * on either reading: it takes a fresh token after a definitive cancellation).
 */
final class ClientTokens {

    /** "A client request token is valid for 10 minutes after the first request that uses it is completed." */
    static final Duration VALIDITY = Duration.ofMinutes(10);

    sealed interface Lookup {
        /** Unknown token (or expired): send it; this call now has the token in flight. */
        record Fresh() implements Lookup {
        }

        /** Known token, same request: answer with the first response, apply nothing. */
        record Replay(byte[] response) implements Lookup {
        }

        /** Known token, different request. */
        record Mismatch() implements Lookup {
        }

        /** Another call is sending a request with this token right now. */
        record InProgress() implements Lookup {
        }
    }

    private record Recorded(String requestHash, byte[] response, Instant completedAt) {
    }

    private final Map<String, Recorded> completed = new HashMap<>();
    private final Map<String, Object> inFlight = new HashMap<>();

    synchronized Lookup begin(String token, String requestHash, Object call, Instant now) {
        Recorded recorded = completed.get(token);
        if (recorded != null && now.isAfter(recorded.completedAt().plus(VALIDITY))) {
            completed.remove(token);
            recorded = null;
        }
        if (recorded != null) {
            return recorded.requestHash().equals(requestHash) ? new Lookup.Replay(recorded.response()) : new Lookup.Mismatch();
        }
        Object holder = inFlight.putIfAbsent(token, call);
        return holder == null || holder == call ? new Lookup.Fresh() : new Lookup.InProgress();
    }

    /** The request carrying {@code token} committed with {@code response}; the first commit is the one kept. */
    synchronized void committed(String token, String requestHash, Object call, byte[] response, Instant now) {
        inFlight.remove(token, call);
        completed.putIfAbsent(token, new Recorded(requestHash, response.clone(), now));
    }

    /** The call's attempt ended without a commit (cancelled, rejected, or no answer). */
    synchronized void ended(String token, Object call) {
        inFlight.remove(token, call);
    }
}
