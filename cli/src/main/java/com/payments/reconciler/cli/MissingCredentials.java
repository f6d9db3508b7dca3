package com.payments.reconciler.cli;

import software.amazon.awssdk.core.exception.SdkClientException;

/**
 * The operator's machine has no AWS credentials (or no region) the SDK's default chain can find. The SDK's own
 * message lists every provider of the chain with its failure (well over a thousand characters); what a person
 * needs is where the chain looks and what to set.
 */
final class MissingCredentials {

    /** The start of the SDK's message when no provider of the default chain had credentials. */
    static final String SDK_NO_CREDENTIALS = "Unable to load credentials from";
    /** The start of the SDK's message when no region could be found for a client. */
    static final String SDK_NO_REGION = "Unable to load region from";

    static final String MESSAGE = "no AWS credentials found: the default chain looks in AWS_ACCESS_KEY_ID/AWS_SECRET_ACCESS_KEY, "
            + "a web identity token (AWS_WEB_IDENTITY_TOKEN_FILE), the profile AWS_PROFILE names (else 'default') in ~/.aws/credentials "
            + "and ~/.aws/config (SSO: aws sso login --profile NAME), then a container or EC2 instance role — set AWS_PROFILE or "
            + "sign in, then run the command again";
    static final String NO_REGION = "no AWS region: give --region (or set AWS_REGION, or a region in the profile AWS_PROFILE names)";

    private MissingCredentials() {
    }

    static boolean is(Throwable e) {
        return e instanceof SdkClientException && e.getMessage() != null && e.getMessage().startsWith(SDK_NO_CREDENTIALS);
    }

    static boolean isRegion(Throwable e) {
        return e instanceof SdkClientException && e.getMessage() != null && e.getMessage().startsWith(SDK_NO_REGION);
    }
}
