package com.payments.reconciler.delivery;

import org.junit.jupiter.api.Test;
import software.amazon.lambda.powertools.idempotency.IdempotencyConfig;
import software.amazon.lambda.powertools.idempotency.persistence.BasePersistenceStore;
import software.amazon.lambda.powertools.idempotency.persistence.DataRecord;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import java.time.Instant;
import java.util.OptionalInt;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class OnceConfiguredStoreTest {

    private static final JsonNode OPERATION = JsonNodeFactory.instance.objectNode().put("operationId", "op-1");
    private final IdempotencyConfig config = IdempotencyConfig.builder().withEventKeyJMESPath("operationId").build();

    @Test
    void theFirstCallConfiguresTheStoreAndItsDelegateAndLaterCallsChangeNothing() {
        Delegate delegate = new Delegate();
        OnceConfiguredStore store = new OnceConfiguredStore(delegate);
        store.configure(config, "handleRequest");
        store.configure(config, "handleRequest");
        store.configure(config, "handleRequest");
        assertThat(delegate.configured).containsExactly("handleRequest");
    }

    /**
     * The store's own record-id prefix (what a concurrent call reads) is set at the first call only: a later call, even one
     * refused for naming another woven method, leaves it as it was.
     */
    @Test
    void theRecordIdPrefixIsSetOnce() {
        Delegate delegate = new Delegate();
        OnceConfiguredStore store = new OnceConfiguredStore(delegate);
        store.configure(config, "handleRequest");
        assertThatThrownBy(() -> store.configure(config, "otherMethod")).isInstanceOf(IllegalStateException.class);
        store.saveInProgress(OPERATION, Instant.EPOCH, OptionalInt.empty());
        assertThat(delegate.calls).singleElement().asString().startsWith("put testFunction.handleRequest#");
    }

    /** The known-bad for the test above: the library's own store, configured on every call, takes the last call's prefix. */
    @Test
    void aStoreConfiguredOnEveryCallTakesTheLastCallsPrefix() {
        Delegate everyCall = new Delegate();
        everyCall.configure(config, "handleRequest");
        everyCall.configure(config, "otherMethod");
        everyCall.saveInProgress(OPERATION, Instant.EPOCH, OptionalInt.empty());
        assertThat(everyCall.calls).singleElement().asString().startsWith("put testFunction.otherMethod#");
    }

    @Test
    void anotherConfigurationOrWovenMethodIsRefused() {
        OnceConfiguredStore store = new OnceConfiguredStore(new Delegate());
        store.configure(config, "handleRequest");
        assertThatThrownBy(() -> store.configure(config, "otherMethod"))
                .isInstanceOf(IllegalStateException.class).hasMessageContaining("otherMethod");
        IdempotencyConfig other = IdempotencyConfig.builder().withEventKeyJMESPath("operationId").build();
        assertThatThrownBy(() -> store.configure(other, "handleRequest")).isInstanceOf(IllegalStateException.class);
    }

    @Test
    void recordsGoToTheDelegate() {
        Delegate delegate = new Delegate();
        OnceConfiguredStore store = new OnceConfiguredStore(delegate);
        DataRecord record = new DataRecord("k", DataRecord.Status.INPROGRESS, 1L, null, null);
        store.putRecord(record, Instant.EPOCH);
        store.updateRecord(record);
        assertThat(store.getRecord("k")).isSameAs(record);
        store.deleteRecord("k");
        assertThat(delegate.calls).containsExactly("put k", "update k", "get k", "delete k");
    }

    /** Counts what reaches it; configured on every call, as the library configures its own stores. */
    private static final class Delegate extends BasePersistenceStore {
        final List<String> configured = new ArrayList<>();
        final List<String> calls = new ArrayList<>();
        private DataRecord last;

        @Override
        public void configure(IdempotencyConfig config, String functionName) {
            configured.add(functionName);
            super.configure(config, functionName);
        }

        @Override
        public DataRecord getRecord(String key) {
            calls.add("get " + key);
            return last;
        }

        @Override
        public void putRecord(DataRecord record, Instant now) {
            calls.add("put " + record.getIdempotencyKey());
            last = record;
        }

        @Override
        public void updateRecord(DataRecord record) {
            calls.add("update " + record.getIdempotencyKey());
            last = record;
        }

        @Override
        public void deleteRecord(String key) {
            calls.add("delete " + key);
        }
    }
}
