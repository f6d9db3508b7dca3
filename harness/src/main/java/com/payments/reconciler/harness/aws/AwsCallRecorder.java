package com.payments.reconciler.harness.aws;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.BufferedInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A loopback front door to the local AWS engines (moto) that forwards every request unchanged — request
 * line, every header as received (Host included: the SigV4 signature covers it, even if moto does not check
 * signatures), the body streamed through — and records who called what: the SigV4 access key id, the
 * operation from {@code X-Amz-Target}, the resources it is authorised against ({@link ServiceAuthorization}),
 * and the answer's status and error type.
 *
 * <p>One or more labelled listeners ("front doors") share one recorder, so a caller can be attributed by
 * the door it uses (one per function in-process) or by its access key id (one per function in the process
 * service). In {@link Mode#ENFORCE} an {@link Authorizer} sees each call first and a denied call is
 * answered {@code AccessDeniedException} as AWS would, and never reaches moto.
 *
 * <p>HTTP/1.1 with Content-Length or chunked bodies, as the AWS SDK sends them; moto (werkzeug, unthreaded)
 * answers HTTP/1.0 and closes, which is relayed as is.
 */
public final class AwsCallRecorder implements AutoCloseable {

    public enum Mode { RECORD, ENFORCE }

    /** Decides, in ENFORCE mode, whether a call may proceed: empty to forward it, or the denial message. */
    @FunctionalInterface
    public interface Authorizer {
        Optional<String> denial(RecordedCall.Caller caller, List<AuthorizedAction> authorizes, Optional<String> unmapped);
    }

    private static final ObjectMapper JSON = new ObjectMapper();
    /** Bodies larger than this are forwarded but not parsed (DynamoDB's largest request, a 4 MB transaction, fits). */
    private static final int MAX_CAPTURE = 8 << 20;

    private final URI upstream;
    private final ServiceAuthorization authorization;
    private final Mode mode;
    private final Authorizer authorizer;
    private final Map<String, ServerSocket> doors = new LinkedHashMap<>();
    private final ConcurrentLinkedQueue<RecordedCall> calls = new ConcurrentLinkedQueue<>();
    private final AtomicLong seq = new AtomicLong();
    private volatile boolean closed;

    private AwsCallRecorder(URI upstream, ArnScope scope, Mode mode, Authorizer authorizer) {
        this.upstream = upstream;
        this.authorization = new ServiceAuthorization(scope);
        this.mode = mode;
        this.authorizer = authorizer;
    }

    /** Records only. {@code frontDoors}: labels of extra listeners besides the default one (""). */
    public static AwsCallRecorder start(URI upstream, ArnScope scope, List<String> frontDoors) {
        return start(upstream, scope, frontDoors, Mode.RECORD, (caller, actions, unmapped) -> Optional.empty());
    }

    public static AwsCallRecorder start(URI upstream, ArnScope scope, List<String> frontDoors, Mode mode, Authorizer authorizer) {
        AwsCallRecorder recorder = new AwsCallRecorder(upstream, scope, mode, authorizer);
        try {
            recorder.listen("");
            for (String door : frontDoors) {
                recorder.listen(door);
            }
        } catch (IOException e) {
            recorder.close();
            throw new UncheckedIOException("could not open the recorder's listeners", e);
        }
        return recorder;
    }

    private void listen(String label) throws IOException {
        if (doors.containsKey(label)) {
            throw new IllegalArgumentException("front door " + label + " twice");
        }
        ServerSocket socket = new ServerSocket(0, 64, InetAddress.getLoopbackAddress());
        doors.put(label, socket);
        Thread.ofVirtual().name("aws-recorder-accept-" + label).start(() -> accept(label, socket));
    }

    /** The default front door. */
    public URI endpoint() {
        return frontDoor("");
    }

    public URI frontDoor(String label) {
        ServerSocket socket = doors.get(label);
        if (socket == null) {
            throw new IllegalArgumentException("no front door " + label + " (have " + doors.keySet() + ")");
        }
        return URI.create("http://127.0.0.1:" + socket.getLocalPort());
    }

    /** Every call so far, in arrival order. */
    public List<RecordedCall> calls() {
        return calls.stream().sorted(java.util.Comparator.comparingLong(RecordedCall::seq)).toList();
    }

    public void clear() {
        calls.clear();
    }

    private void accept(String label, ServerSocket server) {
        while (!closed) {
            try {
                Socket client = server.accept();
                Thread.ofVirtual().name("aws-recorder-" + label).start(() -> serve(label, client));
            } catch (IOException e) {
                if (!closed) {
                    System.err.println("aws recorder: accept failed on " + label + ": " + e);
                }
                return;
            }
        }
    }

    private void serve(String label, Socket client) {
        Socket up = null;
        try (client) {
            InputStream in = new BufferedInputStream(client.getInputStream());
            OutputStream out = client.getOutputStream();
            while (true) {
                Head request = Head.read(in);
                if (request == null) {
                    return;
                }
                if (up == null || up.isClosed()) {
                    up = new Socket(upstream.getHost(), upstream.getPort());
                }
                boolean keepAlive = exchange(label, request, in, out, up);
                if (!keepAlive) {
                    return;
                }
            }
        } catch (IOException e) {
            // A caller that hangs up mid-answer (a sandbox torn down, an SDK timeout) is its own affair, not the recorder's.
            if (!closed && !(e instanceof java.net.SocketException)) {
                System.err.println("aws recorder: connection on " + label + " failed: " + e);
            }
        } finally {
            if (up != null) {
                try {
                    up.close();
                } catch (IOException ignored) {
                    // already gone
                }
            }
        }
    }

    /** One request and its answer; true when both sides keep the connection. */
    private boolean exchange(String label, Head request, InputStream in, OutputStream out, Socket up) throws IOException {
        Optional<AwsWire.Credential> credential = AwsWire.credential(request.header("authorization"));
        Optional<String> operation = AwsWire.operation(request.header("x-amz-target"), credential);
        RecordedCall.Caller caller = new RecordedCall.Caller(label, credential.map(AwsWire.Credential::accessKeyId));
        OutputStream upOut = up.getOutputStream();
        Capture body = new Capture(MAX_CAPTURE);
        if (mode == Mode.ENFORCE) {
            // The decision needs the whole body before anything reaches moto.
            Body.copy(request, in, body);
        } else {
            upOut.write(request.bytes());
            Body.copy(request, in, new Tee(upOut, body));
            upOut.flush();
        }
        List<AuthorizedAction> authorizes = List.of();
        Optional<String> unmapped = Optional.empty();
        try {
            if (operation.isEmpty()) {
                throw new ServiceAuthorization.Unmapped("no X-Amz-Target: " + request.line());
            }
            if (body.overflowed()) {
                throw new ServiceAuthorization.Unmapped(operation.get() + ": the body is over " + MAX_CAPTURE + " bytes");
            }
            JsonNode json = body.size() == 0 ? JSON.createObjectNode() : JSON.readTree(body.bytes());
            authorizes = authorization.authorize(operation.get(), credential.map(AwsWire.Credential::region).orElse(""), json);
        } catch (ServiceAuthorization.Unmapped | IOException e) {
            unmapped = Optional.of(e.getMessage());
        }
        long n = seq.incrementAndGet();
        if (mode == Mode.ENFORCE) {
            Optional<String> denial;
            try {
                denial = authorizer.denial(caller, authorizes, unmapped);
            } catch (RuntimeException e) {
                // Fail closed, and answer: a gate that cannot decide (an unresolvable template) must not look like a network fault.
                denial = Optional.of("The local authorizer could not decide: " + e.getMessage());
            }
            if (denial.isPresent()) {
                byte[] answer = JSON.createObjectNode().put("__type", "com.amazon.coral.service#AccessDeniedException")
                        .put("message", denial.get()).toString().getBytes(StandardCharsets.UTF_8);
                out.write(("HTTP/1.1 400 Bad Request\r\nContent-Type: application/x-amz-json-1.0\r\nx-amzn-ErrorType: AccessDeniedException\r\n"
                        + "Content-Length: " + answer.length + "\r\n\r\n").getBytes(StandardCharsets.ISO_8859_1));
                out.write(answer);
                out.flush();
                calls.add(new RecordedCall(n, label, caller.accessKeyId(), operation, authorizes, unmapped, 400,
                        Optional.of("AccessDeniedException"), true));
                return !request.closes();
            }
            upOut.write(request.bytes());
            Body.replay(request, body, upOut);
            upOut.flush();
        }
        InputStream upIn = new BufferedInputStream(up.getInputStream());
        Head response;
        do {
            response = Head.read(upIn);
            if (response == null) {
                throw new IOException("moto closed the connection without answering " + operation.orElse(request.line()));
            }
            out.write(response.bytes());
        } while (response.status() / 100 == 1 && response.status() != 101);
        Capture answer = new Capture(64 << 10);
        boolean delimited = Body.copyResponse(response, upIn, new Tee(out, answer));
        out.flush();
        Optional<String> errorType = response.status() >= 400
                ? AwsWire.errorType(new String(answer.bytes(), StandardCharsets.UTF_8)) : Optional.empty();
        calls.add(new RecordedCall(n, label, caller.accessKeyId(), operation, authorizes, unmapped, response.status(), errorType, false));
        if (!delimited || response.closes() || request.closes()) {
            up.close();
            return delimited && !request.closes() && !response.http10();
        }
        return !response.http10();
    }

    @Override
    public void close() {
        closed = true;
        for (ServerSocket socket : doors.values()) {
            try {
                socket.close();
            } catch (IOException ignored) {
                // closing
            }
        }
    }

    /** A request or response head: its first line and headers, kept byte for byte. */
    record Head(String line, List<String> headerLines) {

        static Head read(InputStream in) throws IOException {
            String line = readLine(in);
            if (line == null) {
                return null;
            }
            List<String> headers = new ArrayList<>();
            for (String h; (h = readLine(in)) != null && !h.isEmpty(); ) {
                headers.add(h);
            }
            return new Head(line, headers);
        }

        private static String readLine(InputStream in) throws IOException {
            ByteArrayOutputStream line = new ByteArrayOutputStream();
            int c;
            while ((c = in.read()) != -1) {
                if (c == '\n') {
                    byte[] b = line.toByteArray();
                    int end = b.length > 0 && b[b.length - 1] == '\r' ? b.length - 1 : b.length;
                    return new String(b, 0, end, StandardCharsets.ISO_8859_1);
                }
                line.write(c);
            }
            return line.size() == 0 ? null : line.toString(StandardCharsets.ISO_8859_1);
        }

        byte[] bytes() {
            StringBuilder s = new StringBuilder(line).append("\r\n");
            headerLines.forEach(h -> s.append(h).append("\r\n"));
            return s.append("\r\n").toString().getBytes(StandardCharsets.ISO_8859_1);
        }

        String header(String name) {
            for (String h : headerLines) {
                int colon = h.indexOf(':');
                if (colon > 0 && h.substring(0, colon).trim().equalsIgnoreCase(name)) {
                    return h.substring(colon + 1).trim();
                }
            }
            return null;
        }

        int status() {
            String[] parts = line.split(" ", 3);
            return Integer.parseInt(parts[1]);
        }

        boolean http10() {
            return line.startsWith("HTTP/1.0") && !"keep-alive".equalsIgnoreCase(header("connection"));
        }

        boolean closes() {
            return "close".equalsIgnoreCase(header("connection"));
        }

        boolean chunked() {
            String te = header("transfer-encoding");
            return te != null && te.toLowerCase(Locale.ROOT).contains("chunked");
        }

        long contentLength() {
            String cl = header("content-length");
            return cl == null ? -1 : Long.parseLong(cl);
        }
    }

    /** Message bodies: Content-Length, chunked (framing relayed as is, data captured), or to the end of the stream. */
    static final class Body {
        private Body() {
        }

        static void copy(Head head, InputStream in, OutputStream out) throws IOException {
            if (head.chunked()) {
                chunks(in, out);
            } else {
                fixed(in, out, Math.max(0, head.contentLength()));
            }
        }

        /** Enforce mode: the captured body goes out again with the framing the head declares. */
        static void replay(Head head, Capture body, OutputStream out) throws IOException {
            if (head.chunked()) {
                byte[] b = body.bytes();
                if (b.length > 0) {
                    out.write((Integer.toHexString(b.length) + "\r\n").getBytes(StandardCharsets.ISO_8859_1));
                    out.write(b);
                    out.write("\r\n".getBytes(StandardCharsets.ISO_8859_1));
                }
                out.write("0\r\n\r\n".getBytes(StandardCharsets.ISO_8859_1));
            } else {
                out.write(body.bytes());
            }
        }

        /** @return true when the body had a length (the connection may carry another message) */
        static boolean copyResponse(Head head, InputStream in, OutputStream out) throws IOException {
            int status = head.status();
            if (status == 204 || status == 304) {
                return true;
            }
            if (head.chunked()) {
                chunks(in, out);
                return true;
            }
            long length = head.contentLength();
            if (length >= 0) {
                fixed(in, out, length);
                return true;
            }
            in.transferTo(out);
            return false;
        }

        private static void fixed(InputStream in, OutputStream out, long length) throws IOException {
            byte[] buffer = new byte[8192];
            long left = length;
            while (left > 0) {
                int n = in.read(buffer, 0, (int) Math.min(buffer.length, left));
                if (n < 0) {
                    throw new IOException("body ended " + left + " bytes early");
                }
                out.write(buffer, 0, n);
                left -= n;
            }
        }

        /** Chunked framing is written through unchanged when {@code out} is a Tee (the capture side gets the data only). */
        private static void chunks(InputStream in, OutputStream out) throws IOException {
            while (true) {
                String sizeLine = Head.readLine(in);
                if (sizeLine == null) {
                    throw new IOException("chunked body ended early");
                }
                framing(out, sizeLine + "\r\n");
                int semicolon = sizeLine.indexOf(';');
                int size = Integer.parseInt((semicolon < 0 ? sizeLine : sizeLine.substring(0, semicolon)).trim(), 16);
                if (size == 0) {
                    for (String trailer; (trailer = Head.readLine(in)) != null; ) {
                        framing(out, trailer + "\r\n");
                        if (trailer.isEmpty()) {
                            return;
                        }
                    }
                    return;
                }
                fixed(in, out, size);
                String end = Head.readLine(in);
                framing(out, (end == null ? "" : end) + "\r\n");
            }
        }

        private static void framing(OutputStream out, String text) throws IOException {
            byte[] b = text.getBytes(StandardCharsets.ISO_8859_1);
            if (out instanceof Tee tee) {
                tee.wire().write(b);
            }
            // a bare Capture (enforce mode) keeps only the data; replay() frames it again
        }
    }

    /** Writes to the wire and to the capture; framing bytes go to the wire only. */
    static final class Tee extends OutputStream {
        private final OutputStream wire;
        private final Capture capture;

        Tee(OutputStream wire, Capture capture) {
            this.wire = wire;
            this.capture = capture;
        }

        OutputStream wire() {
            return wire;
        }

        @Override
        public void write(int b) throws IOException {
            write(new byte[] {(byte) b}, 0, 1);
        }

        @Override
        public void write(byte[] b, int off, int len) throws IOException {
            wire.write(b, off, len);
            capture.write(b, off, len);
        }
    }

    /** The first {@code limit} bytes of a body. */
    static final class Capture extends OutputStream {
        private final ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        private final int limit;
        private boolean overflowed;

        Capture(int limit) {
            this.limit = limit;
        }

        @Override
        public void write(int b) {
            write(new byte[] {(byte) b}, 0, 1);
        }

        @Override
        public void write(byte[] b, int off, int len) {
            int room = limit - bytes.size();
            if (len > room) {
                overflowed = true;
            }
            bytes.write(b, off, Math.max(0, Math.min(room, len)));
        }

        boolean overflowed() {
            return overflowed;
        }

        int size() {
            return bytes.size();
        }

        byte[] bytes() {
            return bytes.toByteArray();
        }
    }
}
