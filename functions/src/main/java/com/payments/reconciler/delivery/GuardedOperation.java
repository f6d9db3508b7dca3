package com.payments.reconciler.delivery;

import java.util.Objects;

/**
 * What the {@link OperationGuard} keys on and validates.
 *
 * @param operationId the business operation, the key ({@code release-hold:{authorisationId}})
 * @param fingerprint what defines the request beyond its id; a repeat must carry the same one
 */
public record GuardedOperation(String operationId, String fingerprint) {

    public GuardedOperation {
        if (operationId == null || operationId.isBlank()) {
            throw new IllegalArgumentException("operationId must be a non-empty string");
        }
        Objects.requireNonNull(fingerprint, "fingerprint");
    }

    public static GuardedOperation of(PendingCommand command) {
        return new GuardedOperation(command.operationId(), command.fingerprint());
    }
}
