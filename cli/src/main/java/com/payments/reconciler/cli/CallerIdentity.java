package com.payments.reconciler.cli;

import java.net.URI;
import software.amazon.awssdk.profiles.ProfileFileSystemSetting;

/**
 * Who an operator's change is recorded as: the AWS profile the SDK's default chain resolves (the {@code aws.profile}
 * property, else {@code AWS_PROFILE}, else {@code default}), and the local user. The operator jar has no STS client, so
 * the caller's ARN is not asked for; CloudTrail records the same change under the credentials' ARN. Against a local
 * engine ({@code --endpoint-url}) the credentials are the fixed local ones, and it says so.
 */
final class CallerIdentity {

    private CallerIdentity() {
    }

    static String describe(URI endpointUrl) {
        String user = System.getProperty("user.name", "unknown");
        if (endpointUrl != null) {
            return "local endpoint (user " + user + ")";
        }
        String profile = ProfileFileSystemSetting.AWS_PROFILE.getStringValue().orElse("default");
        return "AWS profile " + profile + " (user " + user + ")";
    }
}
