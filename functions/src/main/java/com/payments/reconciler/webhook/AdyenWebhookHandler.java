package com.payments.reconciler.webhook;

import com.amazonaws.services.lambda.runtime.Context;
import com.amazonaws.services.lambda.runtime.RequestStreamHandler;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.payments.reconciler.workflow.EmfMetrics;
import com.payments.reconciler.workflow.EnvVars;
import com.payments.reconciler.workflow.HandlerEnvironment;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.util.Base64;

/**
 * The Adyen webhook receiver behind a Lambda function URL (auth type NONE: Adyen cannot sign AWS requests; the HMAC over
 * each item is the authentication, checked before anything is done). A function URL event (payload format 2.0) in, an
 * HTTP response out: {@link AdyenWebhookReceiver} decides. Only POST is taken.
 */
public final class AdyenWebhookHandler implements RequestStreamHandler {

    public static final String LOGICAL_NAME = "AdyenWebhook";
    private static final ObjectMapper JSON = new ObjectMapper();

    private final AdyenWebhookReceiver receiver;

    public AdyenWebhookHandler() {
        this(HandlerEnvironment.fromSystem());
    }

    public AdyenWebhookHandler(HandlerEnvironment env) {
        this(new AdyenWebhookReceiver(
                WebhookKey.fromSecretsManager(env.aws().secrets(), env.required(EnvVars.WEBHOOK_HMAC_SECRET_ID), env.clock()),
                sqsQueue(env), EmfMetrics.toStdout(env.clock(), LOGICAL_NAME)));
    }

    public AdyenWebhookHandler(AdyenWebhookReceiver receiver) {
        this.receiver = receiver;
    }

    private static AdyenWebhookReceiver.OutcomeQueue sqsQueue(HandlerEnvironment env) {
        String queueUrl = env.required(EnvVars.INGEST_QUEUE_URL);
        return body -> env.aws().sqs().sendMessage(b -> b.queueUrl(queueUrl).messageBody(body));
    }

    @Override
    public void handleRequest(InputStream input, OutputStream output, Context context) throws IOException {
        AdyenWebhookReceiver.Response response = handle(new String(input.readAllBytes(), StandardCharsets.UTF_8));
        ObjectNode out = JSON.createObjectNode().put("statusCode", response.status());
        out.putObject("headers").put("content-type", "text/plain");
        out.put("body", response.body());
        output.write(out.toString().getBytes(StandardCharsets.UTF_8));
    }

    /** A function URL event's JSON to the response. */
    public AdyenWebhookReceiver.Response handle(String eventJson) throws IOException {
        JsonNode event = JSON.readTree(eventJson);
        String method = event == null ? "" : event.path("requestContext").path("http").path("method").asText("");
        if (!"POST".equals(method)) {
            return new AdyenWebhookReceiver.Response(405, "refused: method must be POST");
        }
        String body = event.path("body").asText("");
        if (event.path("isBase64Encoded").asBoolean(false)) {
            try {
                body = new String(Base64.getDecoder().decode(body), StandardCharsets.UTF_8);
            } catch (IllegalArgumentException e) {
                return new AdyenWebhookReceiver.Response(400, "refused: body is not valid base64");
            }
        }
        return receiver.receive(body);
    }
}
