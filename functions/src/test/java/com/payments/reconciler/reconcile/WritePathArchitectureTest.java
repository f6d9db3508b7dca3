package com.payments.reconciler.reconcile;

import com.payments.reconciler.ingest.IngestStore;
import com.payments.reconciler.lease.LeaseStore;
import com.payments.reconciler.store.ConflictRetryingClient;
import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.domain.JavaMethodCall;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.core.importer.Location;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * docs/design.md §4: "There is no other write path." Reads the compiled production classes and lists every call
 * to a {@link DynamoDbClient} method that can change an item. Only three classes may make one:
 * {@link FencedWriter} (every business write of the leader, lease-checked in the same transaction),
 * {@link LeaseStore} (the lease item itself, by its own conditional updates), and {@link IngestStore}, the card
 * platform's events coming in: single-item conditional writes on Authorisations and Settlements that only ever
 * move an authorisation out of AUTHORISED, never a transaction and never the outbox (docs/decisions.md,
 * "Ingestion writes without the lease"). The idempotency table is
 * written by Powertools inside the library, on a client of its own, never by our code: that client is a
 * {@link ConflictRetryingClient}, which forwards the library's own single-item writes (trying a conflicted one
 * again) and starts none.
 */
class WritePathArchitectureTest {

    /** Every DynamoDbClient operation that writes items (PartiQL included: it can write too). */
    private static final Set<String> WRITE_OPERATIONS = Set.of("putItem", "updateItem", "deleteItem",
            "transactWriteItems", "batchWriteItem", "executeStatement", "executeTransaction", "batchExecuteStatement");

    // ProviderOutcomes: IngestEvents' provider.outcome write, conditional and without the lease by design
    // (docs/decisions.md, "An asynchronous provider"); InvariantAudit counts it apart (providerOutcomes).
    // NightRecords: the release-surge guard's record of a window (written once, conditionally) and the operator's approval
    // of a held night; neither is business state nor the lease (docs/decisions.md, "The release-surge guard").
    private static final Set<Class<?>> ALLOWED_WRITERS = Set.of(FencedWriter.class, LeaseStore.class, IngestStore.class,
            ConflictRetryingClient.class, com.payments.reconciler.ingest.ProviderOutcomes.class, com.payments.reconciler.surge.NightRecords.class);

    private static JavaClasses production;

    @BeforeAll
    static void importProductionClasses() {
        // This module's compiled production code only (not the local engines or test support on the classpath).
        Location functionsMain = Location.of(FencedWriter.class.getProtectionDomain().getCodeSource().getLocation());
        production = new ClassFileImporter()
                .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
                .importLocations(Set.of(functionsMain));
    }

    private static List<JavaMethodCall> writeCalls() {
        return production.stream()
                .flatMap(c -> c.getMethodCallsFromSelf().stream())
                .filter(call -> call.getTargetOwner().isAssignableTo(DynamoDbClient.class))
                .filter(call -> WRITE_OPERATIONS.contains(call.getName()))
                .toList();
    }

    @Test
    void onlyTheFencedWriterTheLeaseStoreAndIngestionWriteToDynamoDb() {
        List<String> outside = writeCalls().stream()
                .filter(call -> ALLOWED_WRITERS.stream().noneMatch(allowed -> call.getOriginOwner().isEquivalentTo(allowed)
                        || call.getOriginOwner().getName().startsWith(allowed.getName() + "$")))
                .map(JavaMethodCall::getDescription)
                .toList();
        assertThat(outside).as("DynamoDB writes outside FencedWriter, LeaseStore, IngestStore, ProviderOutcomes, NightRecords and the idempotency store's forwarding client").isEmpty();
    }

    @Test
    void theFencedWriterWritesOnlyThroughTransactions() {
        assertThat(writeOperationsOf(FencedWriter.class)).containsExactly("transactWriteItems");
    }

    @Test
    void theConflictRetryingClientForwardsOnlyTheSingleItemWritesItOverrides() {
        assertThat(writeOperationsOf(ConflictRetryingClient.class)).containsExactlyInAnyOrder("putItem", "updateItem", "deleteItem");
    }

    @Test
    void ingestionMakesOnlySingleItemPutsAndUpdates() {
        // No transaction (it could then hold a ConditionCheck on the lease or a command), no delete, no batch write
        // (which takes no condition, so could overwrite a decision).
        assertThat(writeOperationsOf(IngestStore.class)).containsExactlyInAnyOrder("putItem", "updateItem");
    }

    @Test
    void theLeaseStoreOnlyUpdatesItsItemAndNeverDeletesIt() {
        // I5: a deleted lease item restarts its epoch at 1 and revives old fencing tokens.
        assertThat(writeOperationsOf(LeaseStore.class)).containsExactly("updateItem");
    }

    /** The write operations a class (its lambdas and nested classes included) calls. */
    private static List<String> writeOperationsOf(Class<?> writer) {
        return writeCalls().stream()
                .filter(call -> call.getOriginOwner().getName().startsWith(writer.getName()))
                .map(JavaMethodCall::getName)
                .distinct()
                .toList();
    }

    @Test
    void theScanSeesTheKnownWritersSoAnEmptyResultMeansSomething() {
        // Guards the check itself: if the import found no write calls at all, the first test would pass vacuously.
        assertThat(writeCalls()).extracting(call -> call.getOriginOwner().getSimpleName())
                .contains("FencedWriter", "LeaseStore", "IngestStore");
    }
}
