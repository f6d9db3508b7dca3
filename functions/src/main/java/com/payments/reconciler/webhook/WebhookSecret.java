package com.payments.reconciler.webhook;

/**
 * What the webhook secret holds, parsed: the HMAC keys the receiver accepts (the current one and, during a rotation, the
 * previous one) and the basic-auth credentials every request must carry.
 */
public record WebhookSecret(NotificationVerifier verifier, BasicAuth basicAuth) {

    @Override
    public String toString() {
        return "WebhookSecret[hidden]";
    }
}
