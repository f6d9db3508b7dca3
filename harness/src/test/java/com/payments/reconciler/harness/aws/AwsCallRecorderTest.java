package com.payments.reconciler.harness.aws;

import com.payments.reconciler.local.LocalClients;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.core.interceptor.Context;
import software.amazon.awssdk.core.interceptor.ExecutionAttributes;
import software.amazon.awssdk.core.interceptor.ExecutionInterceptor;
import software.amazon.awssdk.http.SdkHttpRequest;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.ConditionalCheckFailedException;
import software.amazon.awssdk.services.dynamodb.model.DynamoDbException;

/**
 * The recorder against a scripted upstream that keeps the exact bytes it receives: requests arrive byte for
 * byte as the client sent them (Host and the signature included, chunked framing too), answers reach the
 * client unchanged, and each call is recorded with its key, operation, resources and outcome; in enforce
 * mode a denied call is answered AccessDeniedException and never forwarded.
 */
class AwsCallRecorderTest {

    private static final String TABLE_ARN = "arn:aws:dynamodb:eu-west-1:123456789012:table/Leases";
    private final ScriptedUpstream upstream = new ScriptedUpstream();
    private AwsCallRecorder recorder;

    @AfterEach
    void close() throws IOException {
        if (recorder != null) {
            recorder.close();
        }
        upstream.close();
    }

    @Test
    void forwardsTheSignedRequestUnchangedAndRecordsTheCall() throws Exception {
        recorder = AwsCallRecorder.start(upstream.uri(), ArnScope.of("123456789012", Map.of()), List.of());
        upstream.answer(200, "{}");
        SignedRequestCapture sent = new SignedRequestCapture();
        try (DynamoDbClient dynamo = client(recorder.endpoint(), "AKIDACQUIRE", sent)) {
            dynamo.putItem(b -> b.tableName("Leases").item(Map.of("pk", AttributeValue.fromS("lease"))));
        }
        String received = upstream.received().poll(10, TimeUnit.SECONDS);
        assertThat(received).isNotNull();
        SdkHttpRequest signed = sent.request;
        assertThat(received).startsWith("POST / HTTP/1.1\r\n");
        for (Map.Entry<String, List<String>> header : signed.headers().entrySet()) {
            assertThat(received).as(header.getKey()).containsIgnoringCase(header.getKey() + ": " + header.getValue().getFirst());
        }
        assertThat(received).contains("Host: 127.0.0.1:" + recorder.endpoint().getPort());
        assertThat(received).endsWith("{\"TableName\":\"Leases\",\"Item\":{\"pk\":{\"S\":\"lease\"}}}");

        RecordedCall call = recorder.calls().getFirst();
        assertThat(call.accessKeyId()).contains("AKIDACQUIRE");
        assertThat(call.operation()).contains("dynamodb:PutItem");
        // Its key attribute is not the Leases schema's partition key (leaseName), so the key value is undetermined.
        assertThat(call.authorizes()).containsExactly(new AuthorizedAction("dynamodb:PutItem", TABLE_ARN, LeadingKeys.UNDETERMINED));
        assertThat(call.status()).isEqualTo(200);
        assertThat(call.unmapped()).isEmpty();
    }

    @Test
    void relaysErrorAnswersUnchangedAndRecordsTheirType() {
        recorder = AwsCallRecorder.start(upstream.uri(), ArnScope.of("123456789012", Map.of()), List.of());
        upstream.answer(400, "{\"__type\":\"com.amazonaws.dynamodb.v20120810#ConditionalCheckFailedException\",\"message\":\"The conditional request failed\"}");
        try (DynamoDbClient dynamo = client(recorder.endpoint(), "AKIDRELEASE", new SignedRequestCapture())) {
            assertThatThrownBy(() -> dynamo.updateItem(b -> b.tableName("Leases").key(Map.of("pk", AttributeValue.fromS("lease")))
                    .updateExpression("SET o = :o").expressionAttributeValues(Map.of(":o", AttributeValue.fromS("me")))))
                    .isInstanceOf(ConditionalCheckFailedException.class);
        }
        RecordedCall call = recorder.calls().getFirst();
        assertThat(call.status()).isEqualTo(400);
        assertThat(call.errorType()).contains("ConditionalCheckFailedException");
        assertThat(call.authorizes()).containsExactly(new AuthorizedAction("dynamodb:UpdateItem", TABLE_ARN, LeadingKeys.UNDETERMINED));
    }

    @Test
    void aChunkedRequestArrivesWithItsFramingAndIsReadForItsResources() throws Exception {
        recorder = AwsCallRecorder.start(upstream.uri(), ArnScope.of("123456789012", Map.of()), List.of("AcquireLease"));
        upstream.answer(200, "{}");
        String body = "{\"TableName\":\"Leases\",\"Key\":{}}";
        String request = "POST / HTTP/1.1\r\nHost: dynamodb.eu-west-1.amazonaws.com\r\nX-Amz-Target: DynamoDB_20120810.GetItem\r\n"
                + "Authorization: AWS4-HMAC-SHA256 Credential=AKIDRAW/20261201/eu-west-1/dynamodb/aws4_request, SignedHeaders=host, Signature=00\r\n"
                + "Transfer-Encoding: chunked\r\nConnection: close\r\n\r\n"
                + Integer.toHexString(10) + "\r\n" + body.substring(0, 10) + "\r\n"
                + Integer.toHexString(body.length() - 10) + "\r\n" + body.substring(10) + "\r\n0\r\n\r\n";
        URI door = recorder.frontDoor("AcquireLease");
        try (Socket socket = new Socket(door.getHost(), door.getPort())) {
            socket.getOutputStream().write(request.getBytes(StandardCharsets.ISO_8859_1));
            socket.getOutputStream().flush();
            String answer = new String(socket.getInputStream().readAllBytes(), StandardCharsets.ISO_8859_1);
            assertThat(answer).startsWith("HTTP/1.1 200 OK\r\n").endsWith("\r\n\r\n{}");
        }
        assertThat(upstream.received().poll(10, TimeUnit.SECONDS)).isEqualTo(request);
        RecordedCall call = recorder.calls().getFirst();
        assertThat(call.frontDoor()).isEqualTo("AcquireLease");
        assertThat(call.caller()).isEqualTo(new RecordedCall.Caller("AcquireLease", Optional.of("AKIDRAW")));
        assertThat(call.authorizes()).containsExactly(new AuthorizedAction("dynamodb:GetItem", TABLE_ARN, LeadingKeys.UNDETERMINED));
    }

    @Test
    void enforceModeAnswersAccessDeniedAndForwardsNothing() throws Exception {
        recorder = AwsCallRecorder.start(upstream.uri(), ArnScope.of("123456789012", Map.of()), List.of(), AwsCallRecorder.Mode.ENFORCE,
                (caller, actions, unmapped) -> caller.accessKeyId().equals(Optional.of("AKIDALLOWED")) ? Optional.empty()
                        : Optional.of("User: " + caller.accessKeyId().orElse("?") + " is not authorized to perform: " + actions.getFirst()));
        upstream.answer(200, "{}");
        try (DynamoDbClient denied = client(recorder.endpoint(), "AKIDOTHER", new SignedRequestCapture());
             DynamoDbClient allowed = client(recorder.endpoint(), "AKIDALLOWED", new SignedRequestCapture())) {
            assertThatThrownBy(() -> denied.putItem(b -> b.tableName("Leases").item(Map.of("pk", AttributeValue.fromS("x")))))
                    .isInstanceOfSatisfying(DynamoDbException.class, e -> {
                        assertThat(e.awsErrorDetails().errorCode()).isEqualTo("AccessDeniedException");
                        assertThat(e.getMessage()).contains("is not authorized to perform: dynamodb:PutItem on " + TABLE_ARN);
                    });
            allowed.putItem(b -> b.tableName("Leases").item(Map.of("pk", AttributeValue.fromS("x"))));
        }
        String forwarded = upstream.received().poll(10, TimeUnit.SECONDS);
        assertThat(forwarded).contains("Credential=AKIDALLOWED/");
        assertThat(upstream.received()).isEmpty();
        assertThat(recorder.calls()).extracting(RecordedCall::deniedByRecorder, RecordedCall::status)
                .containsExactly(org.assertj.core.groups.Tuple.tuple(true, 400), org.assertj.core.groups.Tuple.tuple(false, 200));
    }

    private static DynamoDbClient client(URI endpoint, String accessKeyId, ExecutionInterceptor interceptor) {
        // Each caller signs as its own key, which the recorder's policy decides on.
        return LocalClients.dynamo(endpoint)
                .overrideConfiguration(o -> o.addExecutionInterceptor(interceptor).retryStrategy(r -> r.maxAttempts(1)))
                .credentialsProvider(StaticCredentialsProvider.create(AwsBasicCredentials.create(accessKeyId, "secret"))).build();
    }

    /** The request as signed, just before it goes on the wire. */
    static final class SignedRequestCapture implements ExecutionInterceptor {
        volatile SdkHttpRequest request;

        @Override
        public void beforeTransmission(Context.BeforeTransmission context, ExecutionAttributes attributes) {
            request = context.httpRequest();
        }
    }

    /** An upstream that keeps each request's exact bytes and answers from a script, closing after each answer (as moto does). */
    static final class ScriptedUpstream implements AutoCloseable {
        private final ServerSocket server;
        private final BlockingQueue<String> received = new LinkedBlockingQueue<>();
        private final BlockingQueue<String> answers = new LinkedBlockingQueue<>();

        ScriptedUpstream() {
            try {
                server = new ServerSocket(0, 8, InetAddress.getLoopbackAddress());
            } catch (IOException e) {
                throw new java.io.UncheckedIOException(e);
            }
            Thread.ofVirtual().start(this::serve);
        }

        URI uri() {
            return URI.create("http://127.0.0.1:" + server.getLocalPort());
        }

        void answer(int status, String body) {
            answers.add("HTTP/1.1 " + status + (status == 200 ? " OK" : " Bad Request") + "\r\nContent-Type: application/x-amz-json-1.0\r\n"
                    + "Content-Length: " + body.getBytes(StandardCharsets.UTF_8).length + "\r\nConnection: close\r\n\r\n" + body);
        }

        BlockingQueue<String> received() {
            return received;
        }

        private void serve() {
            while (!server.isClosed()) {
                try (Socket socket = server.accept()) {
                    InputStream in = socket.getInputStream();
                    ByteArrayOutputStream wire = new ByteArrayOutputStream();
                    AwsCallRecorder.Head head = AwsCallRecorder.Head.read(in);
                    if (head == null) {
                        continue;
                    }
                    wire.write(head.bytes());
                    AwsCallRecorder.Body.copy(head, in, new AwsCallRecorder.Tee(wire, new AwsCallRecorder.Capture(1 << 20)));
                    received.add(wire.toString(StandardCharsets.ISO_8859_1));
                    OutputStream out = socket.getOutputStream();
                    out.write(answers.take().getBytes(StandardCharsets.UTF_8));
                    out.flush();
                } catch (IOException | InterruptedException e) {
                    return;
                }
            }
        }

        @Override
        public void close() throws IOException {
            server.close();
        }
    }
}
