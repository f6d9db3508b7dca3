package com.payments.reconciler.store;

import com.payments.reconciler.local.LocalClients;
import com.payments.reconciler.lease.AcquireResult;
import com.payments.reconciler.lease.LeaseStore;
import com.payments.reconciler.lease.LeaseToken;
import com.payments.reconciler.local.moto.MotoServer;
import com.payments.reconciler.reconcile.Candidate;
import com.payments.reconciler.reconcile.CandidateFinder;
import com.payments.reconciler.reconcile.FencedWriter;
import com.payments.reconciler.reconcile.ReleaseOutcome;
import com.payments.reconciler.reconcile.Shards;
import com.payments.reconciler.store.Tables.Authorisations;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.BatchWriteItemResponse;
import software.amazon.awssdk.services.dynamodb.model.PutRequest;
import software.amazon.awssdk.services.dynamodb.model.WriteRequest;

import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;

import static com.payments.reconciler.store.Attr.n;
import static com.payments.reconciler.store.Attr.s;

/**
 * What moto costs with and without the launcher's patches ({@code transactions_patch.py},
 * {@code index_patch.py}): median latency of the 4-item fenced {@code TransactWriteItems} (the real
 * {@link FencedWriter}), of an {@code UpdateItem} on the authorisations table, and of a 100-item page of the
 * {@code pending-by-age} GSI (the real {@link CandidateFinder}), with 1,000 / 10,000 / 100,000
 * authorisations loaded; also the first such page after loading (with {@code index_patch.py}, the one that
 * builds the index from the table) and the time to read every page of one shard (items read in brackets).
 *
 * <p>A benchmark, not a test: it prints figures and asserts nothing about speed. With no argument it runs
 * itself three times as child JVMs -- both patches; {@code RECONCILER_GSI_PATCH=off} (moto scans the table
 * for a GSI query); both off ({@code RECONCILER_TX_PATCH=off} too: moto's own) -- the variables moto's
 * launcher reads at start (the children inherit this JVM's class path), and prints all three.
 * From the repository root (the build folder is {@code target} unless {@code -Dbuild.dir.name} says otherwise):
 * <pre>
 * mvn -B -q -pl local-engines,functions test-compile dependency:build-classpath \
 *     -Dmdep.includeScope=test -Dmdep.outputFile=target/test.classpath
 * cd functions &amp;&amp; java -Dreconciler.target=target \
 *     -cp "target/test-classes:target/classes:$(cat target/test.classpath)" \
 *     com.payments.reconciler.store.TransactionCostBenchmark [sizes, default 1000 10000 100000]
 * </pre>
 * (Not {@code exec:java}: it runs in Maven's JVM, whose class path the child JVMs could not reuse.)
 * {@code --child} runs one configuration in this JVM (as the environment says).
 */
public final class TransactionCostBenchmark {

    private static final int SHARDS = 4;
    private static final int PAGE = 100;
    private static final Instant NOW = Instant.parse("2026-12-01T02:00:00Z");
    private static final Instant CUTOFF = NOW.minus(Duration.ofHours(72));

    private TransactionCostBenchmark() {
    }

    public static void main(String[] args) throws Exception {
        List<String> arguments = new ArrayList<>(Arrays.asList(args));
        boolean child = arguments.remove("--child");
        List<Integer> sizes = arguments.isEmpty() ? List.of(1_000, 10_000, 100_000) : arguments.stream().map(Integer::parseInt).toList();
        if (child) {
            runHere(sizes);
            return;
        }
        for (Map<String, String> patches : List.of(Map.<String, String>of(), Map.of(GSI_PATCH, "off"),
                Map.of(TX_PATCH, "off", GSI_PATCH, "off"))) {
            List<String> command = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                    "-cp", System.getProperty("java.class.path"), TransactionCostBenchmark.class.getName(), "--child"));
            sizes.forEach(size -> command.add(size.toString()));
            ProcessBuilder builder = new ProcessBuilder(command).inheritIO();
            builder.environment().remove(TX_PATCH);
            builder.environment().remove(GSI_PATCH);
            builder.environment().putAll(patches);
            int exit = builder.start().waitFor();
            if (exit != 0) {
                throw new IllegalStateException("benchmark child with " + patches + " exited " + exit);
            }
        }
    }

    private static final String TX_PATCH = "RECONCILER_TX_PATCH";
    private static final String GSI_PATCH = "RECONCILER_GSI_PATCH";

    private static void runHere(List<Integer> sizes) {
        String tx = System.getenv().getOrDefault(TX_PATCH, "on");
        String label = "tx=" + tx + ",gsi=" + System.getenv().getOrDefault(GSI_PATCH, "on");
        Path work = Path.of(System.getProperty("reconciler.target", "target")).resolve("benchmark-moto-" + label.replace(',', '-'));
        try (MotoServer moto = MotoServer.start(work)) {
            DynamoDbClient dynamo = patientClient(moto);
            System.out.printf("%-15s %9s %14s %14s %16s %16s %16s %8s%n", "patches", "items", "tx median ms", "update med ms",
                    "GSI page med ms", "1st GSI page ms", "whole shard ms", "tx runs");
            for (int size : sizes) {
                moto.reset();
                TableNames tables = TableNames.withPrefix("bench-");
                new TableCreator(dynamo).createAll(tables);
                load(dynamo, tables, size);
                Row row = measure(dynamo, tables, size, tx);
                System.out.printf("%-15s %,9d %14.2f %14.2f %16.2f %16.2f %16s %8d%n", label, size, row.tx(), row.update(), row.page(),
                        row.firstPage(), String.format("%,.0f (%,d)", row.shard(), row.shardItems()), row.txRuns());
            }
        }
    }

    /**
     * Not the handlers' client: its 3 s attempt timeout is shorter than one unpatched transaction at
     * 100,000 items, and a timed-out attempt would be retried and measured twice. One attempt, no timeout
     * short of minutes, so each figure is one request's latency.
     */
    private static DynamoDbClient patientClient(MotoServer moto) {
        // The HTTP client's default 2 s connect timeout; answers may take minutes.
        return LocalClients.dynamo(moto.endpoint(), LocalClients.http(Duration.ofSeconds(2), Duration.ofMinutes(5)))
                .overrideConfiguration(o -> o.apiCallTimeout(Duration.ofMinutes(10))
                        .retryStrategy(software.amazon.awssdk.retries.DefaultRetryStrategy.doNotRetry()))
                .build();
    }

    private record Row(double tx, double update, double page, double firstPage, double shard, int shardItems, int txRuns) {
    }

    private static Row measure(DynamoDbClient dynamo, TableNames tables, int size, String patch) {
        // Unpatched, a transaction at 100,000 items takes seconds: few repetitions there.
        int txRuns = "off".equals(patch) && size >= 100_000 ? 5 : size >= 100_000 ? 30 : 50;
        int pageRuns = size >= 100_000 ? 5 : 20;
        LeaseStore leases = new LeaseStore(dynamo, tables.leases(), Duration.ofMinutes(30));
        LeaseToken lease = ((AcquireResult.Acquired) leases.acquire("benchmark", "benchmark/1", NOW)).lease().token();
        FencedWriter writer = new FencedWriter(dynamo, tables, Backoff.standard(1));
        CandidateFinder finder = new CandidateFinder(dynamo, tables.authorisations());

        // Warm-up: connection, class loading, moto's first-request paths, and (patched) the index's build.
        long firstStart = System.nanoTime();
        finder.page(0, CUTOFF, Map.of(), PAGE);
        double firstPage = (System.nanoTime() - firstStart) / 1e6;
        List<Candidate> candidates = new ArrayList<>();
        for (int shard = 0; shard < SHARDS; shard++) {
            candidates.addAll(finder.page(shard, CUTOFF, Map.of(), PAGE).candidates());
        }
        release(writer, lease, candidates.removeFirst());

        double tx = median(txRuns, i -> () -> release(writer, lease, candidates.get(i)));
        double update = median(100, i -> () -> dynamo.updateItem(b -> b.tableName(tables.authorisations())
                .key(Map.of(Authorisations.AUTHORISATION_ID, s(id(size - 1 - i))))
                .updateExpression("SET merchantId = :m").expressionAttributeValues(Map.of(":m", s("merchant-" + i)))));
        double page = median(pageRuns, i -> () -> finder.page(i % SHARDS, CUTOFF, Map.of(), PAGE));

        // Every page of one shard, as the job reads it: unpatched, each page walks the partition from its start.
        long shardStart = System.nanoTime();
        int shardItems = 0;
        Map<String, AttributeValue> next = Map.of();
        do {
            CandidateFinder.Page shardPage = finder.page(1, CUTOFF, next, PAGE);
            shardItems += shardPage.candidates().size();
            next = shardPage.nextKey();
        } while (!next.isEmpty());
        double shard = (System.nanoTime() - shardStart) / 1e6;
        return new Row(tx, update, page, firstPage, shard, shardItems, txRuns);
    }

    private static Object release(FencedWriter writer, LeaseToken lease, Candidate candidate) {
        ReleaseOutcome outcome = writer.requestRelease(lease, candidate, "2026-12-01", CUTOFF, NOW);
        if (!(outcome instanceof ReleaseOutcome.Committed)) {
            throw new IllegalStateException("benchmark transaction did not commit: " + outcome);
        }
        return outcome;
    }

    private static double median(int runs, java.util.function.IntFunction<Supplier<Object>> run) {
        long[] nanos = new long[runs];
        for (int i = 0; i < runs; i++) {
            Supplier<Object> call = run.apply(i);
            long start = System.nanoTime();
            call.get();
            nanos[i] = System.nanoTime() - start;
        }
        Arrays.sort(nanos);
        long middle = runs % 2 == 1 ? nanos[runs / 2] : (nanos[runs / 2 - 1] + nanos[runs / 2]) / 2;
        return middle / 1e6;
    }

    /** Authorisations before the cutoff, spread over the shards, 25 per BatchWriteItem. */
    private static void load(DynamoDbClient dynamo, TableNames tables, int size) {
        List<WriteRequest> batch = new ArrayList<>(25);
        for (int i = 0; i < size; i++) {
            Map<String, AttributeValue> item = new HashMap<>();
            String id = id(i);
            item.put(Authorisations.AUTHORISATION_ID, s(id));
            item.put(Authorisations.STATE, s(Authorisations.STATE_AUTHORISED));
            item.put(Authorisations.VERSION, n(1));
            item.put(Authorisations.AMOUNT_MINOR, n(100 + i % 10_000));
            item.put(Authorisations.CURRENCY, s("EUR"));
            item.put(Authorisations.MERCHANT_ID, s("merchant-" + i % 97));
            item.put(Authorisations.AUTHORISED_AT, n(CUTOFF.minusSeconds(1 + i % 86_400).toEpochMilli()));
            item.put(Authorisations.PENDING_SHARD, s(Shards.key(Shards.of(id, SHARDS))));
            batch.add(WriteRequest.builder().putRequest(PutRequest.builder().item(item).build()).build());
            if (batch.size() == 25 || i == size - 1) {
                Map<String, List<WriteRequest>> pending = Map.of(tables.authorisations(), List.copyOf(batch));
                while (!pending.isEmpty()) {
                    Map<String, List<WriteRequest>> request = pending;
                    BatchWriteItemResponse response = dynamo.batchWriteItem(b -> b.requestItems(request));
                    pending = response.hasUnprocessedItems() ? response.unprocessedItems() : Map.of();
                }
                batch.clear();
            }
        }
    }

    private static String id(int i) {
        return String.format("auth-%07d", i);
    }
}
