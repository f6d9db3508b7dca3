package com.payments.reconciler.local.faults;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import software.amazon.awssdk.awscore.exception.AwsErrorDetails;
import software.amazon.awssdk.awscore.exception.AwsServiceException;
import software.amazon.awssdk.core.exception.SdkClientException;
import software.amazon.awssdk.core.interceptor.Context;
import software.amazon.awssdk.core.interceptor.ExecutionAttribute;
import software.amazon.awssdk.core.interceptor.ExecutionAttributes;
import software.amazon.awssdk.core.interceptor.ExecutionInterceptor;
import software.amazon.awssdk.core.interceptor.SdkExecutionAttribute;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.http.ContentStreamProvider;
import software.amazon.awssdk.http.SdkHttpResponse;
import software.amazon.awssdk.services.dynamodb.model.CancellationReason;
import software.amazon.awssdk.services.dynamodb.model.IdempotentParameterMismatchException;
import software.amazon.awssdk.services.dynamodb.model.ProvisionedThroughputExceededException;
import software.amazon.awssdk.services.dynamodb.model.ThrottlingException;
import software.amazon.awssdk.services.dynamodb.model.TransactionCanceledException;
import software.amazon.awssdk.services.dynamodb.model.TransactionConflictException;
import software.amazon.awssdk.services.dynamodb.model.TransactionInProgressException;

import com.payments.reconciler.local.SeededHash;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.SocketException;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.InstantSource;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.Deque;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Comparator;
import java.util.Set;
import java.util.SortedMap;
import java.util.SplittableRandom;
import java.util.TreeMap;
import java.util.function.Supplier;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Faults no local engine produces, and the {@code ClientRequestToken} semantics moto lacks, as an SDK v2
 * {@link ExecutionInterceptor} on the real {@code DynamoDbClient}. For tests and local runs only: nothing
 * deployed adds it.
 *
 * <h2>What it does to a request</h2>
 * <ul>
 *   <li>{@link Fault#TRANSACTION_CONFLICT}, {@link Fault#PROVISIONED_THROUGHPUT_EXCEEDED}, {@link Fault#THROTTLING}:
 *   the attempt is refused before it is sent (nothing applied) with the exception DynamoDB raises — the
 *   SDK's exception type, error code, HTTP status 400 and, for a conflict, {@code CancellationReasons} with
 *   one entry per item: {@code TransactionConflict} at one item, {@code None} at the others.</li>
 *   <li>{@link Fault#RESPONSE_LOST}: the attempt is sent and applied; its answer is read and then replaced
 *   by a connection reset ({@code SdkClientException} caused by a {@link SocketException}).</li>
 * </ul>
 * Decisions are taken per <em>attempt</em> (each HTTP request the SDK sends, retries included), in
 * {@code beforeTransmission}, which the SDK runs inside its retry loop. (Rewriting the request in
 * {@code modifyHttpRequest}, as a first version of this layer did, happens once per call, so every retry
 * of a faulted call met the same fault — unlike DynamoDB, where a throttled request's retry usually
 * passes.) The SDK's own retry policy then behaves as against AWS: throttling and resets are retried with
 * its backoff, a conflict is not.
 *
 * <h2>ClientRequestToken, as AWS does it</h2>
 * moto ignores the token: a replayed TransactWriteItems is applied again. Here a token that committed
 * stands, for 10 minutes after it completed (on the injected clock), for its request (a hash of the
 * request without the token) and its first response. The same request again is answered with that
 * response and applied nowhere — including the SDK's own retry after a lost response, which reuses the
 * token it generated or was given. A different request under the token gets
 * {@code IdempotentParameterMismatchException}; a second call sending the token while the first is in
 * flight gets {@code TransactionInProgressException}. A replayed attempt still reaches moto, as a request
 * moto refuses without touching anything (a ConditionCheck on a table that does not exist, padded to the
 * request's length); its answer is replaced by the recorded one.
 *
 * <h2>Item conflicts</h2>
 * DynamoDB refuses a PutItem, UpdateItem or DeleteItem on an item that an ongoing TransactWriteItems
 * includes with {@code TransactionConflictException} (developer guide, "Transaction conflict handling in
 * DynamoDB"). moto serves one request at a time and never does, so the layer tracks which items each
 * TransactWriteItems attempt names from the moment it is sent until its answer arrives; a single-item write
 * sent meanwhile on one of those items is refused ({@link Fault#ITEM_CONFLICT}) with the probability
 * {@link Builder#itemConflict}. Whether two requests overlap is real concurrency, not a draw, so item
 * conflicts are the one fault a replay does not reproduce exactly.
 *
 * <h2>Schedule</h2>
 * Every attempt takes its draws from a seeded random stream: streams are named by the caller
 * ({@link Builder#streamContext}, e.g. execution, function and shard) and the items the request names (table
 * and key, never other content: no owner ids, timestamps or tokens), and each stream is seeded from the seed
 * and its name and consumed in the order its attempts are sent. A caller whose requests on an item are
 * sequential therefore meets the same faults on every run with the seed, whatever order other callers'
 * threads happen to interleave in. Probabilities are per operation; the faults for one operation are mutually
 * exclusive (their probabilities must not sum above 1); an item conflict is decided before them, from a draw
 * of its own. {@link #disable()} pauses the random schedule; {@link #inject} forces faults on the next attempts
 * of an operation whether or not the schedule is enabled (a forced item conflict whether or not a transaction
 * holds the item).
 *
 * <h2>What is counted</h2>
 * Faults that took effect, in {@link #counts()} and, per stream in order, {@link #effects()}: a refusal always
 * (the caller got it); a lost answer only when it hid a committed write (HTTP 200 from the engine for a write
 * that was applied, not a token replay) — a lost answer to a read or to an error changed nothing.
 */
public final class DynamoFaults implements ExecutionInterceptor {

    private static final ExecutionAttribute<Call> CALL = new ExecutionAttribute<>("reconciler.DynamoFaults.call");
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final ObjectMapper CANONICAL = new ObjectMapper().configure(SerializationFeature.ORDER_MAP_ENTRIES_BY_KEYS, true);
    private static final String TOKEN = "ClientRequestToken";
    private static final String JSON_1_0 = "application/x-amz-json-1.0";
    /** moto refuses this transaction (ResourceNotFound) without touching any table; it is never logged as a write. */
    private static final byte[] REPLAY_PROBE = ("{\"TransactItems\":[{\"ConditionCheck\":{\"TableName\":\"p\","
            + "\"Key\":{\"k\":{\"S\":\"k\"}},\"ConditionExpression\":\"attribute_exists(k)\"}}]}").getBytes(StandardCharsets.UTF_8);
    /** For a (hypothetical) request shorter than the probe: an empty transaction, which changes nothing. */
    private static final byte[] EMPTY_TRANSACTION = "{\"TransactItems\":[]}".getBytes(StandardCharsets.UTF_8);

    private final long seed;
    private final Map<DynamoOperation, Map<Fault, Double>> probabilities;
    private final InstantSource clock;
    private final double itemConflict;
    private final Set<String> keyAttributes;
    private final Supplier<String> streamContext;
    private final AtomicBoolean enabled = new AtomicBoolean(true);
    private final Map<String, Stream> streams = new HashMap<>();
    private final List<Effect> effects = new ArrayList<>();
    /** The items of the TransactWriteItems attempts between their sending and their answer. */
    private final Map<Call, List<ItemRef>> inFlight = new HashMap<>();
    private final ClientTokens tokens = new ClientTokens();
    private final Map<DynamoOperation, Deque<Fault>> forced = new EnumMap<>(DynamoOperation.class);
    private final Map<Fault, Map<DynamoOperation, AtomicLong>> counts = new EnumMap<>(Fault.class);
    private final AtomicLong replays = new AtomicLong();
    private final AtomicLong mismatches = new AtomicLong();
    private final AtomicLong requestIds = new AtomicLong();

    private DynamoFaults(Builder builder) {
        this.seed = builder.seed;
        this.clock = builder.clock;
        this.itemConflict = builder.itemConflict;
        this.keyAttributes = Set.copyOf(builder.keyAttributes);
        this.streamContext = builder.streamContext;
        Map<DynamoOperation, Map<Fault, Double>> copy = new EnumMap<>(DynamoOperation.class);
        builder.probabilities.forEach((op, byFault) -> copy.put(op, Collections.unmodifiableMap(new EnumMap<>(byFault))));
        this.probabilities = Collections.unmodifiableMap(copy);
        for (Fault fault : Fault.values()) {
            Map<DynamoOperation, AtomicLong> byOp = new EnumMap<>(DynamoOperation.class);
            for (DynamoOperation op : DynamoOperation.values()) {
                byOp.put(op, new AtomicLong());
            }
            counts.put(fault, byOp);
        }
    }

    public static Builder builder(long seed) {
        return new Builder(seed);
    }

    /** The DynamoDB part of a {@code --faults} specification; throttling is split evenly between its two forms. */
    public static DynamoFaults from(FaultSpec spec, long seed, InstantSource clock) {
        return builderFrom(spec, seed).clock(clock).build();
    }

    /** {@link #from} before building, for a caller that also names its streams or key attributes. */
    public static Builder builderFrom(FaultSpec spec, long seed) {
        return builder(seed)
                .probability(Fault.TRANSACTION_CONFLICT, spec.ddbConflict(), DynamoOperation.TRANSACT_WRITE_ITEMS)
                .probability(Fault.PROVISIONED_THROUGHPUT_EXCEEDED, spec.ddbThrottle() / 2)
                .probability(Fault.THROTTLING, spec.ddbThrottle() / 2)
                .probability(Fault.RESPONSE_LOST, spec.ddbLostResponse())
                .itemConflict(spec.ddbItemConflict());
    }

    /** Resumes the random schedule (the initial state). */
    public void enable() {
        enabled.set(true);
    }

    /** Pauses the random schedule; forced faults and the token emulation go on. */
    public void disable() {
        enabled.set(false);
    }

    public boolean enabled() {
        return enabled.get();
    }

    /** The next {@code attempts} attempts of {@code operation} meet {@code fault}, before any scheduled fault. */
    public void inject(DynamoOperation operation, int attempts, Fault fault) {
        if (attempts < 1) {
            throw new IllegalArgumentException("attempts must be at least 1, was " + attempts);
        }
        if (!fault.appliesTo(operation)) {
            throw new IllegalArgumentException(fault + " cannot happen to " + operation.wireName());
        }
        synchronized (forced) {
            Deque<Fault> queue = forced.computeIfAbsent(operation, k -> new ArrayDeque<>());
            for (int i = 0; i < attempts; i++) {
                queue.add(fault);
            }
        }
    }

    /** Forced faults not yet used. */
    public int pendingInjections() {
        synchronized (forced) {
            return forced.values().stream().mapToInt(Deque::size).sum();
        }
    }

    /** A fault that took effect: the {@code attempt}-th attempt (from 1) of its stream met it. */
    public record Effect(String stream, int attempt, DynamoOperation operation, Fault fault) {
        @Override
        public String toString() {
            return attempt + ":" + operation.wireName() + ":" + fault;
        }
    }

    /** Every fault that took effect so far, in the order they did (across streams: as the threads happened to run). */
    public List<Effect> effects() {
        synchronized (effects) {
            return List.copyOf(effects);
        }
    }

    /** {@link #effects()} per stream, each in its stream's order: what a replay of the seed reproduces. */
    public SortedMap<String, List<String>> effectsByStream() {
        SortedMap<String, List<String>> byStream = new TreeMap<>();
        for (Effect effect : effects()) {
            byStream.computeIfAbsent(effect.stream(), k -> new ArrayList<>()).add(effect.toString());
        }
        byStream.values().forEach(list -> list.sort(Comparator.comparingInt(e -> Integer.parseInt(e.substring(0, e.indexOf(':'))))));
        return byStream;
    }

    /** Faults that took effect so far, every kind present. */
    public Map<Fault, Long> counts() {
        Map<Fault, Long> totals = new EnumMap<>(Fault.class);
        counts.forEach((fault, byOp) -> totals.put(fault, byOp.values().stream().mapToLong(AtomicLong::get).sum()));
        return totals;
    }

    public long count(Fault fault, DynamoOperation operation) {
        return counts.get(fault).get(operation).get();
    }

    public long totalFaults() {
        return counts().values().stream().mapToLong(Long::longValue).sum();
    }

    /** TransactWriteItems attempts answered from a committed token, without being applied. */
    public long tokenReplays() {
        return replays.get();
    }

    /** Requests refused with {@code IdempotentParameterMismatchException}. */
    public long tokenMismatches() {
        return mismatches.get();
    }

    public long seed() {
        return seed;
    }

    // ---- the interceptor ------------------------------------------------------------------------------

    @Override
    public Optional<RequestBody> modifyHttpContent(Context.ModifyHttpRequest context, ExecutionAttributes attributes) {
        Optional<DynamoOperation> operation = DynamoOperation.fromWireName(attributes.getAttribute(SdkExecutionAttribute.OPERATION_NAME));
        Optional<RequestBody> original = context.requestBody();
        if (operation.isEmpty() || original.isEmpty()) {
            return original;
        }
        byte[] body;
        try (InputStream in = original.get().contentStreamProvider().newStream()) {
            body = in.readAllBytes();
        } catch (IOException e) {
            throw new UncheckedIOException("DynamoFaults could not read the request body", e);
        }
        JsonNode json;
        try {
            json = JSON.readTree(body);
        } catch (IOException notJson) {
            return original;
        }
        String token = operation.get() == DynamoOperation.TRANSACT_WRITE_ITEMS && json.hasNonNull(TOKEN) ? json.get(TOKEN).asText() : null;
        Call call = new Call(operation.get(), canonicalHash(json), token, Math.max(1, json.path("TransactItems").size()), body,
                streamName(operation.get(), json), items(operation.get(), json));
        attributes.putAttribute(CALL, call);
        if (token == null) {
            return original;
        }
        // The body is chosen per attempt: a replay must not be applied again.
        ContentStreamProvider perAttempt = () -> new ByteArrayInputStream(call.replay != null ? call.probe() : call.body);
        return Optional.of(RequestBody.fromContentProvider(perAttempt, body.length, JSON_1_0));
    }

    @Override
    public void beforeTransmission(Context.BeforeTransmission context, ExecutionAttributes attributes) {
        Call call = attributes.getAttribute(CALL);
        if (call == null) {
            return;
        }
        call.replay = null;
        call.lose = false;
        answered(call);
        Decision decision = decide(call);
        call.decision = decision;
        Fault fault = decision.fault();
        if (fault != null && fault != Fault.RESPONSE_LOST) {
            tookEffect(decision, fault, call.operation);
            throw refusal(fault, call, decision.random());
        }
        if (call.token != null) {
            switch (tokens.begin(call.token, call.requestHash, call, clock.instant())) {
                case ClientTokens.Lookup.Replay replay -> call.replay = replay.response();
                case ClientTokens.Lookup.Mismatch mismatch -> {
                    mismatches.incrementAndGet();
                    throw serviceError(IdempotentParameterMismatchException.builder(), "IdempotentParameterMismatchException",
                            "Request token " + call.token + " was already used for a different request (ClientRequestToken "
                                    + "emulated by DynamoFaults)");
                }
                case ClientTokens.Lookup.InProgress inProgress -> throw serviceError(TransactionInProgressException.builder(),
                        "TransactionInProgressException", "Transaction with the same client request token is in progress");
                case ClientTokens.Lookup.Fresh fresh -> {
                    // sent as is
                }
            }
        }
        call.lose = fault == Fault.RESPONSE_LOST;
        if (call.operation == DynamoOperation.TRANSACT_WRITE_ITEMS && call.replay == null) {
            synchronized (inFlight) {
                inFlight.put(call, call.items);
            }
        }
    }

    @Override
    public SdkHttpResponse modifyHttpResponse(Context.ModifyHttpResponse context, ExecutionAttributes attributes) {
        Call call = attributes.getAttribute(CALL);
        if (call == null) {
            return context.httpResponse();
        }
        call.status = context.httpResponse().statusCode();
        // The engine has answered: the transaction is over, whatever the caller is about to learn of it.
        answered(call);
        if (call.replay == null) {
            return context.httpResponse();
        }
        return SdkHttpResponse.builder().statusCode(200).statusText("OK")
                .putHeader("Content-Type", JSON_1_0)
                .putHeader("Content-Length", Integer.toString(call.replay.length))
                .putHeader("x-amzn-RequestId", requestId())
                .build();
    }

    @Override
    public Optional<InputStream> modifyHttpResponseContent(Context.ModifyHttpResponse context, ExecutionAttributes attributes) {
        Call call = attributes.getAttribute(CALL);
        if (call == null || (call.token == null && !call.lose)) {
            return context.responseBody();
        }
        byte[] answer = drain(context.responseBody());
        if (call.replay != null) {
            replays.incrementAndGet();
            answer = call.replay;
        } else if (call.token != null) {
            if (call.status == 200) {
                tokens.committed(call.token, call.requestHash, call, answer, clock.instant());
            } else {
                tokens.ended(call.token, call);
            }
        }
        if (call.lose) {
            if (call.operation.isWrite() && call.status == 200 && call.replay == null) {
                tookEffect(call.decision, Fault.RESPONSE_LOST, call.operation);
            }
            throw SdkClientException.builder()
                    .message("Unable to execute HTTP request: Connection reset (DynamoFaults dropped the answer to an applied "
                            + call.operation.wireName() + ")")
                    .cause(new SocketException("Connection reset"))
                    .build();
        }
        return Optional.of(new ByteArrayInputStream(answer));
    }

    @Override
    public void onExecutionFailure(Context.FailedExecution context, ExecutionAttributes attributes) {
        Call call = attributes.getAttribute(CALL);
        if (call != null) {
            answered(call);
        }
        if (call != null && call.token != null) {
            tokens.ended(call.token, call);
        }
    }

    @Override
    public void afterExecution(Context.AfterExecution context, ExecutionAttributes attributes) {
        Call call = attributes.getAttribute(CALL);
        if (call != null) {
            answered(call);
        }
    }

    // ---- decisions ------------------------------------------------------------------------------------

    private record Decision(Fault fault, SplittableRandom random, String stream, int attempt) {
    }

    /** One seeded stream of draws: attempts take theirs in the order they are sent. */
    private static final class Stream {
        final SplittableRandom random;
        int attempts;

        Stream(SplittableRandom random) {
            this.random = random;
        }
    }

    private Decision decide(Call call) {
        SplittableRandom random;
        int attempt;
        synchronized (streams) {
            Stream stream = streams.computeIfAbsent(call.stream, name -> new Stream(new SplittableRandom(SeededHash.of(seed, name))));
            // Every attempt takes the same share of its stream, whatever it meets: a fault (or an overlap) now does not shift later draws.
            random = stream.random.split();
            attempt = ++stream.attempts;
        }
        double draw = random.nextDouble();
        double conflictDraw = random.nextDouble();
        synchronized (forced) {
            Deque<Fault> queue = forced.get(call.operation);
            if (queue != null && !queue.isEmpty()) {
                return new Decision(queue.poll(), random, call.stream, attempt);
            }
        }
        if (!enabled.get()) {
            return new Decision(null, random, call.stream, attempt);
        }
        if (call.operation.isSingleItemWrite() && conflictDraw < itemConflict && heldByATransaction(call)) {
            return new Decision(Fault.ITEM_CONFLICT, random, call.stream, attempt);
        }
        double bound = 0;
        for (Map.Entry<Fault, Double> entry : probabilities.getOrDefault(call.operation, Map.of()).entrySet()) {
            bound += entry.getValue();
            if (draw < bound) {
                return new Decision(entry.getKey(), random, call.stream, attempt);
            }
        }
        return new Decision(null, random, call.stream, attempt);
    }

    private boolean heldByATransaction(Call call) {
        synchronized (inFlight) {
            for (Map.Entry<Call, List<ItemRef>> held : inFlight.entrySet()) {
                if (held.getKey() != call && held.getValue().stream().anyMatch(item -> call.items.stream().anyMatch(item::sameItem))) {
                    return true;
                }
            }
            return false;
        }
    }

    /** The call's attempt got its answer (or will not get one): its transaction, if it is one, holds nothing now. */
    private void answered(Call call) {
        if (call.operation == DynamoOperation.TRANSACT_WRITE_ITEMS) {
            synchronized (inFlight) {
                inFlight.remove(call);
            }
        }
    }

    private void tookEffect(Decision decision, Fault fault, DynamoOperation operation) {
        counts.get(fault).get(operation).incrementAndGet();
        synchronized (effects) {
            effects.add(new Effect(decision.stream(), decision.attempt(), operation, fault));
        }
    }

    // ---- streams and items ----------------------------------------------------------------------------

    /** One item a request names: its table and its key (a Put names its whole item; its key is within it). */
    private record ItemRef(String table, Map<String, JsonNode> attributes, boolean wholeItem) {
        /** Two keys are equal; a key matches an item that contains it. Two whole items cannot be told apart without the key schema: only identical ones match. */
        boolean sameItem(ItemRef other) {
            if (!table.equals(other.table)) {
                return false;
            }
            if (wholeItem == other.wholeItem) {
                return attributes.equals(other.attributes);
            }
            Map<String, JsonNode> key = wholeItem ? other.attributes : attributes;
            Map<String, JsonNode> item = wholeItem ? attributes : other.attributes;
            return key.entrySet().stream().allMatch(e -> e.getValue().equals(item.get(e.getKey())));
        }
    }

    private static List<ItemRef> items(DynamoOperation operation, JsonNode json) {
        List<ItemRef> items = new ArrayList<>();
        switch (operation) {
            case UPDATE_ITEM, DELETE_ITEM -> items.add(itemRef(json.path("TableName").asText(), json.path("Key"), false));
            case PUT_ITEM -> items.add(itemRef(json.path("TableName").asText(), json.path("Item"), true));
            case TRANSACT_WRITE_ITEMS -> {
                for (JsonNode item : json.path("TransactItems")) {
                    for (String action : List.of("ConditionCheck", "Update", "Delete")) {
                        if (item.has(action)) {
                            items.add(itemRef(item.get(action).path("TableName").asText(), item.get(action).path("Key"), false));
                        }
                    }
                    if (item.has("Put")) {
                        items.add(itemRef(item.get("Put").path("TableName").asText(), item.get("Put").path("Item"), true));
                    }
                }
            }
            default -> { }
        }
        return List.copyOf(items);
    }

    private static ItemRef itemRef(String table, JsonNode attributes, boolean wholeItem) {
        Map<String, JsonNode> map = new HashMap<>();
        attributes.fields().forEachRemaining(e -> map.put(e.getKey(), e.getValue()));
        return new ItemRef(table, Map.copyOf(map), wholeItem);
    }

    /**
     * The stream a request draws from: the caller's context and the items it names by table and key — the
     * parts of a request that are the same on every run of a seed (a Put's item only by its declared key
     * attributes: the rest holds timestamps and owner ids).
     */
    private String streamName(DynamoOperation operation, JsonNode json) {
        String context = streamContext.get();
        List<String> parts = new ArrayList<>();
        switch (operation) {
            case GET_ITEM, UPDATE_ITEM, DELETE_ITEM -> parts.add(json.path("TableName").asText() + canonical(json.path("Key")));
            case PUT_ITEM -> parts.add(json.path("TableName").asText() + declaredKey(json.path("Item")));
            case QUERY -> parts.add(json.path("TableName").asText() + "/" + json.path("IndexName").asText() + " " + json.path("KeyConditionExpression").asText());
            case TRANSACT_WRITE_ITEMS -> {
                for (JsonNode item : json.path("TransactItems")) {
                    item.fields().forEachRemaining(action -> parts.add(action.getValue().path("TableName").asText()
                            + (action.getKey().equals("Put") ? declaredKey(action.getValue().path("Item")) : canonical(action.getValue().path("Key")))));
                }
            }
            case TRANSACT_GET_ITEMS -> json.path("TransactItems").forEach(item -> parts.add(item.path("Get").path("TableName").asText()
                    + canonical(item.path("Get").path("Key"))));
            case BATCH_GET_ITEM, BATCH_WRITE_ITEM -> json.path("RequestItems").fieldNames().forEachRemaining(parts::add);
            default -> parts.add(json.path("TableName").asText());
        }
        Collections.sort(parts);
        return (context == null ? "" : context) + " " + operation.wireName() + " " + String.join(" ", parts);
    }

    private String declaredKey(JsonNode item) {
        Map<String, JsonNode> key = new TreeMap<>();
        item.fields().forEachRemaining(e -> {
            if (keyAttributes.contains(e.getKey())) {
                key.put(e.getKey(), e.getValue());
            }
        });
        return canonical(JSON.valueToTree(key));
    }

    private static String canonical(JsonNode node) {
        try {
            return CANONICAL.writeValueAsString(JSON.convertValue(node, Object.class));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private AwsServiceException refusal(Fault fault, Call call, SplittableRandom random) {
        return switch (fault) {
            case TRANSACTION_CONFLICT -> {
                int conflicted = random.nextInt(call.itemCount);
                List<CancellationReason> reasons = new ArrayList<>();
                List<String> codes = new ArrayList<>();
                for (int i = 0; i < call.itemCount; i++) {
                    CancellationReason reason = i == conflicted
                            ? CancellationReason.builder().code("TransactionConflict").message("Transaction is ongoing for the item").build()
                            : CancellationReason.builder().code("None").build();
                    reasons.add(reason);
                    codes.add(reason.code());
                }
                String message = "Transaction cancelled, please refer cancellation reasons for specific reasons "
                        + String.join(", ", codes).transform(s -> "[" + s + "]");
                yield serviceError(TransactionCanceledException.builder().cancellationReasons(reasons), "TransactionCanceledException", message);
            }
            case PROVISIONED_THROUGHPUT_EXCEEDED -> serviceError(ProvisionedThroughputExceededException.builder(),
                    "ProvisionedThroughputExceededException",
                    "The level of configured provisioned throughput for the table was exceeded. Consider increasing your "
                            + "provisioning level with the UpdateTable API.");
            case THROTTLING -> serviceError(ThrottlingException.builder(), "ThrottlingException",
                    "Throughput exceeds the current throughput limit for your account. Please contact AWS Support at "
                            + "https://aws.amazon.com/support request a limit increase");
            case ITEM_CONFLICT -> serviceError(TransactionConflictException.builder(), "TransactionConflictException",
                    "Transaction is ongoing for the item");
            case RESPONSE_LOST -> throw new IllegalArgumentException("a lost response is not a refusal");
        };
    }

    /** Fills an exception the way the SDK's JSON error unmarshaller does for a 400 from DynamoDB. */
    private AwsServiceException serviceError(AwsServiceException.Builder builder, String code, String message) {
        String requestId = requestId();
        return builder.message(message).statusCode(400).requestId(requestId)
                .awsErrorDetails(AwsErrorDetails.builder().errorCode(code).errorMessage(message).serviceName("DynamoDb")
                        .sdkHttpResponse(SdkHttpResponse.builder().statusCode(400)
                                .putHeader("x-amzn-RequestId", requestId).build())
                        .build())
                .build();
    }

    private String requestId() {
        return "DYNAMOFAULTS" + String.format("%040d", requestIds.incrementAndGet());
    }

    private static byte[] drain(Optional<InputStream> body) {
        if (body.isEmpty()) {
            return new byte[0];
        }
        try (InputStream in = body.get()) {
            return in.readAllBytes();
        } catch (IOException e) {
            throw new UncheckedIOException("DynamoFaults could not read the response", e);
        }
    }

    /** Hash of the request as DynamoDB compares it for the token: everything but the token, key order ignored. */
    private static String canonicalHash(JsonNode json) {
        try {
            @SuppressWarnings("unchecked")
            Map<String, Object> fields = JSON.convertValue(json, Map.class);
            fields.remove(TOKEN);
            byte[] canonical = CANONICAL.writeValueAsBytes(fields);
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(canonical));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 unavailable", e);
        }
    }

    /** One API call through the layer; its attempts run one after another on the calling thread. */
    private static final class Call {
        final DynamoOperation operation;
        final String requestHash;
        final String token;
        final int itemCount;
        final byte[] body;
        final String stream;
        final List<ItemRef> items;
        volatile byte[] replay;
        volatile boolean lose;
        volatile int status;
        volatile Decision decision;

        Call(DynamoOperation operation, String requestHash, String token, int itemCount, byte[] body, String stream, List<ItemRef> items) {
            this.operation = operation;
            this.requestHash = requestHash;
            this.token = token;
            this.itemCount = itemCount;
            this.body = body;
            this.stream = stream;
            this.items = items;
        }

        /** What a replayed attempt sends instead of the request, padded to the request's declared length. */
        byte[] probe() {
            byte[] probe = body.length >= REPLAY_PROBE.length ? REPLAY_PROBE : EMPTY_TRANSACTION;
            byte[] padded = Arrays.copyOf(probe, Math.max(body.length, probe.length));
            Arrays.fill(padded, probe.length, padded.length, (byte) ' ');
            return padded;
        }
    }

    /** Probabilities per fault and operation; every fault starts at 0. */
    public static final class Builder {
        private final long seed;
        private InstantSource clock = InstantSource.system();
        private double itemConflict;
        private Set<String> keyAttributes = Set.of();
        private Supplier<String> streamContext = () -> "";
        private final Map<DynamoOperation, Map<Fault, Double>> probabilities = new EnumMap<>(DynamoOperation.class);

        private Builder(long seed) {
            this.seed = seed;
        }

        /** The clock of the token window (10 minutes after a token's request completed). */
        public Builder clock(InstantSource clock) {
            this.clock = java.util.Objects.requireNonNull(clock, "clock");
            return this;
        }

        /**
         * A PutItem, UpdateItem or DeleteItem sent while a TransactWriteItems in flight names its item is refused with
         * {@code TransactionConflictException} with this probability (0, the default: never).
         */
        public Builder itemConflict(double probability) {
            if (!(probability >= 0 && probability <= 1)) {
                throw new IllegalArgumentException("probability of " + Fault.ITEM_CONFLICT + " must be from 0 to 1, was " + probability);
            }
            this.itemConflict = probability;
            return this;
        }

        /** The attribute names that are keys in the caller's tables: what names a Put's item in its stream. */
        public Builder keyAttributes(Set<String> names) {
            this.keyAttributes = Set.copyOf(names);
            return this;
        }

        /**
         * Names the caller of the current request (read on the calling thread; the SDK's sync client runs the
         * interceptors there): requests of one caller on one item form one stream.
         */
        public Builder streamContext(Supplier<String> context) {
            this.streamContext = java.util.Objects.requireNonNull(context, "context");
            return this;
        }

        /**
         * Per attempt, {@code fault} with {@code probability} on {@code operations} (every operation it can
         * happen to when none are named).
         */
        public Builder probability(Fault fault, double probability, DynamoOperation... operations) {
            if (!(probability >= 0 && probability <= 1)) {
                throw new IllegalArgumentException("probability of " + fault + " must be from 0 to 1, was " + probability);
            }
            if (fault == Fault.ITEM_CONFLICT) {
                throw new IllegalArgumentException(fault + " happens only to a write on an item a transaction holds: use itemConflict(probability)");
            }
            List<DynamoOperation> targets = operations.length == 0
                    ? Arrays.stream(DynamoOperation.values()).filter(fault::appliesTo).toList()
                    : List.of(operations);
            for (DynamoOperation op : targets) {
                if (!fault.appliesTo(op)) {
                    throw new IllegalArgumentException(fault + " cannot happen to " + op.wireName());
                }
                probabilities.computeIfAbsent(op, k -> new EnumMap<>(Fault.class)).put(fault, probability);
            }
            return this;
        }

        public DynamoFaults build() {
            probabilities.forEach((op, byFault) -> {
                double sum = byFault.values().stream().mapToDouble(Double::doubleValue).sum();
                if (sum > 1 + 1e-9) {
                    throw new IllegalArgumentException("the fault probabilities of " + op.wireName()
                            + " sum to " + sum + "; one attempt meets at most one fault, so they must not exceed 1: " + byFault);
                }
            });
            return new DynamoFaults(this);
        }
    }
}
