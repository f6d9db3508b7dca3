package com.payments.reconciler.cdk;

import com.payments.reconciler.store.TableSchema;
import com.payments.reconciler.store.Tables.Authorisations;
import com.payments.reconciler.store.Tables.Idempotency;
import com.payments.reconciler.store.Tables.Leases;
import com.payments.reconciler.store.Tables.ReleaseCommands;
import com.payments.reconciler.store.Tables.Settlements;
import com.payments.reconciler.workflow.LambdaFunction;
import java.util.List;
import java.util.Optional;

/**
 * Which DynamoDB actions each function calls, on which table or index: read off the code, one grant per
 * call site, so each role allows exactly what its handler does and nothing a future handler might.
 * A transaction's items are authorised as their single-item actions (ConditionCheck is
 * {@code dynamodb:ConditionCheckItem}); {@code TransactWriteItems} itself is not an IAM action.
 *
 * @param schema the table
 * @param index the index, when the grant is on an index (a Query); empty for the table itself
 * @param actions the IAM actions
 * @param why the call site, for the reader of the policy
 * @param partitionKey when present, the one partition key value the grant is for ({@code dynamodb:LeadingKeys}): a grant
 *                     of its own, beside the table's others, so an action that must touch only one item cannot touch
 *                     another
 */
public record DataAccess(TableSchema schema, Optional<String> index, List<String> actions, String why, Optional<String> partitionKey) {

    public static final String GET_ITEM = "dynamodb:GetItem";
    public static final String PUT_ITEM = "dynamodb:PutItem";
    public static final String UPDATE_ITEM = "dynamodb:UpdateItem";
    public static final String DELETE_ITEM = "dynamodb:DeleteItem";
    public static final String CONDITION_CHECK_ITEM = "dynamodb:ConditionCheckItem";
    public static final String QUERY = "dynamodb:Query";
    public static final String BATCH_GET_ITEM = "dynamodb:BatchGetItem";

    public DataAccess {
        actions = List.copyOf(actions);
    }

    static DataAccess table(TableSchema schema, String why, String... actions) {
        return new DataAccess(schema, Optional.empty(), List.of(actions), why, Optional.empty());
    }

    /** {@code actions} on the one item of {@code schema} whose partition key is {@code partitionKey}. */
    static DataAccess item(TableSchema schema, String partitionKey, String why, String... actions) {
        return new DataAccess(schema, Optional.empty(), List.of(actions), why, Optional.of(partitionKey));
    }

    static DataAccess index(TableSchema schema, String index, String why, String... actions) {
        return new DataAccess(schema, Optional.of(schema.index(index).name()), List.of(actions), why, Optional.empty());
    }

    /** The statement id of the night-wide hold's grant: the one key {@code held#*} of Settlements. */
    public static final String NIGHT_WIDE_HOLD_SID = "NightWideHoldOnly";

    /** ReconcilePage and DeliverCommands: the night-wide hold read and, when absent, written after a non-zero dead-letter depth. */
    private static DataAccess nightWideHold(String caller) {
        return item(Settlements.SCHEMA, Settlements.NIGHT_WIDE_HOLD_KEY, "NightWideHold: " + caller + " reads held#* (GetItem) after a non-zero "
                + "dead-letter depth and records it when absent (PutItem, in the fenced transaction); no other key", GET_ITEM, PUT_ITEM);
    }

    /**
     * The statement id of a grant. IngestEvents' are named apart ({@code Ingest…}), so a reason that excuses one of its
     * actions in the harness's least-privilege proof can never excuse the same action of a workflow function.
     */
    static String sid(LambdaFunction function, DataAccess grant) {
        if (grant.partitionKey().isPresent()) {
            return NIGHT_WIDE_HOLD_SID;
        }
        return (function == LambdaFunction.INGEST_EVENTS ? "Ingest" : "") + grant.schema().logicalName()
                + grant.index().map(DataAccess::indexSid).orElse("Table");
    }

    // IAM statement ids are alphanumeric and unique within a policy: two indexes of one table need two ids.
    private static String indexSid(String indexName) {
        StringBuilder sid = new StringBuilder();
        for (String word : indexName.split("[^A-Za-z0-9]+")) {
            if (!word.isEmpty()) sid.append(Character.toUpperCase(word.charAt(0))).append(word.substring(1));
        }
        return sid + "Index";
    }

    /** The grants of one function; StartWindow touches no table. */
    public static List<DataAccess> of(LambdaFunction function) {
        return switch (function) {
            case START_WINDOW -> List.of();
            case ACQUIRE_LEASE -> List.of(
                    table(Leases.SCHEMA, "LeaseStore.acquire: conditional takeover, epoch + 1; LeaseStore.recordShards: ADD the deployed "
                            + "shards to the {leaseName}#shards item", UPDATE_ITEM));
            case RECONCILE_PAGE -> List.of(
                    table(Leases.SCHEMA, "LeaseStore.renew and release (a held surge), FencedWriter's lease check (item 0 of every "
                                    + "transaction); NightRecords: the night's record and its history read (BatchGetItem, GetItem), "
                                    + "recorded once (PutItem)",
                            UPDATE_ITEM, CONDITION_CHECK_ITEM, BATCH_GET_ITEM, GET_ITEM, PUT_ITEM),
                    index(Authorisations.SCHEMA, Authorisations.PENDING_BY_AGE, "CandidateFinder: pending authorisations older than the cutoff", QUERY),
                    table(Authorisations.SCHEMA, "FencedWriter: AUTHORISED -> RELEASE_REQUESTED, version + 1", UPDATE_ITEM),
                    table(Settlements.SCHEMA, "SettlementCheck (a batch read before each release batch) and FencedWriter's no-settlement check",
                            BATCH_GET_ITEM, CONDITION_CHECK_ITEM),
                    table(ReleaseCommands.SCHEMA, "FencedWriter: the outbox command, created once", PUT_ITEM),
                    nightWideHold("ReconcilePage"));
            case DELIVER_COMMANDS -> List.of(
                    table(Leases.SCHEMA, "LeaseStore.renew, and FencedWriter's lease check when recording a delivery",
                            UPDATE_ITEM, CONDITION_CHECK_ITEM),
                    index(ReleaseCommands.SCHEMA, ReleaseCommands.PENDING_DELIVERY, "PendingCommands: this shard's pending commands", QUERY),
                    index(ReleaseCommands.SCHEMA, ReleaseCommands.AWAITING_OUTCOME_INDEX, "PendingCommands: this shard's commands acknowledged past providerOutcomeTimeout (the sweep)", QUERY),
                    table(Settlements.SCHEMA, "FactsReader: settlements read fresh before provider requests (I3 at the call)",
                            BATCH_GET_ITEM),
                    table(Authorisations.SCHEMA, "FactsReader: authorisation ends (void, expiry) read in the same request as the settlements",
                            BATCH_GET_ITEM),
                    table(ReleaseCommands.SCHEMA, "FencedWriter.recordDeliveries: PENDING -> DELIVERED / REJECTED / CANCELLED_SETTLED / "
                            + "CANCELLED_ENDED / QUARANTINED / ESCALATED", UPDATE_ITEM),
                    table(Idempotency.SCHEMA, "PowertoolsOperationGuard: Powertools' DynamoDB persistence store",
                            GET_ITEM, PUT_ITEM, UPDATE_ITEM, DELETE_ITEM),
                    nightWideHold("DeliverCommands"));
            case RELEASE_LEASE -> List.of(
                    table(Leases.SCHEMA, "LeaseStore.release: owner and epoch checked, epoch kept", UPDATE_ITEM));
            // Writes only to the two business tables, conditional single-item writes; no lease, no command written
            // (docs/decisions.md, "Ingestion writes without the lease"). Its one read: a decided authorisation's command
            // status when its settlement arrives (capturedAfterRelease), never a write to it.
            case INGEST_EVENTS -> List.of(
                    table(Authorisations.SCHEMA, "IngestStore: an authorisation created (PutItem if absent), ended or completed "
                            + "(UpdateItem, conditional)", PUT_ITEM, UPDATE_ITEM),
                    table(Settlements.SCHEMA, "IngestStore: a settlement recorded (PutItem if absent)", PUT_ITEM),
                    table(ReleaseCommands.SCHEMA, "IngestStore.releaseStatus: a settled authorisation that a night had decided: "
                            + "was its release delivered (capturedAfterRelease)", GET_ITEM));
        };
    }
}
