package com.payments.reconciler.ingest;

import java.util.Map;
import software.amazon.awssdk.services.sqs.SqsClient;
import software.amazon.awssdk.services.sqs.model.MessageAttributeValue;

/**
 * {@link RefusedEvents} on the refused-events queue ({@code EnvVars.INGEST_REFUSED_QUEUE_URL}): one SendMessage, with the refusal's class and the source
 * message id as message attributes (never the field's problem text, which names the field only, but stays in the log).
 * The role may send to this queue only (not to the dead-letter queue), and use the data key through SQS for it.
 */
public final class SqsRefusedEvents implements RefusedEvents {

    public static final String REFUSAL_ATTRIBUTE = "refusal";
    public static final String SOURCE_MESSAGE_ID_ATTRIBUTE = "sourceMessageId";

    private final SqsClient sqs;
    private final String queueUrl;

    public SqsRefusedEvents(SqsClient sqs, String queueUrl) {
        this.sqs = sqs;
        this.queueUrl = queueUrl;
    }

    @Override
    public void send(String messageId, String body, Refusal refusal) {
        sqs.sendMessage(b -> b.queueUrl(queueUrl).messageBody(body).messageAttributes(Map.of(
                REFUSAL_ATTRIBUTE, text(refusal.reason().name()),
                SOURCE_MESSAGE_ID_ATTRIBUTE, text(messageId))));
    }

    private static MessageAttributeValue text(String value) {
        return MessageAttributeValue.builder().dataType("String").stringValue(value).build();
    }
}
