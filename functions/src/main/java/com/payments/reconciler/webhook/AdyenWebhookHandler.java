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
import java.util.Optional;
import java.util.function.Supplier;

/**
 * The Adyen webhook receiver behind a Lambda function URL (auth type NONE: Adyen cannot sign AWS requests; the HMAC over
 * each item is the authentication, checked before anything is done). A function URL event (payload format 2.0) in, an
 * HTTP response out: {@link AdyenWebhookReceiver} decides. Only POST is taken.
 */
public final class AdyenWebhookHandler implements RequestStreamHandler {

    public static final String LOGICAL_NAME = com.payments.reconciler.workflow.FixedNames.ADYEN_WEBHOOK;
    private static final ObjectMapper JSON = new ObjectMapper();

    private final Supplier<WebhookSecret> secret;
    private final AdyenWebhookReceiver receiver;

    public AdyenWebhookHandler() {
        this(HandlerEnvironment.fromSystem());
    }

    public AdyenWebhookHandler(HandlerEnvironment env) {
        this(WebhookKey.fromSecretsManager(env.aws().secrets(), env.required(EnvVars.WEBHOOK_HMAC_SECRET_ID), env.clock()), env);
    }

    private AdyenWebhookHandler(WebhookKey key, HandlerEnvironment env) {
        this(key, new AdyenWebhookReceiver(() -> key.get().verifier(), sqsQueue(env), EmfMetrics.toStdout(env.clock(), LOGICAL_NAME),
                env.required(EnvVars.PROVIDER_MERCHANT_ACCOUNT)));
    }

    /** @param secret the webhook secret (basic-auth credentials and HMAC keys), read with a short cache */
    public AdyenWebhookHandler(Supplier<WebhookSecret> secret, AdyenWebhookReceiver receiver) {
        this.secret = secret;
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
        ObjectNode headers = out.putObject("headers").put("content-type", "text/plain");
        if (response.status() == 401) {
            headers.put("www-authenticate", "Basic realm=\"adyen-webhook\"");
        }
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
        // Basic auth first (docs.adyen.com, webhook best practices): a request without this deployment's credentials is
        // refused before its body is read. The function URL's payload 2.0 gives header names in lower case.
        JsonNode authorization = event.path("headers").path("authorization");
        if (!secret.get().basicAuth().admits(authorization.isTextual() ? Optional.of(authorization.textValue()) : Optional.empty())) {
            return receiver.unauthenticated();
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
