package com.payments.reconciler.harness.local;

import static org.assertj.core.api.Assertions.assertThat;

import com.payments.reconciler.store.Tables.ReleaseCommands;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.core.interceptor.Context;
import software.amazon.awssdk.core.interceptor.ExecutionAttributes;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.Put;
import software.amazon.awssdk.services.dynamodb.model.TransactWriteItem;
import software.amazon.awssdk.services.dynamodb.model.TransactWriteItemsRequest;

/**
 * The pause's own contract, driven as the SDK drives an interceptor. The chaos campaign traces "the frozen
 * worker resumes" from {@link WritePause#resume()}'s answer: it must say whether the write was held back
 * however quickly the released write is answered.
 */
class WritePauseTest {

    private static TransactWriteItemsRequest decision(String issuedBy, String authorisationId) {
        return TransactWriteItemsRequest.builder().transactItems(TransactWriteItem.builder().put(Put.builder().tableName("commands")
                .item(Map.of(ReleaseCommands.ISSUED_BY, AttributeValue.fromS(issuedBy),
                        ReleaseCommands.AUTHORISATION_ID, AttributeValue.fromS(authorisationId))).build()).build()).build();
    }

    /** One SDK call through the interceptor: before, then the answer. */
    private static void call(WritePause pause, TransactWriteItemsRequest request) {
        ExecutionAttributes attributes = new ExecutionAttributes();
        Context.BeforeExecution before = () -> request;
        pause.beforeExecution(before, attributes);
        pause.afterExecution(null, attributes);
    }

    @Test
    void resumeSaysTheWriteWasHeldBackEvenWhenItIsAnsweredAtOnce() throws Exception {
        WritePause pause = new WritePause("reconcile-2026-12-01", 2);
        call(pause, decision("reconcile-2026-12-01/ReconcilePage/0", "auth-1"));
        assertThat(pause.awaitPaused(0, TimeUnit.MILLISECONDS)).as("the first decision goes through").isFalse();

        CompletableFuture<Void> worker = CompletableFuture.runAsync(() -> call(pause, decision("reconcile-2026-12-01/ReconcilePage/1", "auth-2")));
        assertThat(pause.awaitPaused(1, TimeUnit.MINUTES)).isTrue();
        assertThat(pause.heldAuthorisationId()).isEqualTo("auth-2");
        assertThat(pause.holding()).isTrue();

        assertThat(pause.resume()).isTrue();
        worker.get(1, TimeUnit.MINUTES);
        assertThat(pause.awaitWritten(0, TimeUnit.MILLISECONDS)).isTrue();
        assertThat(pause.holding()).isFalse();
        assertThat(pause.resume()).as("only the first resume lets a held write go").isFalse();
    }

    @Test
    void anotherExecutionsDecisionsAndAPauseNeverReachedAreNotHeld() {
        WritePause pause = new WritePause("reconcile-2026-12-01");
        // The rerun's owner id extends the scheduled execution's name: it must not count as ours.
        call(pause, decision("reconcile-2026-12-01-rerun-1/ReconcilePage/0", "auth-1"));
        assertThat(pause.armed()).isTrue();
        assertThat(pause.resume()).as("nothing was held back").isFalse();
    }
}
