package com.payments.reconciler.store;

import com.payments.reconciler.testing.LocalDynamo;
import com.payments.reconciler.testing.PatchReference;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.function.Function;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;
import software.amazon.awssdk.core.SdkBytes;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.BillingMode;
import software.amazon.awssdk.services.dynamodb.model.DynamoDbException;
import software.amazon.awssdk.services.dynamodb.model.KeysAndAttributes;
import software.amazon.awssdk.services.dynamodb.model.KeyType;
import software.amazon.awssdk.services.dynamodb.model.ReturnConsumedCapacity;
import software.amazon.awssdk.services.dynamodb.model.ScalarAttributeType;
import software.amazon.awssdk.services.dynamodb.model.Select;

import static com.payments.reconciler.store.Attr.n;
import static com.payments.reconciler.store.Attr.s;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Pins {@code serialize_patch.py}: Query, Scan, GetItem and BatchGetItem answers written as JSON directly are exactly
 * what moto's own shape-walking serializer answers -- items of every attribute type (binary and sets included), Count,
 * ScannedCount, LastEvaluatedKey, ConsumedCapacity, UnprocessedKeys, a missing item and errors. Each read goes to the
 * tests' (patched) engine and to a reference engine started with {@code RECONCILER_SERIALIZE_PATCH=off}, and the SDK's
 * parsed answers are compared.
 */
@ExtendWith(LocalDynamo.class)
class SerializePatchTest {

    private static final String ITEMS = "test-serialize-items";

    @RegisterExtension
    static final PatchReference REFERENCE = new PatchReference("moto-serialize-reference", "RECONCILER_SERIALIZE_PATCH");

    private DynamoDbClient referenceClient;
    private DynamoDbClient patched;

    @BeforeEach
    void sameItemsOnBothEngines(LocalDynamo.Engine engine) {
        patched = PatchReference.unretried(engine.moto());
        referenceClient = REFERENCE.reset();
        for (DynamoDbClient dynamo : List.of(patched, referenceClient)) {
            dynamo.createTable(b -> b.tableName(ITEMS).billingMode(BillingMode.PAY_PER_REQUEST)
                    .keySchema(k -> k.attributeName("pk").keyType(KeyType.HASH), k -> k.attributeName("sk").keyType(KeyType.RANGE))
                    .attributeDefinitions(a -> a.attributeName("pk").attributeType(ScalarAttributeType.S),
                            a -> a.attributeName("sk").attributeType(ScalarAttributeType.N)));
            Random random = new Random(11);
            for (int i = 0; i < 40; i++) {
                dynamo.putItem(b -> b.tableName(ITEMS).item(item(random)));
            }
        }
    }

    @Test
    void theTestsEngineHasThePatchAndTheReferenceHasNot(LocalDynamo.Engine engine) throws Exception {
        assertThat(Files.readString(REFERENCE.log(engine.moto()))).contains("serialize_patch: Query, Scan, GetItem and BatchGetItem answers");
        assertThat(Files.readString(REFERENCE.ownLog())).contains("serialize_patch: disabled (RECONCILER_SERIALIZE_PATCH=off)");
    }

    @Test
    void everyItemReadAnswersAsMotoItself() {
        List<Function<DynamoDbClient, String>> reads = reads();
        assertThat(differences(reads, reads)).isEmpty();
        // Not vacuous: items of every type came back.
        String all = reads.get(0).apply(patched);
        assertThat(all).contains("B=SdkBytes").contains("SS=[").contains("NS=[").contains("BS=[").contains("L=[").contains("M={")
                .contains("BOOL=").contains("NUL=true");
    }

    @Test
    void theComparisonFindsAnAnswerThatDiffers() {
        // The known-bad input: the patched engine is asked for another item than the reference.
        List<Function<DynamoDbClient, String>> reads = reads();
        List<Function<DynamoDbClient, String>> altered = new ArrayList<>(reads);
        altered.set(2, dynamo -> answer(() -> dynamo.getItem(b -> b.tableName(ITEMS).key(key("p1", 3)))));

        assertThat(differences(altered, reads)).isNotEmpty();
    }

    private List<String> differences(List<Function<DynamoDbClient, String>> onPatched, List<Function<DynamoDbClient, String>> onReference) {
        List<String> found = new ArrayList<>();
        for (int i = 0; i < onPatched.size(); i++) {
            String mine = onPatched.get(i).apply(patched);
            String theirs = onReference.get(i).apply(referenceClient);
            if (!mine.equals(theirs)) {
                found.add("read " + i + ": patched " + mine + " / moto " + theirs);
            }
        }
        return found;
    }

    private static List<Function<DynamoDbClient, String>> reads() {
        List<Function<DynamoDbClient, String>> reads = new ArrayList<>();
        reads.add(d -> answer(() -> d.scan(b -> b.tableName(ITEMS).consistentRead(true))));
        reads.add(d -> answer(() -> d.scan(b -> b.tableName(ITEMS).limit(7).returnConsumedCapacity(ReturnConsumedCapacity.TOTAL))));
        reads.add(d -> answer(() -> d.getItem(b -> b.tableName(ITEMS).key(key("p0", 1)))));
        reads.add(d -> answer(() -> d.getItem(b -> b.tableName(ITEMS).key(key("nobody", 1)))));
        reads.add(d -> answer(() -> d.getItem(b -> b.tableName(ITEMS).key(key("p2", 2)).projectionExpression("pk, bin, nested"))));
        reads.add(d -> answer(() -> d.query(b -> b.tableName(ITEMS).keyConditionExpression("pk = :p")
                .expressionAttributeValues(Map.of(":p", s("p1"))).limit(3).scanIndexForward(false))));
        reads.add(d -> answer(() -> d.query(b -> b.tableName(ITEMS).keyConditionExpression("pk = :p AND sk > :s")
                .expressionAttributeValues(Map.of(":p", s("p0"), ":s", n(2))).select(Select.COUNT))));
        reads.add(d -> answer(() -> d.query(b -> b.tableName(ITEMS).keyConditionExpression("pk = :p")
                .filterExpression("flag = :t").expressionAttributeValues(Map.of(":p", s("p3"), ":t", AttributeValue.fromBool(true)))
                .returnConsumedCapacity(ReturnConsumedCapacity.INDEXES))));
        reads.add(d -> answer(() -> d.batchGetItem(b -> b.requestItems(Map.of(ITEMS, KeysAndAttributes.builder()
                .keys(key("p0", 1), key("p1", 2), key("nobody", 9)).build())).returnConsumedCapacity(ReturnConsumedCapacity.TOTAL))));
        reads.add(d -> answer(() -> d.query(b -> b.tableName(ITEMS).keyConditionExpression("nope = :p")
                .expressionAttributeValues(Map.of(":p", s("p1"))))));
        return reads;
    }

    private static Map<String, AttributeValue> key(String pk, int sk) {
        return Map.of("pk", s(pk), "sk", n(sk));
    }

    /** Items with every attribute type the DynamoDB JSON protocol has. */
    private static Map<String, AttributeValue> item(Random random) {
        return Map.of("pk", s("p" + random.nextInt(4)), "sk", n(random.nextInt(12)), "amount", AttributeValue.fromN(random.nextInt(1_000) + "." + random.nextInt(100)),
                "bin", AttributeValue.fromB(SdkBytes.fromByteArray(new byte[] {0, (byte) random.nextInt(256), 7})),
                "names", AttributeValue.fromSs(List.of("a" + random.nextInt(3), "b")), "numbers", AttributeValue.fromNs(List.of("1", "2.5")),
                "blobs", AttributeValue.fromBs(List.of(SdkBytes.fromUtf8String("x"), SdkBytes.fromUtf8String("y" + random.nextInt(3)))),
                "flag", AttributeValue.fromBool(random.nextBoolean()), "none", AttributeValue.fromNul(true),
                "nested", AttributeValue.fromM(Map.of("list", AttributeValue.fromL(List.of(s("z"), n(3))), "text", s("t"))));
    }

    private static String answer(java.util.function.Supplier<Object> call) {
        try {
            return String.valueOf(call.get());
        } catch (DynamoDbException e) {
            return e.awsErrorDetails().errorCode() + ": " + e.awsErrorDetails().errorMessage();
        }
    }
}
