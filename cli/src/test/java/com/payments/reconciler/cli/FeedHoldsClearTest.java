package com.payments.reconciler.cli;

import com.payments.reconciler.local.moto.MotoServer;
import com.payments.reconciler.store.TableCreator;
import com.payments.reconciler.store.Tables.Settlements;
import com.payments.reconciler.testing.LocalAwsClients;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code holds list} and {@code holds clear} against moto's DynamoDB, on holds as IngestEvents records them: a clear
 * deletes the {@code held#} item and leaves a {@code cleared-hold#} record with who (the STS caller ARN), when and the
 * note; bad input exits 2 naming the flag with nothing written. Known-bad input kept: clearing a hold that is not there
 * (cleared already) is refused and writes nothing.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class FeedHoldsClearTest {

    private static final Path BUILD = Path.of(System.getProperty("reconciler.target"));
    private MotoServer moto;
    private DynamoDbClient dynamo;
    private String table;

    @BeforeAll
    void start() {
        moto = MotoServer.start(BUILD.resolve("cli-holds-moto"));
        dynamo = new LocalAwsClients(moto.endpoint(), List.of()).dynamo(List.of());
        table = "t" + UUID.randomUUID().toString().substring(0, 8) + "-Settlements";
        new TableCreator(dynamo).create(Settlements.SCHEMA, table);
    }

    @AfterAll
    void stop() {
        if (moto != null) {
            moto.close();
        }
    }

    private void hold(String key, long heldAt) {
        dynamo.putItem(b -> b.tableName(table).item(Map.of(Settlements.AUTHORISATION_ID, AttributeValue.fromS(key),
                Settlements.HELD_AT, AttributeValue.fromN(Long.toString(heldAt)), Settlements.HELD_REASON, AttributeValue.fromS("MALFORMED settledAt"))));
    }

    private Map<String, Map<String, AttributeValue>> items() {
        return dynamo.scan(b -> b.tableName(table).consistentRead(true)).items().stream()
                .collect(Collectors.toMap(i -> i.get(Settlements.AUTHORISATION_ID).s(), i -> i));
    }

    private OperatorCommandsTest.Result holds(String... args) {
        String[] aws = {"--settlements-table", table, "--endpoint-url", moto.endpoint().toString(), "--region", LocalAwsClients.REGION.id()};
        String[] all = new String[1 + args.length + aws.length];
        all[0] = "holds";
        System.arraycopy(args, 0, all, 1, args.length);
        System.arraycopy(aws, 0, all, 1 + args.length, aws.length);
        return OperatorCommandsTest.run(all);
    }

    @Test
    void clearingAHoldDeletesItAndRecordsWhoWhenAndWhy() {
        hold(Settlements.heldKey("clear-1"), 1_764_900_000_000L);
        dynamo.putItem(b -> b.tableName(table).item(Map.of(Settlements.AUTHORISATION_ID, AttributeValue.fromS("settled-1"),
                Settlements.SETTLED_AT, AttributeValue.fromN("1764900000000"))));

        OperatorCommandsTest.Result listed = holds("list");
        assertThat(listed.exit()).as(listed.err()).isZero();
        assertThat(listed.out()).contains("held#clear-1").contains("authorisation clear-1").contains("MALFORMED settledAt")
                .doesNotContain("settled-1");

        OperatorCommandsTest.Result cleared = holds("clear", "--authorisation", "clear-1", "--note", "corrected settlement ingested 02:10 UTC");
        assertThat(cleared.exit()).as(cleared.err()).isZero();
        assertThat(cleared.out()).contains("cleared held#clear-1");
        Map<String, Map<String, AttributeValue>> after = items();
        assertThat(after).doesNotContainKey(Settlements.heldKey("clear-1")).containsKey("settled-1");
        Map<String, AttributeValue> record = after.entrySet().stream()
                .filter(e -> e.getKey().startsWith(Settlements.CLEARED_HOLD_KEY_PREFIX + Settlements.heldKey("clear-1") + "#"))
                .map(Map.Entry::getValue).findFirst().orElseThrow();
        // moto answers STS GetCallerIdentity for its fixed test credentials: the ARN is recorded.
        assertThat(record.get(Settlements.CLEARED_BY).s()).startsWith("arn:aws:").contains("(local user ");
        assertThat(Long.parseLong(record.get(Settlements.CLEARED_AT).n())).isPositive();
        assertThat(record.get(Settlements.CLEAR_NOTE).s()).isEqualTo("corrected settlement ingested 02:10 UTC");
        assertThat(record.get(Settlements.HELD_REASON).s()).as("the hold's own why stays").isEqualTo("MALFORMED settledAt");
        assertThat(holds("list").out()).doesNotContain("held#clear-1");
    }

    @Test
    void theNightWideHoldIsClearedByItsOwnFlagAndListedFirst() {
        hold(Settlements.heldKey("older-1"), 1_000L);
        hold(Settlements.NIGHT_WIDE_HOLD_KEY, 2_000L);
        String out = holds("list").out();
        assertThat(out.indexOf("held#*")).isLessThan(out.indexOf("held#older-1"));
        assertThat(holds("clear", "--night-wide", "--note", "every dead letter accounted for").exit()).isZero();
        assertThat(items()).doesNotContainKey(Settlements.NIGHT_WIDE_HOLD_KEY).containsKey(Settlements.heldKey("older-1"));
        assertThat(holds("clear", "--authorisation", "older-1", "--note", "replayed").exit()).isZero();
    }

    /** Known-bad input: a hold that is not there (cleared already) exits 2 naming the flag, nothing written. */
    @Test
    void clearingAHoldThatIsNotThereExitsTwoAndWritesNothing() {
        hold(Settlements.heldKey("twice-1"), 3_000L);
        assertThat(holds("clear", "--authorisation", "twice-1", "--note", "first").exit()).isZero();
        Map<String, Map<String, AttributeValue>> before = items();
        OperatorCommandsTest.Result again = holds("clear", "--authorisation", "twice-1", "--note", "second");
        assertThat(again.exit()).isEqualTo(ExitCodes.BAD_INPUT);
        assertThat(again.err()).contains("--authorisation: no hold held#twice-1").contains("nothing was written");
        assertThat(items()).isEqualTo(before);
    }

    @Test
    void badFlagsExitTwoNamingTheFlagAndWriteNothing() {
        hold(Settlements.heldKey("flags-1"), 4_000L);
        Map<String, Map<String, AttributeValue>> before = items();
        OperatorCommandsTest.Result neither = holds("clear", "--note", "x");
        OperatorCommandsTest.Result both = holds("clear", "--authorisation", "flags-1", "--night-wide", "--note", "x");
        OperatorCommandsTest.Result badId = holds("clear", "--authorisation", "held#flags-1", "--note", "x");
        OperatorCommandsTest.Result card = holds("clear", "--authorisation", "4111111111111111", "--note", "x");
        OperatorCommandsTest.Result noNote = holds("clear", "--authorisation", "flags-1", "--note", " ");
        OperatorCommandsTest.Result cardNote = holds("clear", "--authorisation", "flags-1", "--note", "card 4111 1111 1111 1111");
        for (OperatorCommandsTest.Result r : List.of(neither, both, badId, card, noNote, cardNote)) {
            assertThat(r.exit()).as(r.err()).isEqualTo(ExitCodes.BAD_INPUT);
            assertThat(r.err().strip().lines().count()).as(r.err()).isEqualTo(1);
            assertThat(r.err()).doesNotContain("4111");
        }
        assertThat(neither.err()).contains("--authorisation ID or --night-wide");
        assertThat(both.err()).contains("--authorisation ID or --night-wide");
        assertThat(badId.err()).contains("--authorisation must be an authorisation id");
        assertThat(card.err()).contains("--authorisation must be an authorisation id, not a card number");
        assertThat(noNote.err()).contains("--note must be 1 to 500 characters");
        assertThat(cardNote.err()).contains("--note must not hold a card number");
        assertThat(items()).isEqualTo(before);
    }
}
