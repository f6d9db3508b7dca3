package com.payments.reconciler.cli;

import java.net.URI;
import java.util.function.Supplier;
import software.amazon.awssdk.core.exception.SdkException;
import software.amazon.awssdk.profiles.ProfileFileSystemSetting;
import software.amazon.awssdk.services.sts.StsClient;

/**
 * Who an operator's change to a command is recorded as: the ARN STS says the credentials belong to
 * ({@code GetCallerIdentity}, which needs no IAM permission), and the local user. CloudTrail does not log DynamoDB item
 * changes unless data events are turned on for the table, so the record on the command is the one that stays. When STS
 * cannot answer, the profile the SDK's chain resolved is recorded instead and the record says the ARN is unknown.
 */
final class CallerIdentity {

    private CallerIdentity() {
    }

    static String describe(String region, URI endpointUrl) {
        return describe(() -> {
            try (StsClient sts = OperatorClients.build(StsClient.builder(), region, endpointUrl)) {
                return sts.getCallerIdentity().arn();
            }
        });
    }

    static String describe(Supplier<String> callerArn) {
        String user = System.getProperty("user.name", "unknown");
        try {
            return callerArn.get() + " (local user " + user + ")";
        } catch (SdkException e) {
            String profile = ProfileFileSystemSetting.AWS_PROFILE.getStringValue().orElse("default");
            return "AWS profile " + profile + ", caller ARN unknown: STS did not answer (local user " + user + ")";
        }
    }
}
