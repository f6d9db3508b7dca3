package com.payments.reconciler.harness.local;

import com.payments.reconciler.cli.operator.ExecutionFollower;

import com.payments.reconciler.testing.LocalAwsClients;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.payments.reconciler.audit.StoreSnapshot;
import com.payments.reconciler.cli.ExitCodes;
import com.payments.reconciler.harness.HarnessCli;
import com.payments.reconciler.reconcile.CandidateFinder;
import com.payments.reconciler.reconcile.Candidate;
import com.payments.reconciler.reconcile.Shards;
import com.payments.reconciler.store.AwsClients;
import com.payments.reconciler.store.TableSchema;
import com.payments.reconciler.store.Tables.Authorisations;
import com.payments.reconciler.store.Tables.Leases;
import com.payments.reconciler.store.Tables.ReleaseCommands;
import com.payments.reconciler.store.Tables.Settlements;
import com.payments.reconciler.workflow.EnvVars;
import com.payments.reconciler.workflow.HandlerEnvironment;
import com.payments.reconciler.workflow.Json;
import com.payments.reconciler.workflow.LambdaFunction;
import com.sun.net.httpserver.HttpServer;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.function.Consumer;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;

/**
 * Bad input, nothing written: one table of malformed inputs across every surface the job reads —
 * Scheduler events, each handler's execution input, CLI flags and fault specs, authorisation items,
 * provider responses. Each row asserts a clear error naming the problem and, from a dump of every table
 * and moto's write log (what was applied, whoever sent it), that nothing was written.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class BadInputTableTest {

    private static final Path BUILD = Path.of(System.getProperty("reconciler.target"));
    private static final String OWNER = "reconcile-2026-12-01/" + UUID.nameUUIDFromBytes("bad-input".getBytes(StandardCharsets.UTF_8));
    private static final String GOOD = "auth-good";
    private static final String BAD = "auth-bad";
    private static final Set<String> BUSINESS = Set.of(Authorisations.SCHEMA.logicalName(), ReleaseCommands.SCHEMA.logicalName(), Settlements.SCHEMA.logicalName());

    private PipelineFixture world;
    /** An authorisation row's malformed item as it was stored, before the window ran. */
    private Map<String, AttributeValue> badItemAsStored;

    /** What a row may have written: nothing at all, or nothing to one item, or nothing to the business tables. */
    /** What a bad input may change: nothing; nothing about the bad item; only the command the bad answer was about (quarantined). */
    enum Scope { NOTHING, THE_BAD_ITEM, ONLY_THE_QUARANTINED_COMMAND }

    @FunctionalInterface
    interface Attempt {
        /** Feeds the bad input; returns the error the system answered with (the row fails if there was none). */
        String run(BadInputTableTest test) throws Exception;
    }

    record Row(String surface, String input, Attempt attempt, String named, Scope scope) {
        @Override
        public String toString() {
            return surface + ": " + input;
        }
    }

    @BeforeAll
    void start() {
        world = new PipelineFixture("bad-input");
    }

    @AfterAll
    void stop() {
        world.close();
    }

    static Stream<Row> rows() {
        List<Row> rows = new ArrayList<>();
        // Scheduler events, delivered to StartWindow through the Lambda Invoke API.
        for (String[] event : new String[][] {
                {"{}", "scheduledTime"}, {"{\"scheduledTime\":null}", "scheduledTime"}, {"{\"scheduledTime\":\"2026-12-01\"}", "scheduledTime"},
                {"{\"scheduledTime\":\"soon\"}", "scheduledTime"}, {"{\"scheduledTime\":42}", "scheduledTime"},
                {"{\"scheduledTime\":\"2026-12-01T02:00:00Z\",\"attempt\":2}", "attempt"}, {"[]", "input"}, {"not json", "input"},
                {"{\"scheduledTime\":\"2099-01-01T02:00:00Z\"}", "window"}, {"{\"scheduledTime\":\"2020-01-01T02:00:00Z\"}", "window"}}) {
            rows.add(new Row("Scheduler event", event[0], t -> t.invoke(LambdaFunction.START_WINDOW, event[0]), event[1], Scope.NOTHING));
        }
        // Execution inputs, to each handler of the workflow.
        rows.add(handler(LambdaFunction.ACQUIRE_LEASE, "ownerId missing", p -> p.remove("ownerId"), "ownerId"));
        rows.add(handler(LambdaFunction.ACQUIRE_LEASE, "ownerId not {execution}/{uuid}", p -> p.put("ownerId", "nobody"), "ownerId"));
        rows.add(handler(LambdaFunction.ACQUIRE_LEASE, "shards in the input", p -> ((ObjectNode) p.get("window")).put("shards", 1), "shards: unknown field"));
        rows.add(handler(LambdaFunction.ACQUIRE_LEASE, "a grace in the input",
                p -> ((ObjectNode) p.get("window")).put("gracePeriod", "PT1H"), "gracePeriod: unknown field"));
        rows.add(handler(LambdaFunction.ACQUIRE_LEASE, "dryRun missing", p -> ((ObjectNode) p.get("window")).remove("dryRun"), "dryRun"));
        rows.add(handler(LambdaFunction.ACQUIRE_LEASE, "unknown field", p -> p.put("epoch", 7), "epoch"));
        rows.add(handler(LambdaFunction.RECONCILE_PAGE, "lease missing", p -> p.remove("lease"), "lease"));
        rows.add(handler(LambdaFunction.RECONCILE_PAGE, "epoch not a number", p -> ((ObjectNode) p.get("lease")).put("epoch", "x"), "epoch"));
        rows.add(handler(LambdaFunction.RECONCILE_PAGE, "dryRun not a boolean", p -> ((ObjectNode) p.get("window")).put("dryRun", "maybe"), "dryRun"));
        rows.add(handler(LambdaFunction.RECONCILE_PAGE, "windowId missing", p -> ((ObjectNode) p.get("window")).remove("windowId"), "windowId"));
        rows.add(handler(LambdaFunction.RECONCILE_PAGE, "unknown field", p -> p.put("force", true), "force"));
        rows.add(handler(LambdaFunction.DELIVER_COMMANDS, "shard missing", p -> p.remove("shard"), "shard"));
        rows.add(handler(LambdaFunction.DELIVER_COMMANDS, "shard beyond the window's shards", p -> p.put("shard", 99), "shard"));
        rows.add(handler(LambdaFunction.DELIVER_COMMANDS, "lease ownerId missing", p -> ((ObjectNode) p.get("lease")).remove("ownerId"), "ownerId"));
        rows.add(handler(LambdaFunction.RELEASE_LEASE, "lease missing", p -> p.remove("lease"), "lease"));
        rows.add(handler(LambdaFunction.RELEASE_LEASE, "unknown field", p -> p.put("extra", 1), "extra"));
        // CLI flags and fault specs: exit 2 naming the flag, no engine started, nothing written.
        for (String[] usage : new String[][] {
                {"local --authorisations -1", "--authorisations"}, {"local --settled-fraction 1.5", "--settled-fraction"},
                {"local --settled-fraction x", "--settled-fraction"}, {"local --scenario chaos-monkey", "--scenario"},
                {"local --window 2026-13-01", "--window"}, {"local --window tomorrow", "--window"}, {"local --window 2020-01-01", "window"},
                {"local --shards 0", "--shards: must be an integer from 1 to 64"}, {"local --shards -3", "--shards: must be an integer from 1 to 64, was -3"},
                {"local --grace-period 72h", "--grace-period: must be an ISO-8601 duration such as PT72H"},
                {"local --time-zone Mars/Olympus", "--time-zone: must be an IANA time zone"},
                {"local --schedule-time 25:00", "--schedule-time: must be a time of day HH:mm"}, {"local --horizon-days 0", "--horizon-days"},
                {"local --window " + java.time.LocalDate.now(java.time.ZoneOffset.UTC).minusDays(40), "raise --horizon-days"},
                {"local --seed abc", "--seed: must be an integer, was 'abc'"}, {"local --authorisations many", "--authorisations: must be an integer"},
                {"local --faults ddb-conflict=2", "--faults: ddb-conflict must be from 0 to 1"},
                {"local --dump-state /proc/nope", "--dump-state: cannot write to /proc/nope"},
                {"local --dump-state " + BUILD.resolve("bad-input-cli-dump-" + UUID.randomUUID()) + " --shards 0", "--shards"},
                {"local --events " + BUILD.resolve("no-such-events.jsonl"), "--events: " + BUILD.resolve("no-such-events.jsonl") + " is not a readable file"},
                {"local --events " + eventsFile("not-json", "{\"version\":1}", "", "not json at all") + " --dump-state "
                        + BUILD.resolve("bad-input-cli-dump-" + UUID.randomUUID()), "line 3 is not a JSON object"},
                {"local --events " + eventsFile("array", "[1,2]"), "line 1 is not a JSON object"},
                {"local --events " + eventsFile("two-objects", "{} {}"), "line 1 is not a JSON object"},
                {"local --events " + eventsFile("empty", "", " "), "holds no events"},
                {"local --events " + eventsFile("good", "{}") + " --authorisations 5", "--authorisations: shapes the synthetic data"},
                {"chaos --dump-state /proc/nope", "--dump-state: cannot write to /proc/nope"},
                {"bench --seed abc", "--seed: must be an integer"}, {"bench --sizes 10,x", "--sizes: must be an integer"},
                {"local --no-such-flag", "--no-such-flag"}, {"local --faults ddb-conflict=x", "--faults"},
                {"local --faults ddb-conflict=0.6,ddb-throttle=0.6", "--faults"},
                {"chaos --schedules 0", "--schedules"}, {"chaos --schedules many", "--schedules"}, {"chaos --seed abc", "--seed"},
                {"chaos --faults bogus=1", "--faults"}, {"chaos --faults ddb-conflict=2", "--faults"}, {"chaos --faults provider-drop=0.1", "--faults"},
                {"chaos --replay yesterday", "--replay"},
                {"local --provider-key-retention 24h", "--provider-key-retention must be an ISO-8601 duration above zero and at most P366D"},
                {"local --provider-key-retention PT0S", "--provider-key-retention must be an ISO-8601 duration above zero"},
                {"chaos --provider-key-retention P400D", "--provider-key-retention must be an ISO-8601 duration above zero and at most P366D"},
                {"local --provider paypal", "--provider: must be one of generic-http | stripe | adyen, was 'paypal'"},
                {"local --provider adyen --engine lambda-sandboxes", "--engine: lambda-sandboxes cannot run --provider adyen"},
                {"local --provider adyen --scenario provider-lost-response", "--scenario: provider-lost-response acts on the simulated provider"},
                {"local --provider adyen --faults provider-drop=0.1", "--faults: provider-* faults act on the simulated provider"},
                {"local --provider adyen --provider-key-retention P40D", "--provider-key-retention: must be at most PT744H with --provider adyen"},
                {"chaos --provider adyen --mutant new-key-per-retry", "--mutant: new-key-per-retry is a proxy in front of the simulated provider"},
                {"chaos --mutant webhook-hmac-skipped", "--mutant: webhook-hmac-skipped is in the Adyen webhook receiver; give it with --provider adyen"},
                {"local --provider stripe --provider-key-retention P2D", "--provider-key-retention: must be at most PT24H with --provider stripe"},
                {"chaos --provider Stripe", "--provider: must be one of generic-http | stripe | adyen"},
                {"bench --provider none", "--provider: must be one of generic-http | stripe | adyen"},
                // The operator's commands' own bad usage is cli's OperatorBadUsageTest; here, that the harness's
                // command line still refuses an unknown command and an operator command's bad flag the same way.
                {"start --window 2026-12-01 --grace-period PT1H", "--grace-period"}, {"frobnicate", "frobnicate"}}) {
            rows.add(new Row("CLI", usage[0], t -> t.cli(usage[0]), usage[1], Scope.NOTHING));
        }
        // A window that has not started yet would shorten the grace period; refused on every path
        // (start and rerun: OperatorBadUsageTest).
        String tomorrow = java.time.LocalDate.now(java.time.ZoneOffset.UTC).plusDays(1).toString();
        for (String early : new String[] {"local --window " + tomorrow}) {
            rows.add(new Row("CLI", early, t -> t.cli(early), "cannot start before its window start", Scope.NOTHING));
        }
        // Authorisation items the index returns: refused by name and attribute, skipped, never written.
        rows.add(item("currency missing", i -> i.remove(Authorisations.CURRENCY), "authorisation[" + BAD + "].currency"));
        rows.add(item("currency a number", i -> i.put(Authorisations.CURRENCY, AttributeValue.fromN("978")), "authorisation[" + BAD + "].currency"));
        rows.add(item("currency not ISO-4217", i -> i.put(Authorisations.CURRENCY, AttributeValue.fromS("euro")), "authorisation[" + BAD + "].currency"));
        rows.add(item("amountMinor a string", i -> i.put(Authorisations.AMOUNT_MINOR, AttributeValue.fromS("12.50")), "authorisation[" + BAD + "].amountMinor"));
        rows.add(item("amountMinor not an integer", i -> i.put(Authorisations.AMOUNT_MINOR, AttributeValue.fromN("12.5")), "authorisation[" + BAD + "].amountMinor"));
        rows.add(item("amountMinor negative", i -> i.put(Authorisations.AMOUNT_MINOR, AttributeValue.fromN("-100")), "authorisation[" + BAD + "].amountMinor"));
        rows.add(item("version missing", i -> i.remove(Authorisations.VERSION), "authorisation[" + BAD + "].version"));
        rows.add(item("version a string", i -> i.put(Authorisations.VERSION, AttributeValue.fromS("one")), "authorisation[" + BAD + "].version"));
        // Provider responses to a delivery: a contract violation naming the problem; the command is QUARANTINED, the rest goes on.
        rows.add(provider("200 that is not JSON", 200, "text/html", "<html>gateway says hi</html>", "not a JSON object"));
        rows.add(provider("unexpected status 302", 302, "application/json", "{}", "answered 302"));
        rows.add(provider("unexpected status 404", 404, "application/json", "{}", "answered 404"));
        rows.add(provider("2xx for another operation id", 200, "application/json",
                "{\"operationId\":\"release-hold:auth-9\",\"authorisationId\":\"" + GOOD + "\",\"status\":\"RELEASED\",\"providerReference\":\"PRV-1\"}",
                "field operationId is 'release-hold:auth-9', expected 'release-hold:" + GOOD + "'"));
        rows.add(provider("unexpected status 400", 400, "application/json", "{\"error\":\"BAD_REQUEST\"}", "answered 400"));
        rows.add(provider("422 idempotency key reused", 422, "application/json", "{\"error\":\"IDEMPOTENCY_KEY_REUSED\"}", "Idempotency-Key"));
        return rows.stream();
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("rows")
    void badInputIsRefusedNamingTheProblemAndNothingIsWritten(Row row) throws Exception {
        world.pipeline.reset();
        // The reset emptied the tables, the fixture's feed watermark with them: vouched for again up to now, so a night here
        // refuses for the row's bad input, never ends FeedNotComplete before reaching it.
        world.pipeline.settlementFeedComplete();
        boolean itemRow = row.scope() == Scope.THE_BAD_ITEM;
        if (!itemRow) {
            seedLeaseAndAuthorisation();
        }
        boolean providerRow = row.scope() == Scope.ONLY_THE_QUARANTINED_COMMAND;
        if (providerRow) {
            seedPendingCommand();
        }
        if (itemRow) {
            seedGood();
        }
        Map<String, List<Map<String, AttributeValue>>> before = dump();
        world.pipeline.writeLog().clear();

        String error = row.attempt().run(this);

        assertThat(error).as("the error names the problem").contains(row.named());
        switch (row.scope()) {
            case NOTHING -> {
                assertThat(world.pipeline.writeLog().entries()).as("writes applied").isEmpty();
                assertThat(dump()).isEqualTo(before);
                assertThat(world.pipeline.sfn().listExecutions(b -> b.stateMachineArn(world.pipeline.stateMachineArn())).executions())
                        .as("executions started").isEmpty();
            }
            case THE_BAD_ITEM -> {
                assertThat(world.pipeline.writeLog().entries()).as("writes touching " + BAD)
                        .noneMatch(e -> e.request().toString().contains("\"" + BAD + "\""));
                assertThat(dump().get(Authorisations.SCHEMA.logicalName())).as("the bad item, unchanged").contains(badItemAsStored);
                assertThat(dump().get(ReleaseCommands.SCHEMA.logicalName())).as("commands")
                        .noneMatch(c -> BAD.equals(c.get(ReleaseCommands.AUTHORISATION_ID).s()))
                        .anyMatch(c -> GOOD.equals(c.get(ReleaseCommands.AUTHORISATION_ID).s()));
                assertThat(world.pipeline.provider().effects()).noneMatch(e -> BAD.equals(e.authorisationId()));
            }
            case ONLY_THE_QUARANTINED_COMMAND -> {
                // The answer parks its command for a person (status, excerpt); nothing else is written but the
                // first-attempt stamp that goes before any request (keys the provider forgets).
                List<String> business = BUSINESS.stream().map(t -> "\"" + world.pipeline.tables().nameOf(schemaNamed(t)) + "\"").toList();
                assertThat(world.pipeline.writeLog().entries()).as("business writes applied")
                        .filteredOn(e -> business.stream().anyMatch(table -> e.request().toString().contains(table)))
                        .filteredOn(e -> !e.request().toString().contains(ReleaseCommands.FIRST_ATTEMPT_AT))
                        .singleElement().satisfies(e -> assertThat(e.request().toString()).contains(ReleaseCommands.STATUS_QUARANTINED));
                for (String table : BUSINESS) {
                    if (!table.equals(ReleaseCommands.SCHEMA.logicalName())) {
                        assertThat(dump().get(table)).as(table).isEqualTo(before.get(table));
                    }
                }
                assertThat(world.pipeline.provider().effects()).as("the simulated provider was not the one answering").isEmpty();
            }
        }
    }

    // ---- the surfaces --------------------------------------------------------------------------------

    private static Row handler(LambdaFunction function, String what, Consumer<ObjectNode> spoil, String named) {
        return new Row(function.logicalName() + " input", what, t -> {
            ObjectNode payload = t.validPayload(function);
            spoil.accept(payload);
            return t.invoke(function, payload.toString());
        }, named, Scope.NOTHING);
    }

    private static Row item(String what, Consumer<Map<String, AttributeValue>> spoil, String named) {
        return new Row("authorisation item", what, t -> t.runWindowWith(spoil), named, Scope.THE_BAD_ITEM);
    }

    private static Row provider(String what, int status, String contentType, String body, String named) {
        return new Row("provider response", what, t -> t.deliverAgainst(status, contentType, body), named, Scope.ONLY_THE_QUARANTINED_COMMAND);
    }

    /** Invokes a function through the local Lambda Invoke API; returns its error type and message. */
    String invoke(LambdaFunction function, String payload) throws Exception {
        URI uri = world.pipeline.lambdaEndpoint().resolve("/2015-03-31/functions/" + function.logicalName() + "/invocations");
        try (HttpClient http = HttpClient.newHttpClient()) {
            HttpResponse<String> response = http.send(HttpRequest.newBuilder(uri).POST(HttpRequest.BodyPublishers.ofString(payload)).build(),
                    HttpResponse.BodyHandlers.ofString());
            if (response.headers().firstValue("X-Amz-Function-Error").isEmpty()) {
                fail(function.logicalName() + " accepted " + payload + ": " + response.body());
            }
            JsonNode error = Json.mapper().readTree(response.body());
            assertThat(error.path("errorType").asText()).as("a bad input, never retried").endsWith("InvalidInput");
            return error.path("errorMessage").asText();
        }
    }

    String cli(String commandLine) {
        Path workDir = BUILD.resolve("bad-input-cli-" + UUID.randomUUID());
        List<String> args = new ArrayList<>(List.of(commandLine.split(" ")));
        if (args.getFirst().equals("local") || args.getFirst().equals("chaos") || args.getFirst().equals("bench")) {
            args.addAll(List.of("--work-dir", workDir.toString()));
        }
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        int exit = HarnessCli.execute(args.toArray(String[]::new), new PrintWriter(out, true), new PrintWriter(err, true));
        assertThat(exit).as(out + "" + err).isEqualTo(ExitCodes.BAD_INPUT);
        assertThat(out.toString()).as("nothing reported as done").isEmpty();
        assertThat(Files.exists(workDir)).as("no engine started in " + workDir).isFalse();
        int dump = args.indexOf("--dump-state");
        if (dump >= 0) {
            assertThat(Path.of(args.get(dump + 1))).as("no state dump directory created").doesNotExist();
        }
        assertThat(messageProblems(err.toString(), USAGE_ROWS.stream().anyMatch(commandLine::startsWith))).isEmpty();
        return err.toString();
    }

    /** Rows whose error is followed by the usage text: an unknown flag or a missing argument. */
    static final List<String> USAGE_ROWS = List.of("local --no-such-flag", "start --window 2026-12-01", "frobnicate");
    /** A Java exception's name or a package-qualified class in a message: what a person cannot act on. */
    static final java.util.regex.Pattern EXCEPTION_TEXT =
            java.util.regex.Pattern.compile("[A-Z]\\w*(Exception|Error)\\b|\\b(java|javax|picocli|software\\.amazon)\\.[a-z]");

    /** One line naming the problem, no exception text, the usage text only where it helps (as cli's OperatorBadUsageTest). */
    static List<String> messageProblems(String err, boolean usageExpected) {
        List<String> problems = new ArrayList<>();
        String first = err.lines().findFirst().orElse("");
        if (!first.startsWith("error: ")) {
            problems.add("the first line is not the error: " + first);
        }
        if (EXCEPTION_TEXT.matcher(first).find()) {
            problems.add("exception text in the message: " + first);
        }
        if (usageExpected != err.contains("Usage: ")) {
            problems.add(usageExpected ? "no usage after an unknown flag or a missing argument" : "the usage text follows a bad value");
        }
        if (!usageExpected && err.lines().count() != 1) {
            problems.add("not one line but " + err.lines().count());
        }
        return problems;
    }

    /** An events file under the build directory with these lines. */
    static String eventsFile(String name, String... lines) {
        try {
            Path file = BUILD.resolve("bad-events-" + name + "-" + UUID.randomUUID() + ".jsonl");
            Files.write(file, List.of(lines), StandardCharsets.UTF_8);
            return file.toString();
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    /** Loads a good and a spoiled authorisation, runs the whole window; returns how the finder refused the bad one. */
    String runWindowWith(Consumer<Map<String, AttributeValue>> spoil) {
        Map<String, AttributeValue> bad = authorisation(BAD);
        spoil.accept(bad);
        world.pipeline.dynamo().putItem(b -> b.tableName(world.pipeline.tables().authorisations()).item(bad));
        badItemAsStored = world.pipeline.dynamo().getItem(b -> b.tableName(world.pipeline.tables().authorisations())
                .key(Map.of(Authorisations.AUTHORISATION_ID, AttributeValue.fromS(BAD))).consistentRead(true)).item();
        world.pipeline.writeLog().clear();
        ExecutionFollower.Followed run = world.run("reconcile-2026-12-01");
        assertThat(run.succeeded()).as("one bad item does not stop the window: %s %s", run.error(), run.cause()).isTrue();
        assertThat(readTree(run.output().orElseThrow()).at("/reconcile/malformed").asInt()).as("counted as malformed").isEqualTo(1);
        CandidateFinder.Page page = new CandidateFinder(world.pipeline.dynamo(), world.pipeline.tables().authorisations())
                .page(Shards.of(BAD, world.input().shards()), world.input().cutoff(), Map.of(), 100);
        assertThat(page.malformed()).singleElement().satisfies(m -> assertThat(m.authorisationId()).isEqualTo(BAD));
        return page.malformed().getFirst().problem();
    }

    /** Delivers the pending command against a provider that answers {@code status} with {@code body}; returns the error. */
    String deliverAgainst(int status, String contentType, String body) throws Exception {
        HttpServer provider = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 8);
        provider.createContext("/", exchange -> {
            try (exchange) {
                exchange.getRequestBody().readAllBytes();
                byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
                exchange.getResponseHeaders().add("Content-Type", contentType);
                exchange.sendResponseHeaders(status, bytes.length);
                exchange.getResponseBody().write(bytes);
            }
        });
        provider.start();
        try {
            Map<String, String> env = new HashMap<>(world.pipeline.handlerEnvironment());
            env.put(EnvVars.PROVIDER_BASE_URL, "http://127.0.0.1:" + provider.getAddress().getPort());
            var handler = LocalPipeline.instantiate(LambdaFunction.DELIVER_COMMANDS,
                    new HandlerEnvironment(env, new LocalAwsClients(world.pipeline.moto().endpoint(), List.of()), world.clock));
            ObjectNode payload = validPayload(LambdaFunction.DELIVER_COMMANDS);
            payload.put("shard", Shards.of(GOOD, world.input().shards()));
            handler.handleRequest(new ByteArrayInputStream(payload.toString().getBytes(StandardCharsets.UTF_8)),
                    new ByteArrayOutputStream(), new LocalContext(LambdaFunction.DELIVER_COMMANDS));
            Map<String, AttributeValue> command = world.pipeline.dynamo().getItem(b -> b.tableName(world.pipeline.tables().releaseCommands())
                    .consistentRead(true).key(Map.of(ReleaseCommands.OPERATION_ID, AttributeValue.fromS(Candidate.operationIdFor(GOOD))))).item();
            if (!ReleaseCommands.STATUS_QUARANTINED.equals(command.get(ReleaseCommands.STATUS).s())) {
                return fail("the delivery accepted a " + status + " answer: " + body + "; the command is " + command.get(ReleaseCommands.STATUS).s());
            }
            assertThat(command.get(ReleaseCommands.END_REASON).s()).as("the answer kept for a person").contains("status " + status);
            return command.get(ReleaseCommands.END_REASON).s();
        } finally {
            provider.stop(0);
        }
    }

    // ---- state ----------------------------------------------------------------------------------------

    ObjectNode validPayload(LambdaFunction function) throws Exception {
        ObjectNode payload = Json.mapper().createObjectNode();
        // AcquireLease reads the execution input (window and dryRun only); the later tasks the night it resolved.
        payload.set("window", Json.mapper().readTree(function == LambdaFunction.ACQUIRE_LEASE
                ? PipelineFixture.CONFIG.inputFor(PipelineFixture.WINDOW).toJson() : world.input().toJson()));
        ObjectNode lease = Json.mapper().createObjectNode().put("leaseName", EnvVars.DEFAULT_LEASE_NAME).put("ownerId", OWNER).put("epoch", 1);
        switch (function) {
            case ACQUIRE_LEASE -> payload.put("ownerId", OWNER);
            case RECONCILE_PAGE -> {
                payload.set("lease", lease);
                payload.putObject("page").putNull("cursor");
            }
            case DELIVER_COMMANDS -> {
                payload.set("lease", lease);
                payload.put("shard", 0);
                payload.putNull("batch");
            }
            case RELEASE_LEASE -> {
                payload.set("lease", lease);
                payload.putNull("reconcile");
                payload.putNull("deliveries");
            }
            default -> throw new IllegalArgumentException(function + " takes no execution input");
        }
        return payload;
    }

    private void seedLeaseAndAuthorisation() {
        long now = world.clock.millis();
        world.pipeline.dynamo().putItem(b -> b.tableName(world.pipeline.tables().leases()).item(Map.of(
                Leases.LEASE_NAME, AttributeValue.fromS(EnvVars.DEFAULT_LEASE_NAME), Leases.OWNER, AttributeValue.fromS(OWNER),
                Leases.EPOCH, AttributeValue.fromN("1"), Leases.EXPIRES_AT, AttributeValue.fromN(Long.toString(now + 300_000)),
                Leases.ACQUIRED_AT, AttributeValue.fromN(Long.toString(now)))));
        seedGood();
    }

    private void seedGood() {
        world.pipeline.dynamo().putItem(b -> b.tableName(world.pipeline.tables().authorisations()).item(authorisation(GOOD)));
    }

    private void seedPendingCommand() {
        String shard = Shards.key(Shards.of(GOOD, world.input().shards()));
        world.pipeline.dynamo().updateItem(b -> b.tableName(world.pipeline.tables().authorisations())
                .key(Map.of(Authorisations.AUTHORISATION_ID, AttributeValue.fromS(GOOD)))
                .updateExpression("SET #s = :rr, version = :two REMOVE pendingShard")
                .expressionAttributeNames(Map.of("#s", Authorisations.STATE))
                .expressionAttributeValues(Map.of(":rr", AttributeValue.fromS(Authorisations.STATE_RELEASE_REQUESTED), ":two", AttributeValue.fromN("2"))));
        Map<String, AttributeValue> command = new HashMap<>();
        command.put(ReleaseCommands.OPERATION_ID, AttributeValue.fromS("release-hold:" + GOOD));
        command.put(ReleaseCommands.AUTHORISATION_ID, AttributeValue.fromS(GOOD));
        command.put(ReleaseCommands.STATUS, AttributeValue.fromS(ReleaseCommands.STATUS_PENDING));
        command.put(ReleaseCommands.EPOCH, AttributeValue.fromN("1"));
        command.put(ReleaseCommands.ISSUED_BY, AttributeValue.fromS(OWNER));
        command.put(ReleaseCommands.WINDOW_ID, AttributeValue.fromS(world.input().windowId()));
        command.put(ReleaseCommands.CREATED_AT, AttributeValue.fromN(Long.toString(world.clock.millis())));
        command.put(ReleaseCommands.ATTEMPTS, AttributeValue.fromN("0"));
        // As this release creates a command: no stamp then means never sent, so delivery stamps it before its request.
        command.put(ReleaseCommands.STAMPS_FIRST_ATTEMPT, AttributeValue.fromBool(true));
        command.put(ReleaseCommands.AMOUNT_MINOR, AttributeValue.fromN("1250"));
        command.put(ReleaseCommands.CURRENCY, AttributeValue.fromS("EUR"));
        command.put(ReleaseCommands.DELIVERY_SHARD, AttributeValue.fromS(shard));
        world.pipeline.dynamo().putItem(b -> b.tableName(world.pipeline.tables().releaseCommands()).item(command));
    }

    private Map<String, AttributeValue> authorisation(String id) {
        Instant authorisedAt = world.input().cutoff().minusSeconds(3600);
        Map<String, AttributeValue> item = new HashMap<>();
        item.put(Authorisations.AUTHORISATION_ID, AttributeValue.fromS(id));
        item.put(Authorisations.STATE, AttributeValue.fromS(Authorisations.STATE_AUTHORISED));
        item.put(Authorisations.VERSION, AttributeValue.fromN("1"));
        item.put(Authorisations.AMOUNT_MINOR, AttributeValue.fromN("1250"));
        item.put(Authorisations.CURRENCY, AttributeValue.fromS("EUR"));
        item.put(Authorisations.MERCHANT_ID, AttributeValue.fromS("m-1"));
        item.put(Authorisations.AUTHORISED_AT, AttributeValue.fromN(Long.toString(authorisedAt.toEpochMilli())));
        item.put(Authorisations.PENDING_SHARD, AttributeValue.fromS(Shards.key(Shards.of(id, world.input().shards()))));
        return item;
    }

    /** Every table, as a state dump: table name to its items. */
    private Map<String, List<Map<String, AttributeValue>>> dump() {
        Map<String, List<Map<String, AttributeValue>>> byName = new HashMap<>();
        StoreSnapshot.scan(world.pipeline.dynamo(), world.pipeline.tables()).items()
                .forEach((schema, items) -> byName.put(schema.logicalName(), items));
        return byName;
    }

    private static JsonNode readTree(String json) {
        try {
            return Json.mapper().readTree(json);
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    private static TableSchema schemaNamed(String name) {
        return com.payments.reconciler.store.Tables.ALL.stream().filter(s -> s.logicalName().equals(name)).findFirst().orElseThrow();
    }
}
