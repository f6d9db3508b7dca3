package com.payments.reconciler.cdk;

import java.util.List;
import java.util.Map;
import software.amazon.awscdk.Duration;
import software.amazon.awscdk.RemovalPolicy;
import software.amazon.awscdk.Stack;
import software.amazon.awscdk.services.iam.PolicyStatement;
import software.amazon.awscdk.services.iam.ServicePrincipal;
import software.amazon.awscdk.services.kms.Key;
import software.constructs.Construct;

/**
 * Two customer-managed keys with yearly rotation: {@link #data()} for the tables and the provider secret
 * (business records and a credential), {@link #telemetry()} for log groups, the scheduler's and StartWindow's
 * failure queues and the alarm topic (services that need a key-policy grant of their own, kept off the data key).
 * Both are retained: deleting a key makes everything encrypted under it unreadable.
 */
public final class EncryptionKeys extends Construct {

    /** What CloudWatch Logs does with a log group's key (its documented key-policy statement, without wildcards). */
    static final List<String> LOGS_KEY_ACTIONS = List.of("kms:Encrypt", "kms:Decrypt", "kms:ReEncryptFrom", "kms:ReEncryptTo",
            "kms:GenerateDataKey", "kms:GenerateDataKeyWithoutPlaintext", "kms:DescribeKey");
    /** What CloudWatch alarms need to publish to an encrypted SNS topic: the statement the SNS and CloudWatch documentation give. */
    static final List<String> ALARM_PUBLISH_KEY_ACTIONS = List.of("kms:Decrypt", "kms:GenerateDataKey*");
    public static final String ALARM_PUBLISH_KEY_SID = "CloudWatchAlarmsPublishToTheEncryptedTopic";

    private final Key data;
    private final Key telemetry;

    public EncryptionKeys(Construct scope, String id, StackConfig config) {
        super(scope, id);
        Stack stack = Stack.of(this);
        this.data = key("DataKey", "DynamoDB tables and the provider API key secret", config.physicalName("data"));
        this.telemetry = key("TelemetryKey", "log groups, the scheduler dead-letter queue, the alarm topic", config.physicalName("telemetry"));
        // Scoped to this account's log groups through the encryption context CloudWatch Logs always sends.
        telemetry.addToResourcePolicy(PolicyStatement.Builder.create()
                .sid("CloudWatchLogsUseOfTheKey")
                .principals(List.of(new ServicePrincipal("logs." + stack.getRegion() + ".amazonaws.com")))
                .actions(LOGS_KEY_ACTIONS)
                .resources(List.of("*"))
                .conditions(Map.of("ArnLike", Map.of("kms:EncryptionContext:aws:logs:arn",
                        "arn:" + stack.getPartition() + ":logs:" + stack.getRegion() + ":" + stack.getAccount() + ":log-group:*")))
                .build());
        // As the SNS guide's statement for AWS services publishing to encrypted topics: no condition. No AWS page says the
        // KMS request behind an alarm's publish carries aws:SourceAccount, and a condition it lacks would drop every
        // notification silently; which alarms may publish to the topic is the topic policy's job (AlarmTopic), and the
        // key is usable only through SNS for that (kms:Decrypt/GenerateDataKey* on a topic this stack owns).
        telemetry.addToResourcePolicy(PolicyStatement.Builder.create()
                .sid(ALARM_PUBLISH_KEY_SID)
                .principals(List.of(new ServicePrincipal("cloudwatch.amazonaws.com")))
                .actions(ALARM_PUBLISH_KEY_ACTIONS)
                .resources(List.of("*"))
                .build());
    }

    private Key key(String id, String protects, String alias) {
        return Key.Builder.create(this, id)
                .description("Hold-release reconciler: " + protects)
                .alias("alias/" + alias)
                .enableKeyRotation(true)
                .rotationPeriod(Duration.days(365))
                .removalPolicy(RemovalPolicy.RETAIN_ON_UPDATE_OR_DELETE)
                .build();
    }

    public Key data() {
        return data;
    }

    public Key telemetry() {
        return telemetry;
    }
}
