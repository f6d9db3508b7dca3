package com.payments.reconciler.store;

import com.payments.reconciler.workflow.StoreContention;
import software.amazon.awssdk.core.exception.SdkClientException;
import software.amazon.awssdk.awscore.exception.AwsServiceException;
import software.amazon.awssdk.services.dynamodb.model.InternalServerErrorException;
import software.amazon.awssdk.services.dynamodb.model.ProvisionedThroughputExceededException;
import software.amazon.awssdk.services.dynamodb.model.RequestLimitExceededException;

import java.util.function.Supplier;

/**
 * Maps what is left after the SDK's own retries (throttling, 5xx, I/O) to {@link StoreContention},
 * which the workflow retries. Conditional failures pass through: they are answers, not errors.
 */
public final class StoreErrors {

    private StoreErrors() {
    }

    public static <T> T call(String what, Supplier<T> call) {
        try {
            return call.get();
        } catch (ProvisionedThroughputExceededException | RequestLimitExceededException | InternalServerErrorException e) {
            throw new StoreContention(what + ": DynamoDB still throttling or failing after retries (" + e.awsErrorDetails().errorCode() + ")", e);
        } catch (SdkClientException e) {
            if (isMissingConfiguration(e)) {
                // No credentials or region is a deployment fault: retrying it as contention would only hide it.
                throw new IllegalStateException(what + ": the function's AWS configuration is missing (" + e.getMessage() + ")", e);
            }
            throw new StoreContention(what + ": no answer from DynamoDB after retries (" + e.getMessage() + ")", e);
        } catch (AwsServiceException e) {
            if (isThrottling(e)) {
                throw new StoreContention(what + ": DynamoDB throttling after retries (" + e.awsErrorDetails().errorCode() + ")", e);
            }
            throw e;
        }
    }

    /** The SDK's own words when its default chains find no credentials or no region (SDK v2, all clients). */
    static boolean isMissingConfiguration(SdkClientException e) {
        String message = e.getMessage() == null ? "" : e.getMessage();
        return message.startsWith("Unable to load credentials") || message.startsWith("Unable to load region");
    }

    public static boolean isThrottling(AwsServiceException e) {
        return e.isThrottlingException() || e.statusCode() >= 500;
    }
}
