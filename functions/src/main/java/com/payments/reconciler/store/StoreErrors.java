package com.payments.reconciler.store;

import com.payments.reconciler.workflow.StoreContention;
import software.amazon.awssdk.core.exception.SdkClientException;
import software.amazon.awssdk.awscore.exception.AwsServiceException;
import software.amazon.awssdk.services.dynamodb.model.InternalServerErrorException;
import software.amazon.awssdk.services.dynamodb.model.ProvisionedThroughputExceededException;
import software.amazon.awssdk.services.dynamodb.model.RequestLimitExceededException;
import software.amazon.awssdk.services.dynamodb.model.TransactionConflictException;

import java.util.function.Supplier;

/**
 * Maps what is left after the SDK's own retries (throttling, 5xx, I/O) to {@link StoreContention},
 * which the workflow retries. Conditional failures pass through: they are answers, not errors.
 */
public final class StoreErrors {

    private StoreErrors() {
    }

    /**
     * {@link #call}, with a {@code TransactionConflict} tried again first, up to {@code conflicts}' attempts with its
     * pauses: the conflict refused the write without applying it, and the transaction holding the item ends within
     * its own request. Only a conflict that outlives the attempts is StoreContention.
     */
    public static <T> T call(String what, Backoff conflicts, Supplier<T> call) {
        return call(what, () -> retryingConflicts(conflicts, call));
    }

    /**
     * Runs {@code call}, trying again after a {@code TransactionConflict} up to {@code conflicts}' attempts; the last
     * conflict, and every other error, is thrown as it came (for callers whose own caller classifies them).
     */
    public static <T> T retryingConflicts(Backoff conflicts, Supplier<T> call) {
        for (int attempt = 1; ; attempt++) {
            try {
                return call.get();
            } catch (TransactionConflictException e) {
                if (attempt >= conflicts.maxAttempts()) {
                    throw e;
                }
                conflicts.beforeRetry(attempt);
            }
        }
    }

    public static <T> T call(String what, Supplier<T> call) {
        try {
            return call.get();
        } catch (TransactionConflictException e) {
            // An UpdateItem/PutItem on an item an in-flight transaction holds (the lease item, checked by every fenced
            // write): the SDK does not retry it; the workflow does, as it retries every StoreContention.
            throw new StoreContention(what + ": the item is held by an in-flight transaction (TransactionConflict)", e);
        } catch (ProvisionedThroughputExceededException | RequestLimitExceededException | InternalServerErrorException e) {
            throw new StoreContention(what + ": DynamoDB still throttling or failing after retries (" + e.awsErrorDetails().errorCode() + ")", e);
        } catch (SdkClientException e) {
            if (isCredentialsFailure(e)) {
                // Not contention: retrying it as throttling would hide a role or credentials-endpoint fault.
                throw new IllegalStateException(what + ": could not obtain AWS credentials (missing, or the credentials "
                        + "endpoint failed): " + e.getMessage(), e);
            }
            throw new StoreContention(what + ": no answer from DynamoDB after retries (" + e.getMessage() + ")", e);
        } catch (AwsServiceException e) {
            if (isThrottling(e)) {
                throw new StoreContention(what + ": DynamoDB throttling after retries (" + e.awsErrorDetails().errorCode() + ")", e);
            }
            throw e;
        }
    }

    /**
     * The SDK's own words when no credentials could be obtained (SDK v2, every client). A missing region fails earlier,
     * when the handler builds its clients, so it never reaches a call.
     */
    static boolean isCredentialsFailure(SdkClientException e) {
        return e.getMessage() != null && e.getMessage().startsWith("Unable to load credentials");
    }

    public static boolean isThrottling(AwsServiceException e) {
        return e.isThrottlingException() || e.statusCode() >= 500;
    }
}
