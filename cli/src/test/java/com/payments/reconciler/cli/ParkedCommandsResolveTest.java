package com.payments.reconciler.cli;

import com.payments.reconciler.local.moto.MotoServer;
import com.payments.reconciler.store.TableCreator;
import com.payments.reconciler.store.Tables.ReleaseCommands;
import com.payments.reconciler.testing.LocalAwsClients;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code commands requeue} and {@code commands resolve} against moto's DynamoDB, on commands parked as the delivery parks
 * them: a requeue keeps the first attempt's time (the provider's memory of the key counts from it, so the next delivery
 * asks the status lookup first), and a resolve closes a parked command as the provider said, recording who, when and why.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class ParkedCommandsResolveTest {

    private static final Path BUILD = Path.of(System.getProperty("reconciler.target"));
    private static final long FIRST_ATTEMPT = 1_764_900_000_000L;
    private MotoServer moto;
    private DynamoDbClient dynamo;
    private String table;

    @BeforeAll
    void start() {
        moto = MotoServer.start(BUILD.resolve("cli-parked-moto"));
        dynamo = new LocalAwsClients(moto.endpoint(), List.of()).dynamo(List.of());
        table = "t" + UUID.randomUUID().toString().substring(0, 8) + "-ReleaseCommands";
        new TableCreator(dynamo).create(ReleaseCommands.SCHEMA, table);
    }

    @AfterAll
    void stop() {
        if (moto != null) {
            moto.close();
        }
    }

    /** A command parked ESCALATED by the delivery, after a first attempt whose answer was lost. */
    private String parked(String authorisationId) {
        String op = "release-hold:" + authorisationId;
        Map<String, AttributeValue> item = new HashMap<>();
        item.put(ReleaseCommands.OPERATION_ID, AttributeValue.fromS(op));
        item.put(ReleaseCommands.AUTHORISATION_ID, AttributeValue.fromS(authorisationId));
        item.put(ReleaseCommands.STATUS, AttributeValue.fromS(ReleaseCommands.STATUS_ESCALATED));
        item.put(ReleaseCommands.PARKED_STATUS, AttributeValue.fromS(ReleaseCommands.STATUS_ESCALATED));
        item.put(ReleaseCommands.PARKED_SHARD, AttributeValue.fromN("2"));
        item.put(ReleaseCommands.ENDED_AT, AttributeValue.fromN(Long.toString(FIRST_ATTEMPT + 90_000_000L)));
        item.put(ReleaseCommands.ENDED_EPOCH, AttributeValue.fromN("3"));
        item.put(ReleaseCommands.END_REASON, AttributeValue.fromS("first attempted longer ago than the provider keeps idempotency keys"));
        item.put(ReleaseCommands.CREATED_AT, AttributeValue.fromN(Long.toString(FIRST_ATTEMPT - 60_000L)));
        item.put(ReleaseCommands.FIRST_ATTEMPT_AT, AttributeValue.fromN(Long.toString(FIRST_ATTEMPT)));
        item.put(ReleaseCommands.ATTEMPTS, AttributeValue.fromN("3"));
        item.put(ReleaseCommands.WINDOW_ID, AttributeValue.fromS("2026-12-05"));
        dynamo.putItem(b -> b.tableName(table).item(item));
        return op;
    }

    private Map<String, AttributeValue> item(String op) {
        return dynamo.getItem(b -> b.tableName(table).consistentRead(true)
                .key(Map.of(ReleaseCommands.OPERATION_ID, AttributeValue.fromS(op)))).item();
    }

    private OperatorCommandsTest.Result commands(String... args) {
        String[] aws = {"--commands-table", table, "--endpoint-url", moto.endpoint().toString(), "--region", LocalAwsClients.REGION.id()};
        String[] all = new String[1 + args.length + aws.length];
        all[0] = "commands";
        System.arraycopy(args, 0, all, 1, args.length);
        System.arraycopy(aws, 0, all, 1 + args.length, aws.length);
        return OperatorCommandsTest.run(all);
    }

    @Test
    void aRequeueKeepsTheFirstAttemptsTime() {
        String op = parked("requeued-1");

        OperatorCommandsTest.Result requeued = commands("requeue", "--operation-id", op, "--note", "provider: hold still open");

        assertThat(requeued.exit()).as(requeued.err()).isZero();
        Map<String, AttributeValue> item = item(op);
        assertThat(item.get(ReleaseCommands.STATUS).s()).isEqualTo(ReleaseCommands.STATUS_PENDING);
        assertThat(item).containsKey(ReleaseCommands.REQUEUED_AT);
        assertThat(item.get(ReleaseCommands.FIRST_ATTEMPT_AT).n()).as("the key's age is not restarted").isEqualTo(Long.toString(FIRST_ATTEMPT));
    }

    @Test
    void resolvedAsReleasedEndsDeliveredWithWhoWhenAndWhy() {
        String op = parked("released-1");

        OperatorCommandsTest.Result resolved = commands("resolve", "--operation-id", op, "--as", "released",
                "--note", "provider dashboard: released 2026-12-05 02:14 UTC, reference PRV-77");

        assertThat(resolved.exit()).as(resolved.err()).isZero();
        assertThat(resolved.out()).contains("resolved " + op + " as released: DELIVERED");
        Map<String, AttributeValue> item = item(op);
        assertThat(item.get(ReleaseCommands.STATUS).s()).isEqualTo(ReleaseCommands.STATUS_DELIVERED);
        // moto answers STS GetCallerIdentity for its fixed test credentials: the ARN, not a profile name, is recorded.
        assertThat(item.get(ReleaseCommands.RESOLVED_BY).s()).startsWith("arn:aws:").contains("(local user ");
        assertThat(Long.parseLong(item.get(ReleaseCommands.RESOLVED_AT).n())).isPositive();
        assertThat(item.get(ReleaseCommands.RESOLUTION_NOTE).s()).contains("reference PRV-77");
        assertThat(item).doesNotContainKeys(ReleaseCommands.PARKED_STATUS, ReleaseCommands.PARKED_SHARD, ReleaseCommands.DELIVERY_SHARD);
        assertThat(item.get(ReleaseCommands.FIRST_ATTEMPT_AT).n()).isEqualTo(Long.toString(FIRST_ATTEMPT));
        assertThat(item.get(ReleaseCommands.END_REASON).s()).as("why it was parked stays").contains("keeps idempotency keys");
    }

    @Test
    void resolvedAsNotReleasedEndsRejectedAndIsNotSentAgain() {
        String op = parked("not-released-1");

        OperatorCommandsTest.Result resolved = commands("resolve", "--operation-id", op, "--as", "not-released",
                "--note", "provider support: hold expired at the network, nothing to release");

        assertThat(resolved.exit()).as(resolved.err()).isZero();
        Map<String, AttributeValue> item = item(op);
        assertThat(item.get(ReleaseCommands.STATUS).s()).isEqualTo(ReleaseCommands.STATUS_REJECTED);
        assertThat(item.get(ReleaseCommands.REJECTION_REASON).s()).contains("as not-released").contains("hold expired");
        assertThat(item).doesNotContainKeys(ReleaseCommands.PARKED_STATUS, ReleaseCommands.DELIVERY_SHARD);
    }

    /** Known-bad input: a command that is not parked (here, already resolved) is refused with exit 1 and not written. */
    @Test
    void aCommandNotParkedIsRefusedAndNothingIsWritten() {
        String op = parked("twice-1");
        assertThat(commands("resolve", "--operation-id", op, "--as", "released", "--note", "first").exit()).isZero();
        Map<String, AttributeValue> before = item(op);

        OperatorCommandsTest.Result again = commands("resolve", "--operation-id", op, "--as", "not-released", "--note", "second");

        assertThat(again.exit()).isEqualTo(ExitCodes.RUN_FAILED);
        assertThat(again.err()).contains("is not parked (DELIVERED)").contains("nothing was written");
        assertThat(item(op)).isEqualTo(before);
    }

    /** The provider's id for a release given by hand is kept where a delivered command keeps the provider's answer. */
    @Test
    void aProviderReferenceGivenWithReleasedIsStoredAsTheCommandsProviderReference() {
        String op = parked("released-ref-1");

        OperatorCommandsTest.Result resolved = commands("resolve", "--operation-id", op, "--as", "released",
                "--provider-reference", "pi_3MtwBwLkdIwHu7ix28a3tqPa", "--note", "Stripe dashboard: canceled 2026-12-05 02:14 UTC");

        assertThat(resolved.exit()).as(resolved.err()).isZero();
        Map<String, AttributeValue> item = item(op);
        assertThat(item.get(ReleaseCommands.PROVIDER_REFERENCE).s()).isEqualTo("pi_3MtwBwLkdIwHu7ix28a3tqPa");
        assertThat(item.get(ReleaseCommands.RESOLUTION_NOTE).s()).isEqualTo("Stripe dashboard: canceled 2026-12-05 02:14 UTC");
        assertThat(item.get(ReleaseCommands.RESOLVED_BY).s()).startsWith("arn:aws:");
    }

    /**
     * Known-bad inputs: a reference with not-released, of another form, or a card number (a 15-digit Luhn-valid run; 16
     * characters of A-Z 0-9 are an Adyen pspReference, exempt as in the event contract): exit 2, nothing written.
     */
    @Test
    void aProviderReferenceOfAnotherFormOrWithNotReleasedIsRefused() {
        String op = parked("released-ref-bad-1");
        Map<String, AttributeValue> before = item(op);

        OperatorCommandsTest.Result notReleased = commands("resolve", "--operation-id", op, "--as", "not-released",
                "--provider-reference", "pi_1", "--note", "captured");
        OperatorCommandsTest.Result form = commands("resolve", "--operation-id", op, "--as", "released",
                "--provider-reference", "pi 1/2", "--note", "released");
        OperatorCommandsTest.Result card = commands("resolve", "--operation-id", op, "--as", "released",
                "--provider-reference", "378282246310005", "--note", "released");
        OperatorCommandsTest.Result adyen = commands("resolve", "--operation-id", op, "--as", "not-released",
                "--provider-reference", "8815329842815468", "--note", "released");

        assertThat(notReleased.exit()).isEqualTo(2);
        assertThat(notReleased.err()).contains("--provider-reference goes with --as released only");
        assertThat(form.exit()).isEqualTo(2);
        assertThat(form.err()).contains("--provider-reference must be 1-64 characters of A-Z a-z 0-9 _ -", "was 'pi 1/2'");
        assertThat(card.exit()).isEqualTo(2);
        assertThat(card.err()).contains("--provider-reference must not be a card number").doesNotContain("3782");
        assertThat(adyen.err()).as("a numeric Adyen pspReference passes the screen, then meets the --as check")
                .contains("goes with --as released only");
        assertThat(item(op)).as("nothing written").isEqualTo(before);
    }

    /** The same resolution run twice (an operator's retry, or the SDK's retry of an applied update) answers, not refuses. */
    @Test
    void theSameResolutionRunTwiceSaysItWasAlreadyResolvedAndWritesNothing() {
        String op = parked("same-twice-1");
        assertThat(commands("resolve", "--operation-id", op, "--as", "released", "--note", "provider: released").exit()).isZero();
        Map<String, AttributeValue> before = item(op);

        OperatorCommandsTest.Result again = commands("resolve", "--operation-id", op, "--as", "released", "--note", "provider: released");

        assertThat(again.exit()).as(again.err()).isZero();
        assertThat(again.out()).contains("was already resolved as released with this note").contains("nothing written");
        assertThat(item(op)).isEqualTo(before);
    }

    /** A note is stored and shown to every later reader: a card number in it is refused before anything is written. */
    @Test
    void aNoteHoldingACardNumberIsRefusedForRequeueAndResolve() {
        String op = parked("card-note-1");
        Map<String, AttributeValue> before = item(op);

        OperatorCommandsTest.Result resolve = commands("resolve", "--operation-id", op, "--as", "released", "--note",
                "cardholder 4111 1111 1111 1111 called");
        OperatorCommandsTest.Result requeue = commands("requeue", "--operation-id", op, "--note", "card 4111111111111111");

        assertThat(resolve.exit()).isEqualTo(2);
        assertThat(resolve.err()).contains("--note must not hold a card number").doesNotContain("4111");
        assertThat(requeue.exit()).isEqualTo(2);
        assertThat(requeue.err()).contains("--note must not hold a card number").doesNotContain("4111");
        assertThat(item(op)).isEqualTo(before);
    }

    @Test
    void callerIdentityFallsBackToTheProfileWhenStsDoesNotAnswer() {
        assertThat(CallerIdentity.describe(() -> "arn:aws:iam::123456789012:user/ops")).startsWith("arn:aws:iam::123456789012:user/ops (local user ");
        assertThat(CallerIdentity.describe(() -> {
            throw software.amazon.awssdk.core.exception.SdkClientException.create("no route");
        })).startsWith("AWS profile ").contains("caller ARN unknown");
    }

    @Test
    void badFlagsAndAnUnknownIdExitTwoNamingTheFlag() {
        String op = parked("flags-1");
        Map<String, AttributeValue> before = item(op);

        OperatorCommandsTest.Result as = commands("resolve", "--operation-id", op, "--as", "maybe", "--note", "x");
        OperatorCommandsTest.Result id = commands("resolve", "--operation-id", "auth-1", "--as", "released", "--note", "x");
        OperatorCommandsTest.Result unknown = commands("resolve", "--operation-id", "release-hold:nobody", "--as", "released", "--note", "x");
        OperatorCommandsTest.Result note = commands("resolve", "--operation-id", op, "--as", "released", "--note", " ");

        assertThat(as.exit()).isEqualTo(2);
        assertThat(as.err()).contains("--as must be released or not-released").contains("maybe");
        assertThat(id.exit()).isEqualTo(2);
        assertThat(id.err()).contains("--operation-id must be release-hold:{authorisationId}");
        assertThat(unknown.exit()).isEqualTo(2);
        assertThat(unknown.err()).contains("--operation-id: no command release-hold:nobody");
        assertThat(note.exit()).isEqualTo(2);
        assertThat(note.err()).contains("--note must be 1 to 500 characters");
        assertThat(item(op)).as("nothing written").isEqualTo(before);
    }

    /**
     * {@code commands list} shows ACKNOWLEDGED commands (from the awaiting-outcome index) beside the parked ones, and
     * {@code --status ACKNOWLEDGED} only those. Known-bad proof: a command ACKNOWLEDGED without its index attribute (as
     * written before the index existed) is not listed, so the listing is the index's, not a table scan's.
     */
    @Test
    void listShowsAcknowledgedCommandsFromTheAwaitingIndex() {
        String parkedOp = parked("listed-parked-1");
        String ackOp = "release-hold:listed-ack-1";
        String unindexedOp = "release-hold:listed-ack-unindexed";
        for (String op : List.of(ackOp, unindexedOp)) {
            Map<String, AttributeValue> item = new HashMap<>();
            item.put(ReleaseCommands.OPERATION_ID, AttributeValue.fromS(op));
            item.put(ReleaseCommands.AUTHORISATION_ID, AttributeValue.fromS(op.substring("release-hold:".length())));
            item.put(ReleaseCommands.STATUS, AttributeValue.fromS(ReleaseCommands.STATUS_ACKNOWLEDGED));
            item.put(ReleaseCommands.ACKNOWLEDGED_AT, AttributeValue.fromN(Long.toString(FIRST_ATTEMPT)));
            item.put(ReleaseCommands.ACKNOWLEDGED_EPOCH, AttributeValue.fromN("4"));
            item.put(ReleaseCommands.REQUEST_REFERENCE, AttributeValue.fromS("C000000000000001"));
            item.put(ReleaseCommands.ATTEMPTS, AttributeValue.fromN("1"));
            item.put(ReleaseCommands.WINDOW_ID, AttributeValue.fromS("2026-12-05"));
            if (op.equals(ackOp)) {
                item.put(ReleaseCommands.AWAITING_SHARD, AttributeValue.fromS("1"));
            }
            dynamo.putItem(b -> b.tableName(table).item(item));
        }

        OperatorCommandsTest.Result all = commands("list");
        assertThat(all.exit()).as(all.err()).isZero();
        assertThat(all.out()).contains(parkedOp, ackOp, "outcome awaited for the provider's request C000000000000001")
                .doesNotContain(unindexedOp);
        OperatorCommandsTest.Result only = commands("list", "--status", "ACKNOWLEDGED");
        assertThat(only.out()).contains(ackOp, "1 acknowledged command").doesNotContain(parkedOp);
        OperatorCommandsTest.Result bad = commands("list", "--status", "DELIVERED");
        assertThat(bad.exit()).isEqualTo(2);
        assertThat(bad.err()).contains("--status must be one of QUARANTINED, ESCALATED, ACKNOWLEDGED");
    }
}
