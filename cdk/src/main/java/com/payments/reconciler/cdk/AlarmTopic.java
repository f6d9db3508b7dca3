package com.payments.reconciler.cdk;

import java.util.List;
import java.util.Map;
import software.amazon.awscdk.Stack;
import software.amazon.awscdk.services.iam.PolicyStatement;
import software.amazon.awscdk.services.iam.ServicePrincipal;
import software.amazon.awscdk.services.sns.Topic;
import software.amazon.awscdk.services.sns.subscriptions.EmailSubscription;
import software.constructs.Construct;

/**
 * The SNS topic every alarm notifies. It always exists, so every alarm has an action whatever the context
 * says; {@code alarmEmail} only adds an e-mail subscription (an operator can subscribe a pager or chat
 * integration to the same topic by hand).
 *
 * <p>Encrypted with the telemetry key, whose policy lets CloudWatch use it ({@link EncryptionKeys}): without
 * that grant an alarm's publish fails and the alarm history is the only trace. Its policy denies publishing
 * without TLS (added by {@code enforceSsl}) and allows CloudWatch to publish on behalf of this account's
 * alarms of this stack only ({@link #ALARM_PUBLISH_SID}): the service principal is scoped with
 * {@code aws:SourceAccount} and {@code aws:SourceArn}, as the SNS documentation recommends against the
 * confused-deputy problem.
 */
public final class AlarmTopic extends Construct {

    public static final String ALARM_PUBLISH_SID = "CloudWatchAlarmsOfThisStackPublish";
    static final String CLOUDWATCH_PRINCIPAL = "cloudwatch.amazonaws.com";

    private final Topic topic;

    public AlarmTopic(Construct scope, String id, StackConfig config, EncryptionKeys keys) {
        super(scope, id);
        Stack stack = Stack.of(this);
        this.topic = Topic.Builder.create(this, "Topic")
                .topicName(config.physicalName("alarms"))
                .masterKey(keys.telemetry())
                .enforceSsl(true)
                .build();
        topic.addToResourcePolicy(PolicyStatement.Builder.create()
                .sid(ALARM_PUBLISH_SID)
                .principals(List.of(new ServicePrincipal(CLOUDWATCH_PRINCIPAL)))
                .actions(List.of("sns:Publish"))
                .resources(List.of(topic.getTopicArn()))
                .conditions(Ordered.map(
                        Map.entry("StringEquals", Map.of("aws:SourceAccount", stack.getAccount())),
                        Map.entry("ArnLike", Map.of("aws:SourceArn", alarmArnPattern(stack, config)))))
                .build());
        config.alarmEmail().ifPresent(email -> topic.addSubscription(new EmailSubscription(email)));
    }

    /** Every alarm of this stack: {@link Monitoring} names them all {@code {namePrefix}{Id}}. */
    static String alarmArnPattern(Stack stack, StackConfig config) {
        return "arn:" + stack.getPartition() + ":cloudwatch:" + stack.getRegion() + ":" + stack.getAccount()
                + ":alarm:" + config.physicalName("*");
    }

    public Topic topic() {
        return topic;
    }
}
