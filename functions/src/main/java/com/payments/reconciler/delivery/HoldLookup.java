package com.payments.reconciler.delivery;

import java.util.Optional;

/**
 * What the provider's status lookup ({@code GET /holds/{authorisationId}}, docs/integration.md) answered about one
 * command's hold, before {@link ForgottenKeys#afterLookup} judges it.
 */
public sealed interface HoldLookup {

    /**
     * A 200 with a JSON object for this authorisation.
     *
     * @param status            its {@code status} field as sent (empty when missing or not a string)
     * @param providerReference its {@code providerReference}, when present as a string
     * @param httpStatus        the HTTP status, for a quarantine's record
     * @param body              the body, for a quarantine's record (bounded and masked there, never logged)
     */
    record Answered(Optional<String> status, Optional<String> providerReference, int httpStatus, String body) implements HoldLookup {
    }

    /** The provider offers no lookup: the route answered 404, 405 or 501, or the client has none. */
    record NotOffered(String why) implements HoldLookup {
    }

    /** No usable answer ({@link ProviderResult.Unavailable} or {@link ProviderResult.Throttled}): ask again as a release would be sent again. */
    record NoAnswer(ProviderResult answer) implements HoldLookup {
        public NoAnswer {
            if (answer instanceof ProviderResult.Final) {
                throw new IllegalArgumentException("a final answer is not a missing one: " + answer);
            }
        }
    }
}
