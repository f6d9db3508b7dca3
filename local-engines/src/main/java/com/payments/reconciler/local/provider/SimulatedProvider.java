package com.payments.reconciler.local.provider;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.SecureRandom;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HexFormat;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedDeque;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The card provider, simulated: a real HTTP server on 127.0.0.1 (a free port) that releases holds
 * with idempotency-key semantics, injects seeded faults and counts what it did per key.
 *
 * <h2>API</h2>
 * <pre>
 * POST /holds/{authorisationId}/release
 * Authorization: Bearer {apiKey}
 * Idempotency-Key: {operationId}
 * Content-Type: application/json
 *
 * {"authorisationId": "...", "amountMinor": 1250, "currency": "EUR", "operationId": "..."}
 * </pre>
 * The body's {@code authorisationId} must equal the path's, and its {@code operationId} the
 * {@code Idempotency-Key}; {@code amountMinor} is a positive integer, {@code currency} three capital
 * letters; no other fields. Answers, all {@code application/json}:
 * <table>
 *   <caption>responses</caption>
 *   <tr><td>200</td><td>released: {@code {"operationId","authorisationId","status":"RELEASED","providerReference"}}</td></tr>
 *   <tr><td>409</td><td>permanently refused (the hold is unknown, or already released under another key):
 *       {@code {"operationId","authorisationId","status":"REJECTED","code","reason"}}; {@code code} is
 *       {@code HOLD_NOT_FOUND} or {@code HOLD_ALREADY_RELEASED}</td></tr>
 *   <tr><td>400</td><td>{@code {"error":"BAD_REQUEST","field","message"}}: missing {@code Idempotency-Key}, or a malformed body</td></tr>
 *   <tr><td>401</td><td>{@code {"error":"UNAUTHORIZED"}}: missing or wrong bearer key</td></tr>
 *   <tr><td>422</td><td>{@code {"error":"IDEMPOTENCY_KEY_REUSED","operationId"}}: this key was used with a different body</td></tr>
 *   <tr><td>503</td><td>{@code {"error":"UNAVAILABLE"}}: nothing was performed; retry with the same key</td></tr>
 *   <tr><td>404 / 405 / 415</td><td>unknown path / not POST / not JSON</td></tr>
 * </table>
 * A repeat with the same key and the same body (compared as JSON values) returns the original status
 * and body and performs nothing, whether the original was a release or a refusal — while the provider keeps the key:
 * with a {@link Builder#keyRetention key retention}, a key first used that long ago (on the provider's clock, the run's
 * injected one) is forgotten, and a request under it is a new request (for a hold it already released, a 409
 * {@code HOLD_ALREADY_RELEASED}), as Stripe documents for keys at least 24 hours old.
 *
 * <pre>
 * GET /holds/{authorisationId}
 * Authorization: Bearer {apiKey}
 * </pre>
 * The status lookup, answered from the record of performed releases (never from the keys): 200
 * {@code {"authorisationId","status":"RELEASED","providerReference"}} for a released hold,
 * {@code {"authorisationId","status":"ACTIVE"}} for an open one, {@code {"authorisationId","status":"CAPTURED"}} for one
 * {@link #capture captured}; 404 for an unknown hold, and for every hold when built {@link Builder#statusLookup
 * without the lookup}.
 *
 * <h2>Faults</h2>
 * Seeded by {@link ProviderFaults}; for a deterministic test, {@link #forceNext} puts a fault on the
 * next request for a key, and {@link #hold} parks the next request for a key, after performing, until
 * the test opens its {@link Gate}. The effect log ({@link #effects()}) counts per key how many requests
 * arrived and how many releases were performed; {@link #releases()} lists every release performed, per hold,
 * whichever key it came under (what an audit of "one release per hold" reads). {@link Builder#idempotent
 * idempotent(false)} makes a provider that performs every valid request, for checking that audit. Thread-safe; requests are served concurrently
 * (a virtual thread each), and concurrent requests with one key are serialised so the release is
 * performed at most once.
 */
public final class SimulatedProvider implements AutoCloseable {

    /** How a slow response waits; tests may replace it with a latch. */
    @FunctionalInterface
    public interface Sleeper {
        void sleep(String operationId, Duration delay) throws InterruptedException;
    }

    public static final String IDEMPOTENCY_KEY = "Idempotency-Key";
    public static final String CODE_HOLD_NOT_FOUND = "HOLD_NOT_FOUND";
    public static final String CODE_HOLD_ALREADY_RELEASED = "HOLD_ALREADY_RELEASED";

    private static final Pattern RELEASE_PATH = Pattern.compile("/holds/([^/]+)/release");
    private static final Pattern HOLD_PATH = Pattern.compile("/holds/([^/]+)");
    /** Stripe's routes ({@link StripeWire}): the PaymentIntent, and its cancel. */
    private static final Pattern STRIPE_PATH = Pattern.compile("/v1/payment_intents/([^/]+)(/cancel)?");
    private static final Pattern CURRENCY = Pattern.compile("[A-Z]{3}");
    private static final Set<String> BODY_FIELDS = Set.of("authorisationId", "amountMinor", "currency", "operationId");
    private static final ObjectMapper JSON = new ObjectMapper();
    /** The body of a {@link Fault#MALFORMED} answer. */
    public static final String MALFORMED_BODY = "<html><body>502 Bad Gateway</body></html>";

    private final HttpServer server;
    private final ExecutorService threads;
    private final byte[] expectedAuthorization;
    private final String apiKey;
    private final ProviderFaults faults;
    private final Set<String> unknownHolds;
    private final Sleeper sleeper;
    private final Clock clock;
    /** The provider's quota, when it enforces one ({@link Builder#quota}; a chaos schedule sets it with {@link #enforce}). */
    private volatile RequestQuota quota;
    /** Requests still to be answered 429 by a forced burst ({@link #throttleNext}), whatever their key. */
    private final AtomicInteger burstLeft = new AtomicInteger();
    private volatile Duration burstRetryAfter = Duration.ofSeconds(1);
    private final AtomicLong burstAnswered = new AtomicLong();
    /** The builder's choice; {@link #idempotent(boolean)} changes it for a run (a harness's mutant row). */
    private volatile boolean idempotent;
    /** Every release performed, in the order performed, whichever key it came under: the record of effects per hold. */
    private final ConcurrentLinkedQueue<PerformedRelease> performedReleases = new ConcurrentLinkedQueue<>();

    private final Map<String, Recorded> recorded = new ConcurrentHashMap<>();
    private final Map<String, Object> keyLocks = new ConcurrentHashMap<>();
    private final Map<String, String> releasedBy = new ConcurrentHashMap<>();
    private final Map<String, Counter> effects = new ConcurrentHashMap<>();
    private final Map<String, ConcurrentLinkedDeque<Fault>> forced = new ConcurrentHashMap<>();
    private final Map<String, ConcurrentLinkedDeque<Gate>> gates = new ConcurrentHashMap<>();
    private final Set<Gate> parked = ConcurrentHashMap.newKeySet();
    private final Map<String, List<Fault>> answered = new ConcurrentHashMap<>();
    private final AtomicLong references = new AtomicLong();
    private final AtomicLong requestsWithoutKey = new AtomicLong();

    /** A key's first answer, replayed to every repeat while the key is kept; {@code at}: when it was recorded (epoch ms). */
    private record Recorded(JsonNode body, int status, byte[] response, long at) {
    }

    /** How long a key is kept ({@link Builder#keyRetention}); null: forever. */
    private volatile Duration keyRetention;
    private final boolean statusLookup;
    private final AtomicLong forgottenKeys = new AtomicLong();
    private final AtomicLong lookups = new AtomicLong();
    /** The reference of each released hold, for the status lookup. */
    private final Map<String, String> referenceOf = new ConcurrentHashMap<>();
    private final Set<String> captured = ConcurrentHashMap.newKeySet();

    private static final class Counter {
        final String authorisationId;
        final AtomicInteger performed = new AtomicInteger();
        final AtomicInteger requests = new AtomicInteger();

        Counter(String authorisationId) {
            this.authorisationId = authorisationId;
        }
    }

    private SimulatedProvider(Builder builder) throws IOException {
        this.apiKey = builder.apiKey;
        this.expectedAuthorization = ("Bearer " + builder.apiKey).getBytes(StandardCharsets.UTF_8);
        this.faults = builder.faults;
        this.unknownHolds = Set.copyOf(builder.unknownHolds);
        this.sleeper = builder.sleeper;
        this.clock = builder.clock;
        this.idempotent = builder.idempotent;
        this.quota = builder.quota;
        this.keyRetention = builder.keyRetention;
        this.statusLookup = builder.statusLookup;
        this.threads = Executors.newVirtualThreadPerTaskExecutor();
        this.server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 64);
        server.setExecutor(threads);
        server.createContext("/", this::serve);
        server.start();
    }

    public static Builder builder() {
        return new Builder();
    }

    /** Starts a provider without faults, with a random API key. */
    public static SimulatedProvider start() {
        return builder().start();
    }

    /** The base URL, e.g. {@code http://127.0.0.1:41234}. */
    public URI baseUrl() {
        return URI.create("http://" + server.getAddress().getAddress().getHostAddress() + ":" + server.getAddress().getPort());
    }

    /** The bearer key this provider accepts (a local run passes it as plain configuration). */
    public String apiKey() {
        return apiKey;
    }

    /** Puts {@code fault} on the next request carrying {@code operationId} (queued: several calls stack). */
    public void forceNext(String operationId, Fault fault) {
        forced.computeIfAbsent(operationId, k -> new ConcurrentLinkedDeque<>()).addLast(Objects.requireNonNull(fault));
    }

    /** Parks the next request carrying {@code operationId} after it was performed, until the gate opens. */
    public Gate hold(String operationId) {
        Gate gate = new Gate();
        gates.computeIfAbsent(operationId, k -> new ConcurrentLinkedDeque<>()).addLast(gate);
        return gate;
    }

    /**
     * The faults this provider answered requests with, per operation id in the order it did: a forced or drawn fault
     * counts here only once a request met it (a fault forced on a key no request carried is not here).
     */
    public SortedMap<String, List<Fault>> faultsAnswered() {
        SortedMap<String, List<Fault>> copy = new TreeMap<>();
        answered.forEach((key, faults) -> {
            synchronized (faults) {
                copy.put(key, List.copyOf(faults));
            }
        });
        return copy;
    }

    private void answeredWith(String key, Fault fault) {
        List<Fault> faults = answered.computeIfAbsent(key, k -> new ArrayList<>());
        synchronized (faults) {
            faults.add(fault);
        }
    }

    /** Per operation id: performed releases and requests received, ordered by operation id. */
    public List<ProviderEffect> effects() {
        return effects.entrySet().stream()
                .map(e -> new ProviderEffect(e.getKey(), e.getValue().authorisationId,
                        e.getValue().performed.get(), e.getValue().requests.get()))
                .sorted(Comparator.comparing(ProviderEffect::operationId))
                .toList();
    }

    /** When each release under {@code operationId} was performed, in epoch ms of the provider's clock, in order. */
    public List<Long> performedAt(String operationId) {
        return performedReleases.stream().filter(r -> r.operationId().equals(operationId)).map(PerformedRelease::performedAt).toList();
    }

    public ProviderEffect effect(String operationId) {
        Counter counter = effects.get(operationId);
        return counter == null ? new ProviderEffect(operationId, null, 0, 0)
                : new ProviderEffect(operationId, counter.authorisationId, counter.performed.get(), counter.requests.get());
    }

    /** Every release performed, in the order performed, whichever key it came under. */
    public List<PerformedRelease> releases() {
        return List.copyOf(performedReleases);
    }

    /** The releases performed on {@code authorisationId}'s hold, in order, whichever key they came under. */
    public List<PerformedRelease> releasesOf(String authorisationId) {
        return performedReleases.stream().filter(r -> r.authorisationId().equals(authorisationId)).toList();
    }

    /** Keys forgotten because their retention passed (a request under one was then a new request). */
    public long forgottenKeys() {
        return forgottenKeys.get();
    }

    /** Status lookups answered ({@code GET /holds/{id}}). */
    public long lookups() {
        return lookups.get();
    }

    /** Forgets each key this long after its first use, from now on; null keeps keys forever. */
    public void keyRetention(Duration retention) {
        if (retention != null && (retention.isNegative() || retention.isZero())) {
            throw new IllegalArgumentException("a key retention must be above zero, was " + retention);
        }
        this.keyRetention = retention;
    }

    /** The card platform captured this hold: a release is refused, and the status lookup answers CAPTURED. */
    public void capture(String authorisationId) {
        captured.add(authorisationId);
    }

    /** The quota it enforces, if any. */
    public java.util.Optional<RequestQuota> quota() {
        return java.util.Optional.ofNullable(quota);
    }

    /** Enforces {@code value} from now on, or no quota with null (a chaos schedule's provider, per schedule). */
    public void enforce(RequestQuota value) {
        this.quota = value;
    }

    /**
     * Quota pressure (a chaos fault): the next {@code requests} requests, whatever their key, are answered 429 with
     * {@code Retry-After} in whole seconds, before anything is performed.
     */
    public void throttleNext(int requests, Duration retryAfter) {
        if (requests < 0 || retryAfter.isNegative()) {
            throw new IllegalArgumentException("a burst of 429s needs a request count and a Retry-After of at least 0, was "
                    + requests + " and " + retryAfter);
        }
        burstRetryAfter = retryAfter;
        burstLeft.set(requests);
    }

    /** 429 answers sent by forced bursts ({@link #throttleNext}). */
    public long burstAnswered() {
        return burstAnswered.get();
    }

    /** All requests received, with or without a key. */

    public long totalRequests() {
        return requestsWithoutKey.get() + effects.values().stream().mapToLong(c -> c.requests.get()).sum();
    }

    /** Forgets every key, effect, forced fault and gate (parked requests are let go). */
    /**
     * Whether repeats are answered from the key's record ({@code true}) or every valid request releases again
     * ({@code false}, see {@link Builder#idempotent}), from now on.
     */
    public void idempotent(boolean value) {
        this.idempotent = value;
    }

    public void reset() {
        burstLeft.set(0);
        burstAnswered.set(0);
        openAllGates();
        gates.clear();
        forced.clear();
        answered.clear();
        recorded.clear();
        releasedBy.clear();
        referenceOf.clear();
        captured.clear();
        forgottenKeys.set(0);
        lookups.set(0);
        effects.clear();
        performedReleases.clear();
        requestsWithoutKey.set(0);
    }

    @Override
    public void close() {
        openAllGates();
        server.stop(0);
        threads.shutdownNow();
    }

    private void openAllGates() {
        gates.values().forEach(queue -> queue.forEach(Gate::open));
        parked.forEach(Gate::open);
    }

    private void serve(HttpExchange exchange) throws IOException {
        try (exchange) {
            byte[] body;
            try (InputStream in = exchange.getRequestBody()) {
                body = in.readAllBytes();
            }
            Matcher stripe = STRIPE_PATH.matcher(exchange.getRequestURI().getRawPath());
            if (stripe.matches()) {
                serveStripe(exchange, body, URLDecoder.decode(stripe.group(1), StandardCharsets.UTF_8), stripe.group(2) != null);
                return;
            }
            Matcher hold = HOLD_PATH.matcher(exchange.getRequestURI().getRawPath());
            if (hold.matches() && "GET".equals(exchange.getRequestMethod())) {
                lookUp(exchange, URLDecoder.decode(hold.group(1), StandardCharsets.UTF_8));
                return;
            }
            Matcher path = RELEASE_PATH.matcher(exchange.getRequestURI().getRawPath());
            if (!path.matches()) {
                send(exchange, 404, error("NOT_FOUND").put("message", "the only resource is POST /holds/{authorisationId}/release"));
                return;
            }
            if (!"POST".equals(exchange.getRequestMethod())) {
                exchange.getResponseHeaders().add("Allow", "POST");
                send(exchange, 405, error("METHOD_NOT_ALLOWED"));
                return;
            }
            String authorisationId = URLDecoder.decode(path.group(1), StandardCharsets.UTF_8);
            String key = exchange.getRequestHeaders().getFirst(IDEMPOTENCY_KEY);
            if (key == null || key.isBlank()) {
                requestsWithoutKey.incrementAndGet();
                send(exchange, 400, badRequest(IDEMPOTENCY_KEY, "required header: the operation id"));
                return;
            }
            Counter counter = effects.computeIfAbsent(key, k -> new Counter(authorisationId));
            int attempt = counter.requests.incrementAndGet();
            if (burstLeft.getAndUpdate(n -> Math.max(0, n - 1)) > 0) {
                burstAnswered.incrementAndGet();
                exchange.getResponseHeaders().set("Retry-After", Long.toString(burstRetryAfter.toSeconds()));
                send(exchange, 429, error("TOO_MANY_REQUESTS").put("message", "throttled: a burst of 429s"));
                return;
            }
            RequestQuota quota = this.quota;
            if (quota != null) {
                Duration wait = quota.admit();
                if (wait != null) {
                    exchange.getResponseHeaders().set("Retry-After", Long.toString(wait.toSeconds()));
                    send(exchange, 429, error("TOO_MANY_REQUESTS").put("message", "over the quota of "
                            + quota.requestsPerSecond() + " requests/s or " + quota.maxConcurrent() + " at once"));
                    return;
                }
                try {
                    answerAdmitted(exchange, body, authorisationId, key, counter, attempt, false);
                } finally {
                    quota.done();
                }
                return;
            }
            answerAdmitted(exchange, body, authorisationId, key, counter, attempt, false);
        }
    }

    /**
     * Stripe's routes, with Stripe's semantics ({@link StripeWire}): {@code GET /v1/payment_intents/{intent}} the
     * PaymentIntent, {@code POST /v1/payment_intents/{intent}/cancel} its cancel under the same idempotency keys, faults,
     * quota and effect log as the generic route. The key's parameters are the path and the form body: a repeat with others
     * is Stripe's 400 {@code idempotency_error}.
     */
    private void serveStripe(HttpExchange exchange, byte[] body, String intent, boolean cancel) throws IOException {
        if (!cancel) {
            if (!"GET".equals(exchange.getRequestMethod())) {
                send(exchange, 405, StripeWire.error("invalid_request_error", null, "Unrecognized request URL (" + exchange.getRequestMethod() + ")"));
                return;
            }
            stripeLookUp(exchange, intent);
            return;
        }
        if (!"POST".equals(exchange.getRequestMethod())) {
            send(exchange, 405, StripeWire.error("invalid_request_error", null, "Unrecognized request URL (" + exchange.getRequestMethod() + ")"));
            return;
        }
        String key = exchange.getRequestHeaders().getFirst(IDEMPOTENCY_KEY);
        if (key == null || key.isBlank()) {
            // Stripe performs a request without a key; this fake refuses it, so that no release escapes its effect log's keys.
            requestsWithoutKey.incrementAndGet();
            send(exchange, 400, StripeWire.error("invalid_request_error", null, "this fake requires an Idempotency-Key"));
            return;
        }
        String authorisationId = StripeWire.authorisationOf(intent).orElse(intent);
        Counter counter = effects.computeIfAbsent(key, k -> new Counter(authorisationId));
        int attempt = counter.requests.incrementAndGet();
        if (burstLeft.getAndUpdate(n -> Math.max(0, n - 1)) > 0) {
            burstAnswered.incrementAndGet();
            exchange.getResponseHeaders().set("Retry-After", Long.toString(burstRetryAfter.toSeconds()));
            send(exchange, 429, StripeWire.error("invalid_request_error", "rate_limit", "Too many requests hit the API too quickly."));
            return;
        }
        RequestQuota quota = this.quota;
        if (quota != null) {
            Duration wait = quota.admit();
            if (wait != null) {
                exchange.getResponseHeaders().set("Retry-After", Long.toString(wait.toSeconds()));
                send(exchange, 429, StripeWire.error("invalid_request_error", "rate_limit", "Too many requests hit the API too quickly."));
                return;
            }
            try {
                answerAdmitted(exchange, body, authorisationId, key, counter, attempt, true);
            } finally {
                quota.done();
            }
            return;
        }
        answerAdmitted(exchange, body, authorisationId, key, counter, attempt, true);
    }

    /** Stripe's retrieve: the PaymentIntent's state from the record of performed releases, never from the keys. */
    private void stripeLookUp(HttpExchange exchange, String intent) throws IOException {
        if (!authorised(exchange.getRequestHeaders().getFirst("Authorization"))) {
            send(exchange, 401, StripeWire.error("invalid_request_error", null, "Invalid API Key provided"));
            return;
        }
        lookups.incrementAndGet();
        java.util.Optional<String> authorisationId = StripeWire.authorisationOf(intent);
        if (!statusLookup || authorisationId.isEmpty() || unknownHolds.contains(authorisationId.get())) {
            send(exchange, 404, StripeWire.resourceMissing(intent));
            return;
        }
        send(exchange, 200, stripeIntent(intent, authorisationId.get()));
    }

    /** The PaymentIntent as it stands: canceled once a release was performed, succeeded once captured, else requires_capture. */
    private ObjectNode stripeIntent(String intent, String authorisationId) {
        PerformedRelease first = performedReleases.stream().filter(r -> r.authorisationId().equals(authorisationId)).findFirst().orElse(null);
        if (first != null) {
            return StripeWire.paymentIntent(intent, "canceled", "abandoned", first.performedAt() / 1000);
        }
        return StripeWire.paymentIntent(intent, captured.contains(authorisationId) ? "succeeded" : "requires_capture", null, null);
    }

    private void answerAdmitted(HttpExchange exchange, byte[] body, String authorisationId, String key, Counter counter, int attempt,
                                boolean stripe) throws IOException {
        try {
            if (!authorised(exchange.getRequestHeaders().getFirst("Authorization"))) {
                send(exchange, 401, stripe ? StripeWire.error("invalid_request_error", null, "Invalid API Key provided") : error("UNAUTHORIZED"));
                return;
            }
            String contentType = exchange.getRequestHeaders().getFirst("Content-Type");
            String expectedType = stripe ? "application/x-www-form-urlencoded" : "application/json";
            if (contentType == null || !contentType.toLowerCase().startsWith(expectedType)) {
                send(exchange, stripe ? 400 : 415, stripe ? StripeWire.error("invalid_request_error", null, "Content-Type must be " + expectedType)
                        : error("UNSUPPORTED_MEDIA_TYPE").put("message", "Content-Type must be application/json"));
                return;
            }
            JsonNode request;
            try {
                request = stripe ? validStripeBody(body, exchange.getRequestURI().getRawPath()) : validBody(body, authorisationId, key);
            } catch (BadRequest bad) {
                send(exchange, 400, stripe ? StripeWire.error("invalid_request_error", "parameter_invalid_string", bad.getMessage())
                        : badRequest(bad.field, bad.getMessage()));
                return;
            }

            Fault.Plan plan = planFor(key, attempt);
            if (plan.error5xx()) {
                answeredWith(key, Fault.ERROR_5XX);
                send(exchange, stripe ? 500 : 503, stripe ? StripeWire.error("api_error", null, "An unknown error occurred") : error("UNAVAILABLE"));
                return;
            }
            Recorded answer = performOrReplay(key, authorisationId, request, counter, stripe);
            Gate gate = poll(gates, key);
            if (gate != null) {
                parked.add(gate);
                try {
                    gate.arriveAndWait();
                } finally {
                    parked.remove(gate);
                }
            }
            if (plan.slow()) {
                sleeper.sleep(key, faults.slowDelay());
                answeredWith(key, Fault.SLOW);
            }
            if (plan.performThenDrop()) {
                answeredWith(key, Fault.PERFORM_THEN_DROP);
                return; // closing the exchange before any response header closes the connection
            }
            if (plan.malformed()) {
                answeredWith(key, Fault.MALFORMED);
                // What a proxy's error page looks like to the client: performed (or not), answered outside the contract.
                exchange.getResponseHeaders().set("Content-Type", "text/html");
                byte[] page = MALFORMED_BODY.getBytes(StandardCharsets.UTF_8);
                exchange.sendResponseHeaders(200, page.length);
                try (OutputStream out = exchange.getResponseBody()) {
                    out.write(page);
                }
                return;
            }
            send(exchange, answer.status(), answer.response());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (IOException e) {
            // The caller went away (its timeout): what was performed stays performed.
        }
    }

    /** The status lookup: the hold's state from the record of performed releases, never from the keys. */
    private void lookUp(HttpExchange exchange, String authorisationId) throws IOException {
        if (!authorised(exchange.getRequestHeaders().getFirst("Authorization"))) {
            send(exchange, 401, error("UNAUTHORIZED"));
            return;
        }
        lookups.incrementAndGet();
        if (!statusLookup || unknownHolds.contains(authorisationId)) {
            send(exchange, 404, error("NOT_FOUND"));
            return;
        }
        ObjectNode answer = JSON.createObjectNode().put("authorisationId", authorisationId);
        String reference = referenceOf.get(authorisationId);
        if (reference != null) {
            answer.put("status", "RELEASED").put("providerReference", reference);
        } else if (captured.contains(authorisationId)) {
            answer.put("status", "CAPTURED");
        } else {
            answer.put("status", "ACTIVE");
        }
        send(exchange, 200, answer);
    }

    /** Serialised per key: the first request with a key performs; every repeat replays its answer while the key is kept. */
    private Recorded performOrReplay(String key, String authorisationId, JsonNode request, Counter counter, boolean stripe) throws IOException {
        synchronized (keyLocks.computeIfAbsent(key, k -> new Object())) {
            Duration retention = keyRetention;
            Recorded kept = recorded.get(key);
            if (kept != null && retention != null && clock.millis() - kept.at() >= retention.toMillis()) {
                recorded.remove(key);
                forgottenKeys.incrementAndGet();
            }
            Recorded earlier = recorded.get(key);
            if (!idempotent && !unknownHolds.contains(authorisationId)) {
                // The provider this mode stands for ignores keys: every request releases again, and the caller
                // still gets the key's first answer, so only the provider's own record shows the second release.
                Recorded released = release(key, authorisationId, request, counter, stripe);
                releasedBy.putIfAbsent(authorisationId, key);
                if (earlier == null) {
                    recorded.put(key, released);
                    return released;
                }
                return earlier;
            }
            if (earlier != null) {
                if (!earlier.body().equals(request) && stripe) {
                    return new Recorded(request, 400, bytes(StripeWire.idempotencyError(key)), clock.millis());
                }
                if (!earlier.body().equals(request)) {
                    return new Recorded(request, 422, bytes(error("IDEMPOTENCY_KEY_REUSED").put("operationId", key)
                            .put("message", "this Idempotency-Key was first used with a different body")), clock.millis());
                }
                return earlier;
            }
            Recorded answer;
            if (stripe) {
                answer = stripeAnswer(key, authorisationId, request, counter);
            } else if (unknownHolds.contains(authorisationId) || captured.contains(authorisationId)) {
                answer = new Recorded(request, 409, bytes(rejected(key, authorisationId, CODE_HOLD_NOT_FOUND,
                        "no open hold for this authorisation")), clock.millis());
            } else if (releasedBy.putIfAbsent(authorisationId, key) != null) {
                answer = new Recorded(request, 409, bytes(rejected(key, authorisationId, CODE_HOLD_ALREADY_RELEASED,
                        "the hold was already released (under this key, if the provider forgot it, or another)")), clock.millis());
            } else {
                answer = release(key, authorisationId, request, counter, false);
            }
            recorded.put(key, answer);
            return answer;
        }
    }

    /** Stripe's cancel, first time under its key: unknown 404, captured or cancelled 400 naming the state, else cancelled. */
    private Recorded stripeAnswer(String key, String authorisationId, JsonNode request, Counter counter) {
        String intent = request.get("path").asText().replaceFirst("^/v1/payment_intents/", "").replaceFirst("/cancel$", "");
        if (StripeWire.authorisationOf(intent).isEmpty() || unknownHolds.contains(authorisationId)) {
            return new Recorded(request, 404, bytes(StripeWire.resourceMissing(intent)), clock.millis());
        }
        if (captured.contains(authorisationId) || releasedBy.putIfAbsent(authorisationId, key) != null) {
            return new Recorded(request, 400, bytes(StripeWire.unexpectedState(stripeIntent(intent, authorisationId))), clock.millis());
        }
        return release(key, authorisationId, request, counter, true);
    }

    private Recorded release(String key, String authorisationId, JsonNode request, Counter counter, boolean stripe) {
        long at = clock.millis();
        counter.performed.incrementAndGet();
        performedReleases.add(new PerformedRelease(authorisationId, key, at));
        String reference = "PRV-%08d".formatted(references.incrementAndGet());
        referenceOf.putIfAbsent(authorisationId, reference);
        if (stripe) {
            String intent = StripeWire.paymentIntentFor(authorisationId);
            return new Recorded(request, 200, bytes(StripeWire.paymentIntent(intent, "canceled", "abandoned", at / 1000)), at);
        }
        ObjectNode released = JSON.createObjectNode()
                .put("operationId", key)
                .put("authorisationId", authorisationId)
                .put("status", "RELEASED")
                .put("providerReference", reference);
        return new Recorded(request, 200, bytes(released), at);
    }

    private Fault.Plan planFor(String key, int attempt) {
        Fault fault = poll(forced, key);
        return fault != null ? Fault.Plan.of(fault) : faults.decide(key, attempt);
    }

    private static <T> T poll(Map<String, ConcurrentLinkedDeque<T>> queues, String key) {
        ConcurrentLinkedDeque<T> queue = queues.get(key);
        return queue == null ? null : queue.pollFirst();
    }

    private boolean authorised(String header) {
        return header != null && MessageDigest.isEqual(header.getBytes(StandardCharsets.UTF_8), expectedAuthorization);
    }

    private static JsonNode validBody(byte[] body, String authorisationId, String key) throws BadRequest {
        JsonNode json;
        try {
            json = JSON.readTree(body);
        } catch (IOException e) {
            throw new BadRequest("body", "must be a JSON object");
        }
        if (json == null || !json.isObject()) {
            throw new BadRequest("body", "must be a JSON object");
        }
        for (Iterator<String> names = json.fieldNames(); names.hasNext(); ) {
            String name = names.next();
            if (!BODY_FIELDS.contains(name)) {
                throw new BadRequest(name, "unknown field; accepted fields are " + BODY_FIELDS);
            }
        }
        if (!json.path("authorisationId").isTextual() || !json.get("authorisationId").asText().equals(authorisationId)) {
            throw new BadRequest("authorisationId", "required, a string equal to the path's authorisation id");
        }
        if (!json.path("operationId").isTextual() || !json.get("operationId").asText().equals(key)) {
            throw new BadRequest("operationId", "required, a string equal to the Idempotency-Key header");
        }
        JsonNode amount = json.path("amountMinor");
        if (!amount.isIntegralNumber() || !amount.canConvertToLong() || amount.asLong() <= 0) {
            throw new BadRequest("amountMinor", "required, a positive integer in minor units");
        }
        if (!json.path("currency").isTextual() || !CURRENCY.matcher(json.get("currency").asText()).matches()) {
            throw new BadRequest("currency", "required, an ISO-4217 code of three capital letters");
        }
        return json;
    }

    /** Stripe's cancel parameters: at most {@code cancellation_reason}, one of Stripe's values; the key compares path and form. */
    private static JsonNode validStripeBody(byte[] body, String path) throws BadRequest {
        Map<String, String> params;
        try {
            params = StripeWire.form(body);
        } catch (IllegalArgumentException e) {
            throw new BadRequest("body", "Invalid form-encoded body");
        }
        for (Map.Entry<String, String> param : params.entrySet()) {
            if (!param.getKey().equals("cancellation_reason")) {
                throw new BadRequest(param.getKey(), "Received unknown parameter: " + param.getKey());
            }
            if (!StripeWire.CANCELLATION_REASONS.contains(param.getValue())) {
                throw new BadRequest(param.getKey(), "Invalid cancellation_reason: must be one of " + StripeWire.CANCELLATION_REASONS);
            }
        }
        ObjectNode request = JSON.createObjectNode().put("path", path);
        ObjectNode form = request.putObject("params");
        params.forEach(form::put);
        return request;
    }

    private static ObjectNode rejected(String key, String authorisationId, String code, String reason) {
        return JSON.createObjectNode().put("operationId", key).put("authorisationId", authorisationId)
                .put("status", "REJECTED").put("code", code).put("reason", reason);
    }

    private static ObjectNode error(String code) {
        return JSON.createObjectNode().put("error", code);
    }

    private static ObjectNode badRequest(String field, String message) {
        return error("BAD_REQUEST").put("field", field).put("message", message);
    }

    private static void send(HttpExchange exchange, int status, ObjectNode body) throws IOException {
        send(exchange, status, bytes(body));
    }

    private static void send(HttpExchange exchange, int status, byte[] body) throws IOException {
        exchange.getResponseHeaders().set("Content-Type", "application/json");
        exchange.sendResponseHeaders(status, body.length);
        try (OutputStream out = exchange.getResponseBody()) {
            out.write(body);
        }
    }

    private static byte[] bytes(JsonNode node) {
        try {
            return JSON.writeValueAsBytes(node);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static final class BadRequest extends Exception {
        final String field;

        BadRequest(String field, String message) {
            super(message);
            this.field = field;
        }
    }

    public static final class Builder {
        private String apiKey = randomKey();
        private ProviderFaults faults = ProviderFaults.NONE;
        private Set<String> unknownHolds = Set.of();
        private Sleeper sleeper = (operationId, delay) -> Thread.sleep(delay);
        private Clock clock = Clock.systemUTC();
        private boolean idempotent = true;
        private RequestQuota quota;
        private Duration keyRetention;
        private boolean statusLookup = true;

        private Builder() {
        }

        /**
         * Forgets each idempotency key this long after its first use, on the provider's {@link #clock}; a request under a
         * forgotten key is a new request. Unset: keys are kept forever.
         */
        public Builder keyRetention(Duration retention) {
            if (retention != null && (retention.isNegative() || retention.isZero())) {
                throw new IllegalArgumentException("a key retention must be above zero, was " + retention);
            }
            this.keyRetention = retention;
            return this;
        }

        /** {@code false}: a provider without the status lookup ({@code GET /holds/{id}} answers 404). */
        public Builder statusLookup(boolean offered) {
            this.statusLookup = offered;
            return this;
        }

        /**
         * {@code false}: a provider that is not idempotent, for checking the audit: every valid request for a
         * known hold performs a release (a second request for the same operation, or another key for the same
         * hold, is a second release), while each key's first answer is still what its repeats get.
         */
        public Builder idempotent(boolean idempotent) {
            this.idempotent = idempotent;
            return this;
        }

        /** The clock effects are stamped with: the run's, so they compare with its settlements' times. */
        public Builder clock(Clock clock) {
            this.clock = Objects.requireNonNull(clock, "clock");
            return this;
        }

        public Builder apiKey(String apiKey) {
            if (apiKey == null || apiKey.isBlank()) {
                throw new IllegalArgumentException("apiKey must be a non-empty string");
            }
            this.apiKey = apiKey;
            return this;
        }

        public Builder faults(ProviderFaults faults) {
            this.faults = Objects.requireNonNull(faults, "faults");
            return this;
        }

        /** Authorisations without an open hold: a release is refused with 409 {@code HOLD_NOT_FOUND}. */
        public Builder unknownHolds(Set<String> authorisationIds) {
            this.unknownHolds = Set.copyOf(authorisationIds);
            return this;
        }

        /** Enforce a quota: requests beyond it are answered 429 with Retry-After and counted ({@link #quota()}). */
        public Builder quota(RequestQuota quota) {
            this.quota = quota;
            return this;
        }

        public Builder sleeper(Sleeper sleeper) {
            this.sleeper = Objects.requireNonNull(sleeper, "sleeper");
            return this;
        }

        public SimulatedProvider start() {
            try {
                return new SimulatedProvider(this);
            } catch (IOException e) {
                throw new UncheckedIOException("could not start the simulated provider on loopback", e);
            }
        }

        private static String randomKey() {
            byte[] key = new byte[24];
            new SecureRandom().nextBytes(key);
            // A Stripe test-mode secret key's form (the Stripe adapter refuses any other before a request); any bearer
            // string to the generic contract.
            return "sk_test_" + HexFormat.of().formatHex(key);
        }
    }
}
