package com.payments.reconciler.store;

import com.payments.reconciler.testing.LocalDynamo;
import com.payments.reconciler.testing.PatchReference;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.function.Function;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.BillingMode;
import software.amazon.awssdk.services.dynamodb.model.DynamoDbException;
import software.amazon.awssdk.services.dynamodb.model.KeyType;
import software.amazon.awssdk.services.dynamodb.model.ReturnValue;
import software.amazon.awssdk.services.dynamodb.model.ScalarAttributeType;
import software.amazon.awssdk.services.dynamodb.model.TransactWriteItem;
import software.amazon.awssdk.services.dynamodb.model.TransactionCanceledException;
import software.amazon.awssdk.services.dynamodb.model.UpdateItemRequest;

import static com.payments.reconciler.store.Attr.n;
import static com.payments.reconciler.store.Attr.s;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Pins {@code expression_patch.py}: with UpdateExpressions parsed once per string and their trees copied by pickle, every
 * UpdateItem and transaction Update answers exactly as moto's own parse-and-deep-copy — the item after each write, the
 * returned attributes, the errors and cancellation reasons — including the same expression sent again with other values
 * (a tree shared between requests would carry the first request's values into the next) and expressions moto refuses.
 * Each request goes to the tests' (patched) engine and to a reference engine started with
 * {@code RECONCILER_EXPR_PATCH=off}, and every answer is compared.
 */
@ExtendWith(LocalDynamo.class)
class ExpressionPatchTest {

    private static final String ITEMS = "test-expr-items";
    /** A handful of expressions, as the project's named constants are, each sent many times with other values. */
    private static final List<String> EXPRESSIONS = List.of(
            "SET #v = if_not_exists(#v, :zero) + :inc, note = :note",
            "SET #v = #v - :inc REMOVE note",
            "ADD tally :inc SET tags = list_append(if_not_exists(tags, :empty), :tag)",
            "SET note = :note, #s = :s",
            "REMOVE tags, #s",
            "SET = :note",
            "SET note = :missing");

    @RegisterExtension
    static final PatchReference REFERENCE = new PatchReference("moto-expr-reference", "RECONCILER_EXPR_PATCH");

    private DynamoDbClient referenceClient;
    private DynamoDbClient patched;

    @BeforeEach
    void sameTableOnBothEngines(LocalDynamo.Engine engine) {
        patched = PatchReference.unretried(engine.moto());
        referenceClient = REFERENCE.reset();
        for (DynamoDbClient dynamo : List.of(patched, referenceClient)) {
            dynamo.createTable(b -> b.tableName(ITEMS).billingMode(BillingMode.PAY_PER_REQUEST)
                    .keySchema(k -> k.attributeName("pk").keyType(KeyType.HASH))
                    .attributeDefinitions(a -> a.attributeName("pk").attributeType(ScalarAttributeType.S)));
        }
    }

    @Test
    void theTestsEngineHasThePatchAndTheReferenceHasNot(LocalDynamo.Engine engine) throws Exception {
        assertThat(Files.readString(REFERENCE.log(engine.moto()))).contains("expression_patch: UpdateExpressions parsed once per string");
        assertThat(Files.readString(REFERENCE.ownLog())).contains("expression_patch: disabled (RECONCILER_EXPR_PATCH=off)");
    }

    @Test
    void theSameExpressionWithOtherValuesUpdatesWithThoseValues() {
        for (int i = 1; i <= 3; i++) {
            patched.updateItem(update(EXPRESSIONS.get(0), "a", i, "n" + i));
        }
        assertThat(patched.getItem(b -> b.tableName(ITEMS).key(Map.of("pk", s("a"))).consistentRead(true)).item())
                .containsEntry("v", n(6)).containsEntry("note", s("n3"));
    }

    @Test
    void aSeededSequenceOfUpdatesAndTransactionsAnswersAsMotoItself() {
        for (long seed = 1; seed <= 3; seed++) {
            assertThat(differences(sequence(seed, 150), sequence(seed, 150))).as("seed %d", seed).isEmpty();
        }
    }

    @Test
    void theComparisonFindsAWriteThatWentDifferently() {
        // The known-bad input: the patched engine gets one request with another value than the reference.
        List<Function<DynamoDbClient, String>> requests = sequence(7, 60);
        List<Function<DynamoDbClient, String>> altered = new ArrayList<>(requests);
        altered.set(30, dynamo -> answer(() -> dynamo.updateItem(update(EXPRESSIONS.get(0), "k1", 99, "other"))));

        assertThat(differences(altered, requests)).isNotEmpty();
    }

    /** Runs each request on its engine (patched first) and lists every answer or final item that differs. */
    private List<String> differences(List<Function<DynamoDbClient, String>> onPatched, List<Function<DynamoDbClient, String>> onReference) {
        List<String> found = new ArrayList<>();
        for (int i = 0; i < onPatched.size(); i++) {
            String mine = onPatched.get(i).apply(patched);
            String theirs = onReference.get(i).apply(referenceClient);
            if (!mine.equals(theirs)) {
                found.add("request " + i + ": patched " + mine + " / moto " + theirs);
            }
        }
        String mine = items(patched);
        String theirs = items(referenceClient);
        if (!mine.equals(theirs)) {
            found.add("items: patched " + mine + " / moto " + theirs);
        }
        return found;
    }

    /** Updates and two-update transactions over a few keys and all the expressions, valid and not. */
    private static List<Function<DynamoDbClient, String>> sequence(long seed, int length) {
        Random random = new Random(seed);
        List<Function<DynamoDbClient, String>> requests = new ArrayList<>();
        for (int i = 0; i < length; i++) {
            String expression = EXPRESSIONS.get(random.nextInt(EXPRESSIONS.size()));
            String key = "k" + random.nextInt(4);
            int inc = random.nextInt(1, 9);
            String note = "n" + random.nextInt(5);
            boolean conditional = random.nextInt(4) == 0;
            if (random.nextInt(3) == 0) {
                String other = EXPRESSIONS.get(random.nextInt(EXPRESSIONS.size()));
                String otherKey = key.equals("k9") ? "k8" : "k9";
                requests.add(dynamo -> answer(() -> dynamo.transactWriteItems(b -> b.transactItems(
                        transactional(update(expression, key, inc, note), conditional),
                        transactional(update(other, otherKey, inc + 1, note), false)))));
            } else {
                UpdateItemRequest request = update(expression, key, inc, note).toBuilder().returnValues(ReturnValue.ALL_NEW)
                        .conditionExpression(conditional ? "attribute_exists(pk)" : null).build();
                requests.add(dynamo -> answer(() -> dynamo.updateItem(request)));
            }
        }
        return requests;
    }

    private static TransactWriteItem transactional(UpdateItemRequest r, boolean conditional) {
        return TransactWriteItem.builder().update(u -> u.tableName(r.tableName()).key(r.key()).updateExpression(r.updateExpression())
                .expressionAttributeNames(r.hasExpressionAttributeNames() ? r.expressionAttributeNames() : null)
                .expressionAttributeValues(r.hasExpressionAttributeValues() ? r.expressionAttributeValues() : null)
                .conditionExpression(conditional ? "attribute_exists(pk)" : null)).build();
    }

    /** The request an expression needs: only the names and values it uses (moto refuses unused ones). */
    private static UpdateItemRequest update(String expression, String key, int inc, String note) {
        Map<String, String> names = new HashMap<>();
        Map<String, AttributeValue> values = new HashMap<>();
        for (String name : List.of("#v", "#s")) {
            if (expression.contains(name)) {
                names.put(name, name.equals("#v") ? "v" : "state");
            }
        }
        Map<String, AttributeValue> candidates = Map.of(":zero", n(0), ":inc", n(inc), ":note", s(note), ":s", s("S" + inc),
                ":empty", AttributeValue.fromL(List.of()), ":tag", AttributeValue.fromL(List.of(s(note))));
        candidates.forEach((placeholder, value) -> {
            if (expression.matches(".*" + placeholder + "\\b.*")) {
                values.put(placeholder, value);
            }
        });
        return UpdateItemRequest.builder().tableName(ITEMS).key(Map.of("pk", s(key))).updateExpression(expression)
                .expressionAttributeNames(names.isEmpty() ? null : names).expressionAttributeValues(values.isEmpty() ? null : values).build();
    }

    /** An answer as text: the response, or the error's type, message and cancellation reasons. */
    private static String answer(java.util.function.Supplier<Object> call) {
        try {
            return String.valueOf(call.get());
        } catch (TransactionCanceledException e) {
            return "cancelled " + e.cancellationReasons().stream().map(r -> r.code() + ":" + r.message()).toList();
        } catch (DynamoDbException e) {
            return e.awsErrorDetails().errorCode() + ": " + e.awsErrorDetails().errorMessage();
        }
    }

    private static String items(DynamoDbClient dynamo) {
        return new java.util.TreeMap<>(dynamo.scan(b -> b.tableName(ITEMS).consistentRead(true)).items().stream()
                .collect(java.util.stream.Collectors.toMap(item -> item.get("pk").s(), item -> new java.util.TreeMap<>(item).toString()))).toString();
    }
}
