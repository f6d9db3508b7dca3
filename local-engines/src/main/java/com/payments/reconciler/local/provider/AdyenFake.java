package com.payments.reconciler.local.provider;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;

import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.function.ToIntFunction;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A local Adyen for the harness (never in the deployed jar): Checkout API v71's {@code POST /payments/{paymentPspReference}/cancels}
 * in the shapes of Adyen/adyen-openapi (request {@code {merchantAccount, reference}}, answer 201
 * {@code {merchantAccount, paymentPspReference, reference, pspReference, status: "received"}}), and the CANCELLATION
 * notification each cancel later produces, signed with a test HMAC key the way Adyen documents (HMAC-SHA256 with the
 * hex-decoded key over {@code pspReference:originalReference:merchantAccountCode:merchantReference:value:currency:eventCode:success},
 * base64). Written apart from the functions module's verifier on purpose: the two meet only on the wire.
 *
 * <p>Its effect log is the truth for I2: a payment's cancellation is performed at most once, by the first cancel that
 * reaches it; a cancel of a captured payment performs nothing and is notified {@code success=false}. The
 * {@code Idempotency-Key} is honoured: the same key is answered with the stored 201 and produces no second notification;
 * a cancel without a key is refused 422 (this fake only, so that no cancel escapes the key log).
 *
 * <p>Notifications are not sent by themselves: {@link #deliverWebhooks} sends the ones due, delayed (only those older
 * than the delay), reordered (seeded shuffle), each duplicated with the given probability, and one forged copy among
 * them (a changed {@code success} under the genuine signature), to an endpoint the harness chose (the receiver
 * handler in-process). A notification not answered 200 stays due, as Adyen retries; the forged copy is never retried.
 * The synthetic payment's pspReference is {@code PSP} and the authorisation id's hex written in letters ({@link #pspReferenceFor}).
 *
 * <p>For the chaos campaign: a fault forced on a cancel's reference ({@link #forceNext}), a burst of 429s
 * ({@link #throttleNext}), and a notification lost for good ({@link #loseNotificationOf}). It enforces no quota.
 */
public final class AdyenFake implements AutoCloseable {

    public static final String API_KEY_HEADER = "X-API-Key";
    public static final String IDEMPOTENCY_KEY = "Idempotency-Key";
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Pattern CANCELS = Pattern.compile("/payments/([^/]+)/cancels");
    private static final Pattern PSP = Pattern.compile("PSP((?:[A-P]{2}){1,30})");
    /**
     * Hex written with the letters A-P for 0-F (as StripeWire does): this fake's references carry no digits, because a run of
     * 12-19 digits that passes Luhn's check is refused by ingestion's card-data screen, and a digit-hex id or a numbered
     * reference formed such runs for about one authorisation or cancel in ten. Adyen's own 16-character pspReferences
     * are often all digits: docs/integration.md, "Adyen adapter", says what that means for the deployed path.
     */
    private static final String NIBBLES = "ABCDEFGHIJKLMNOP";
    /**
     * How long a {@link Fault#SLOW} answer waits after performing: past nothing but the fake's own promptness (the adapter's
     * request timeout is longer), so a slow answer still arrives; what it tests is a cancel in flight while others go on.
     */
    public static final java.time.Duration SLOW_DELAY = java.time.Duration.ofMillis(300);
    /** Adyen's header on an error nothing was done for: the same idempotency key may be sent again (CheckoutService-v71). */
    public static final String TRANSIENT_ERROR = "Transient-Error";

    /** One notification waiting to be sent, and when it became due (epoch ms of the fake's clock). */
    private record Pending(ObjectNode item, long at) {
    }

    /** What one {@link #deliverWebhooks} sent. */
    public record Sent(int notifications, int duplicates, int forged, int refused, int leftDue) {
    }

    private final HttpServer server;
    private final ExecutorService threads;
    private final Clock clock;
    private final byte[] hmacKey;
    private final String apiKey;
    private final String merchantAccount;
    private final Random random;
    private final Object lock = new Object();
    private final Map<String, ObjectNode> answersByKey = new HashMap<>();
    private final Map<String, PerformedRelease> performedByPayment = new HashMap<>();
    private final List<PerformedRelease> performed = new ArrayList<>();
    private final Set<String> captured = new HashSet<>();
    private final List<Pending> due = new ArrayList<>();
    private long cancels;
    private long requests;
    private long sequence;
    /** Faults forced on the next cancel of a reference (the operation id), for the chaos campaign. */
    private final Map<String, java.util.ArrayDeque<Fault>> forced = new HashMap<>();
    private final java.util.SortedMap<String, List<Fault>> faultsAnswered = new java.util.TreeMap<>();
    private int throttleRemaining;
    private java.time.Duration throttleRetryAfter = java.time.Duration.ZERO;
    private long burstAnswered;
    /** References whose CANCELLATION notification is lost for good (Adyen gave up retrying it). */
    private final Set<String> loseNotificationOf = new HashSet<>();
    private final List<String> lostNotifications = new ArrayList<>();
    private final java.time.Duration slowDelay;

    private AdyenFake(Clock clock, String hexHmacKey, String apiKey, String merchantAccount, long seed) throws IOException {
        this.clock = clock;
        this.slowDelay = SLOW_DELAY;
        this.hmacKey = HexFormat.of().parseHex(hexHmacKey);
        this.apiKey = apiKey;
        this.merchantAccount = merchantAccount;
        this.random = new Random(seed);
        this.server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        this.threads = Executors.newVirtualThreadPerTaskExecutor();
        server.setExecutor(threads);
        server.createContext("/", this::serve);
        server.start();
    }

    /** Starts on a free loopback port. */
    public static AdyenFake start(Clock clock, String hexHmacKey, String apiKey, String merchantAccount, long seed) {
        try {
            return new AdyenFake(clock, hexHmacKey, apiKey, merchantAccount, seed);
        } catch (IOException e) {
            throw new IllegalStateException("could not start the Adyen fake", e);
        }
    }

    /** The base URL the adapter is given (as Adyen's {@code https://checkout-test.adyen.com/v71}). */
    public URI baseUrl() {
        return URI.create("http://" + server.getAddress().getHostString() + ":" + server.getAddress().getPort() + "/v71");
    }

    /** The synthetic payment's pspReference for an authorisation (its providerReference on authorisation.created). */
    public static String pspReferenceFor(String authorisationId) {
        return "PSP" + letters(authorisationId.getBytes(StandardCharsets.UTF_8));
    }

    /** The authorisation a payment pspReference of this fake stands for. */
    public static Optional<String> authorisationOf(String pspReference) {
        Matcher matcher = PSP.matcher(pspReference);
        if (!matcher.matches()) {
            return Optional.empty();
        }
        String hex = matcher.group(1);
        byte[] bytes = new byte[hex.length() / 2];
        for (int i = 0; i < bytes.length; i++) {
            bytes[i] = (byte) ((NIBBLES.indexOf(hex.charAt(2 * i)) << 4) | NIBBLES.indexOf(hex.charAt(2 * i + 1)));
        }
        return Optional.of(new String(bytes, StandardCharsets.UTF_8));
    }

    private static String letters(byte[] bytes) {
        StringBuilder out = new StringBuilder(bytes.length * 2);
        for (byte b : bytes) {
            out.append(NIBBLES.charAt((b >> 4) & 0xf)).append(NIBBLES.charAt(b & 0xf));
        }
        return out.toString();
    }

    /** The payment was captured: a later cancel performs nothing and is notified {@code success=false}. */
    public void capture(String authorisationId) {
        synchronized (lock) {
            captured.add(authorisationId);
        }
    }

    /** The cancellations performed, once per payment: I2 is judged from this log. */
    public List<PerformedRelease> releases() {
        synchronized (lock) {
            return List.copyOf(performed);
        }
    }

    /** Cancel requests answered 201 (replays under a known key included). */
    public long cancels() {
        synchronized (lock) {
            return cancels;
        }
    }

    /** Every request the fake answered. */
    public long requests() {
        synchronized (lock) {
            return requests;
        }
    }

    /** Notifications produced and not yet answered 200 by the receiver. */
    public int outstanding() {
        synchronized (lock) {
            return due.size();
        }
    }

    /**
     * The next cancel whose {@code reference} is {@code reference} (the adapter sends the operation id) meets {@code fault}:
     * {@link Fault#PERFORM_THEN_DROP} performs the cancel (its answer stored under the key, its notification queued) and
     * closes the connection without an answer; {@link Fault#ERROR_5XX} answers 500 with {@code Transient-Error: true}
     * before performing anything (Adyen's "retry under the same key"); {@link Fault#SLOW} performs and answers after
     * {@link #SLOW_DELAY}; {@link Fault#MALFORMED} performs and answers 200 with an HTML page (a proxy's error page).
     */
    public void forceNext(String reference, Fault fault) {
        synchronized (lock) {
            forced.computeIfAbsent(reference, r -> new java.util.ArrayDeque<>()).add(fault);
        }
    }

    /** The forced faults requests met, by reference (a fault forced on a reference nobody sent is not here). */
    public java.util.SortedMap<String, List<Fault>> faultsAnswered() {
        synchronized (lock) {
            java.util.SortedMap<String, List<Fault>> copy = new java.util.TreeMap<>();
            faultsAnswered.forEach((k, v) -> copy.put(k, List.copyOf(v)));
            return copy;
        }
    }

    /** The next {@code requests} cancels, whatever their key, are answered 429 with {@code Retry-After}, performing nothing. */
    public void throttleNext(int requests, java.time.Duration retryAfter) {
        synchronized (lock) {
            throttleRemaining = requests;
            throttleRetryAfter = retryAfter;
        }
    }

    /** 429 answers sent by {@link #throttleNext}. */
    public long burstAnswered() {
        synchronized (lock) {
            return burstAnswered;
        }
    }

    /**
     * The CANCELLATION notification of the cancel whose {@code reference} is this one is lost for good (Adyen stops retrying
     * a notification after its retry schedule): the cancel is performed and answered, and nothing is ever sent about it.
     */
    public void loseNotificationOf(String reference) {
        synchronized (lock) {
            loseNotificationOf.add(reference);
        }
    }

    /** The references whose notification was produced and lost ({@link #loseNotificationOf}). */
    public List<String> lostNotifications() {
        synchronized (lock) {
            return List.copyOf(lostNotifications);
        }
    }

    /**
     * Sends the notifications due at least {@code delayMillis} ago, in a shuffled order, each also duplicated with
     * probability {@code duplicateRate}, and (when {@code forgeOne} and any is sent) one forged copy; {@code endpoint}
     * posts a NotificationRequest body and answers the HTTP status. Each request carries one item, as Adyen's do.
     */
    public Sent deliverWebhooks(ToIntFunction<String> endpoint, long delayMillis, double duplicateRate, boolean forgeOne) {
        List<Pending> batch;
        synchronized (lock) {
            long now = clock.millis();
            batch = new ArrayList<>(due.stream().filter(p -> p.at() <= now - delayMillis).toList());
            Collections.shuffle(batch, random);
        }
        int sent = 0;
        int duplicates = 0;
        int refused = 0;
        int forged = 0;
        for (Pending pending : batch) {
            if (forgeOne && forged == 0) {
                ObjectNode copy = pending.item().deepCopy();
                // The genuine signature over the genuine fields, with the outcome turned: the receiver must refuse it.
                copy.put("success", "true".equals(copy.path("success").asText()) ? "false" : "true");
                endpoint.applyAsInt(request(copy));
                forged++;
            }
            int status = endpoint.applyAsInt(request(pending.item()));
            sent++;
            if (status == 200) {
                synchronized (lock) {
                    due.remove(pending);
                }
            } else {
                refused++;
            }
            if (random.nextDouble() < duplicateRate) {
                endpoint.applyAsInt(request(pending.item()));
                duplicates++;
            }
        }
        return new Sent(sent, duplicates, forged, refused, outstanding());
    }

    private static String request(ObjectNode item) {
        ObjectNode body = JSON.createObjectNode().put("live", "false");
        ArrayNode items = body.putArray("notificationItems");
        items.addObject().set("NotificationRequestItem", item);
        return body.toString();
    }

    private void serve(HttpExchange exchange) throws IOException {
        try (exchange) {
            byte[] body;
            try (InputStream in = exchange.getRequestBody()) {
                body = in.readAllBytes();
            }
            synchronized (lock) {
                requests++;
            }
            Matcher path = CANCELS.matcher(exchange.getRequestURI().getRawPath().replaceFirst("^/v71", ""));
            if (!path.matches() || !"POST".equals(exchange.getRequestMethod())) {
                send(exchange, 404, error(404, "000", "Not found", "configuration"));
                return;
            }
            if (!apiKey.equals(exchange.getRequestHeaders().getFirst(API_KEY_HEADER))) {
                send(exchange, 401, error(401, "000", "HTTP Status Response - Unauthorized", "security"));
                return;
            }
            String key = exchange.getRequestHeaders().getFirst(IDEMPOTENCY_KEY);
            if (key == null || key.isEmpty() || key.length() > 64) {
                send(exchange, 422, error(422, "000", "this fake requires an Idempotency-Key of 1-64 characters", "validation"));
                return;
            }
            JsonNode request;
            try {
                request = JSON.readTree(body);
            } catch (IOException e) {
                send(exchange, 422, error(422, "000", "Structure of the request is invalid", "validation"));
                return;
            }
            if (request == null || !merchantAccount.equals(request.path("merchantAccount").asText(null))) {
                send(exchange, 422, error(422, "901", "Invalid Merchant Account", "validation"));
                return;
            }
            String payment = URLDecoder.decode(path.group(1), StandardCharsets.UTF_8);
            String reference = request.path("reference").asText("");
            java.time.Duration throttled = null;
            Fault fault = null;
            synchronized (lock) {
                if (throttleRemaining > 0) {
                    throttleRemaining--;
                    burstAnswered++;
                    throttled = throttleRetryAfter;
                } else {
                    java.util.ArrayDeque<Fault> queue = forced.get(reference);
                    fault = queue == null ? null : queue.poll();
                    if (fault != null) {
                        faultsAnswered.computeIfAbsent(reference, r -> new ArrayList<>()).add(fault);
                    }
                }
            }
            if (throttled != null) {
                exchange.getResponseHeaders().set("Retry-After", Long.toString(Math.max(1, throttled.toSeconds())));
                send(exchange, 429, error(429, "000", "Too Many Requests", "validation"));
                return;
            }
            if (fault == Fault.ERROR_5XX) {
                // Nothing performed, and Adyen says so: the same key may be sent again and is processed as the first.
                exchange.getResponseHeaders().set(TRANSIENT_ERROR, "true");
                send(exchange, 500, error(500, "000", "Unable to process the request: no connection available", "internal"));
                return;
            }
            ObjectNode answer = cancel(key, payment, reference);
            if (fault == Fault.PERFORM_THEN_DROP) {
                return; // closing the exchange before any response header closes the connection
            }
            if (fault == Fault.SLOW) {
                try {
                    Thread.sleep(slowDelay);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    return;
                }
            }
            if (fault == Fault.MALFORMED) {
                byte[] page = "<html><body>502 Bad Gateway</body></html>".getBytes(StandardCharsets.UTF_8);
                exchange.getResponseHeaders().set("Content-Type", "text/html");
                exchange.sendResponseHeaders(200, page.length);
                try (OutputStream out = exchange.getResponseBody()) {
                    out.write(page);
                }
                return;
            }
            send(exchange, 201, answer);
        }
    }

    /** The 201 for {@code key}: stored the first time (with its effect and notification), replayed after. */
    private ObjectNode cancel(String key, String payment, String reference) {
        synchronized (lock) {
            cancels++;
            ObjectNode stored = answersByKey.get(key);
            if (stored != null) {
                return stored;
            }
            // 16 characters as Adyen's, letters only (see NIBBLES): "C" and the sequence in 15 letters A-P.
            String pspReference = "C" + letters(java.nio.ByteBuffer.allocate(8).putLong(++sequence).array()).substring(1);
            ObjectNode answer = JSON.createObjectNode().put("merchantAccount", merchantAccount)
                    .put("paymentPspReference", payment).put("reference", reference)
                    .put("pspReference", pspReference).put("status", "received");
            answersByKey.put(key, answer);
            Optional<String> authorisation = authorisationOf(payment);
            long now = clock.millis();
            boolean success;
            String reason = "";
            if (authorisation.isEmpty()) {
                success = false;
                reason = "Original pspReference required for this operation";
            } else if (captured.contains(authorisation.get())) {
                success = false;
                reason = "Transaction is already captured";
            } else {
                // A second cancel of a cancelled payment performs nothing more; Adyen reports it a success.
                success = true;
                performedByPayment.computeIfAbsent(payment, p -> {
                    PerformedRelease release = new PerformedRelease(authorisation.get(), reference, now);
                    performed.add(release);
                    return release;
                });
            }
            if (loseNotificationOf.remove(reference)) {
                lostNotifications.add(reference);
            } else {
                due.add(new Pending(notification(pspReference, payment, reference, success, reason, now), now));
            }
            return answer;
        }
    }

    private ObjectNode notification(String pspReference, String payment, String reference, boolean success, String reason, long at) {
        ObjectNode item = JSON.createObjectNode();
        item.putObject("amount").put("currency", "EUR").put("value", 0);
        item.put("eventCode", "CANCELLATION")
                .put("eventDate", Instant.ofEpochMilli(at).toString())
                .put("merchantAccountCode", merchantAccount)
                .put("merchantReference", reference)
                .put("originalReference", payment)
                .put("pspReference", pspReference)
                .put("reason", reason)
                .put("success", Boolean.toString(success));
        String data = String.join(":", pspReference, payment, merchantAccount, reference, "0", "EUR", "CANCELLATION",
                Boolean.toString(success));
        item.putObject("additionalData").put("hmacSignature", sign(data));
        return item;
    }

    private String sign(String data) {
        try {
            Mac mac = Mac.getInstance("HmacSHA256");
            mac.init(new SecretKeySpec(hmacKey, "HmacSHA256"));
            return Base64.getEncoder().encodeToString(mac.doFinal(data.getBytes(StandardCharsets.UTF_8)));
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("HmacSHA256", e);
        }
    }

    /** Adyen's ServiceError shape. */
    private static ObjectNode error(int status, String code, String message, String type) {
        return JSON.createObjectNode().put("status", status).put("errorCode", code).put("message", message)
                .put("errorType", type);
    }

    private static void send(HttpExchange exchange, int status, ObjectNode body) throws IOException {
        byte[] bytes = body.toString().getBytes(StandardCharsets.UTF_8);
        exchange.getResponseHeaders().set("Content-Type", "application/json");
        exchange.sendResponseHeaders(status, bytes.length);
        try (OutputStream out = exchange.getResponseBody()) {
            out.write(bytes);
        }
    }

    @Override
    public void close() {
        server.stop(0);
        threads.shutdownNow();
    }
}
