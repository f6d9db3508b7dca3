package com.payments.reconciler.delivery;

import java.util.Optional;

import com.fasterxml.jackson.annotation.JsonSubTypes;
import com.fasterxml.jackson.annotation.JsonTypeInfo;

/** What the provider answered to one release request. */
public sealed interface ProviderResult {

    /** A final answer: recorded by the idempotency guard and on the outbox command. */
    @JsonTypeInfo(use = JsonTypeInfo.Id.NAME, property = "outcome")
    @JsonSubTypes({@JsonSubTypes.Type(value = Released.class, name = "RELEASED"),
            @JsonSubTypes.Type(value = Rejected.class, name = "REJECTED"),
            @JsonSubTypes.Type(value = Acknowledged.class, name = "ACKNOWLEDGED")})
    sealed interface Final extends ProviderResult permits Released, Rejected, Acknowledged {
    }

    /** The hold is released; {@code providerReference} is the provider's id for the release. */
    record Released(String providerReference) implements Final {
    }

    /** Permanently refused (e.g. the hold is unknown or closed): retrying cannot change the answer. */
    record Rejected(String code, String reason) implements Final {
    }

    /**
     * The provider took the request and will report its outcome later (Adyen's {@code 201 received}; the outcome comes in
     * a webhook). Final for delivery: sending again could only be answered the same, so the command leaves the delivery
     * index as ACKNOWLEDGED, and the outcome ends it (ingestion's {@code provider.outcome}).
     *
     * Stored by the idempotency guard as JSON (Powertools' record of the call), so its components are plain nullable
     * strings, exactly one of them present; an older record without {@code storedError} reads as a named request.
     *
     * @param requestReference the provider's id for this request (Adyen: the cancel's {@code pspReference}), which its
     *                         outcome notification names; null when the answer was an error stored under the key
     * @param storedError      that stored error (status and the provider's code), when it was one: the request may have
     *                         been acted upon, and its outcome notification names the reference we never learnt
     */
    record Acknowledged(String requestReference, String storedError) implements Final {
        public Acknowledged {
            if ((requestReference == null) == (storedError == null)) {
                throw new IllegalArgumentException("an acknowledgement names its request or the stored error, exactly one");
            }
        }

        public Acknowledged(String requestReference) {
            this(requestReference, null);
        }

        static Acknowledged ofStoredError(String storedError) {
            return new Acknowledged(null, storedError);
        }

        Optional<String> namedRequest() {
            return Optional.ofNullable(requestReference);
        }

        Optional<String> storedErrorIfAny() {
            return Optional.ofNullable(storedError);
        }
    }

    /**
     * No usable answer (5xx, 429, timeout, connection error): the release may or may not have been
     * performed, and retrying with the same idempotency key is the only correct recovery.
     */
    record Unavailable(String cause) implements ProviderResult {
    }

    /**
     * The provider is shedding load (429, or 503 with {@code Retry-After}): nothing was performed that a retry
     * with the same key would not find, and the sender should slow down and wait at least {@code retryAfter}
     * (empty when the answer named none, or named it in a form outside RFC 9110).
     */
    record Throttled(int status, java.util.Optional<java.time.Duration> retryAfter) implements ProviderResult {
    }
}
