package com.payments.reconciler.local.faults;

import software.amazon.awssdk.awscore.retry.AwsRetryStrategy;
import software.amazon.awssdk.retries.api.BackoffStrategy;
import software.amazon.awssdk.retries.api.RetryStrategy;

/**
 * The SDK's standard retry policy for AWS services — the same retryable errors, attempt limit and retry
 * quota as a production client — without its backoff pauses, so a test that injects hundreds of throttles
 * and resets runs without waiting (tests never sleep). Which errors are retried, and how often, is the
 * SDK's own decision, unchanged.
 */
public final class ImmediateRetries {

    private ImmediateRetries() {
    }

    public static RetryStrategy standard() {
        return AwsRetryStrategy.standardRetryStrategy().toBuilder()
                .backoffStrategy(BackoffStrategy.retryImmediately())
                .throttlingBackoffStrategy(BackoffStrategy.retryImmediately())
                .build();
    }
}
