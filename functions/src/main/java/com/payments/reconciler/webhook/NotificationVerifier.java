package com.payments.reconciler.webhook;

import com.fasterxml.jackson.databind.JsonNode;

/** Checks one notification item's signature before anything is done with it ({@link AdyenSignature}). */
@FunctionalInterface
public interface NotificationVerifier {
    AdyenSignature.Verdict verify(JsonNode item);
}
