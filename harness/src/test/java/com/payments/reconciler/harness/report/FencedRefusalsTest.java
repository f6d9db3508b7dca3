package com.payments.reconciler.harness.report;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.payments.reconciler.local.moto.WriteLog;
import com.payments.reconciler.workflow.Json;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** Which refused transactions are fenced refusals, and whose: a table of the engine's cancellation answers. */
class FencedRefusalsTest {

    private static final String LEASES = "reconciler-prod-Leases";

    /** A protected write: the lease check (item 0) and one authorisation update (item 1), with each item's reason. */
    static WriteLog.Refusal refusal(String leaseTable, String owner, String leaseReason, String authorisationReason) {
        ObjectNode request = Json.mapper().createObjectNode();
        ArrayNode items = request.putArray("TransactItems");
        ObjectNode check = items.addObject().putObject("ConditionCheck");
        check.put("TableName", leaseTable);
        check.putObject("ExpressionAttributeValues").putObject(":owner").put("S", owner);
        items.addObject().putObject("Update").put("TableName", "reconciler-prod-Authorisations");
        ArrayNode reasons = Json.mapper().createArrayNode();
        reasons.addObject().put("Code", leaseReason);
        reasons.addObject().put("Code", authorisationReason);
        return new WriteLog.Refusal(1, request, reasons);
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource({
            "the lease check failed,                        reconciler-prod-Leases, ConditionalCheckFailed, None,                   true",
            "the lease check and the item failed,           reconciler-prod-Leases, ConditionalCheckFailed, ConditionalCheckFailed, true",
            "only the authorisation's condition failed,     reconciler-prod-Leases, None,                   ConditionalCheckFailed, false",
            "a conflict on the lease item is not a refusal, reconciler-prod-Leases, TransactionConflict,    None,                   false",
            "a check on another table,                      other-Leases,           ConditionalCheckFailed, None,                   false",
    })
    void aFencedRefusalIsAFailedLeaseCheck(String why, String table, String leaseReason, String itemReason, boolean fenced) {
        assertThat(FencedRefusals.leaseCheckFailed(refusal(table, "reconcile-2026-12-01/u1", leaseReason, itemReason), LEASES))
                .as(why).isEqualTo(fenced);
    }

    @Test
    void eachRefusalCountsAgainstTheExecutionThatSentItNotAgainstOneWhoseNameItExtends() {
        List<WriteLog.Refusal> refusals = List.of(
                refusal(LEASES, "reconcile-2026-12-01/u1", "ConditionalCheckFailed", "None"),
                refusal(LEASES, "reconcile-2026-12-01/u1", "ConditionalCheckFailed", "None"),
                refusal(LEASES, "reconcile-2026-12-01-rerun-1/u2", "ConditionalCheckFailed", "None"),
                refusal(LEASES, "reconcile-2026-12-01-rerun-1/u2", "None", "ConditionalCheckFailed"));

        assertThat(FencedRefusals.count(refusals, LEASES)).isEqualTo(3);
        assertThat(FencedRefusals.countFor(refusals, LEASES, "reconcile-2026-12-01")).isEqualTo(2);
        assertThat(FencedRefusals.countFor(refusals, LEASES, "reconcile-2026-12-01-rerun-1")).isEqualTo(1);
    }

    /**
     * The report used to count {@code Fenced} task failures in the histories. A worker paused past its task's
     * timeout has its write refused after Step Functions stopped listening: the history shows States.Timeout, the
     * engine shows the refusal. Seen at 10,000 authorisations: {@code --scenario failover} reported 0.
     */
    @Test
    void aRefusalAfterTheTaskTimedOutIsCountedWhereTheHistoryCountWouldMissIt() {
        List<String> historyFailures = List.of("States.Timeout");
        long fromHistory = historyFailures.stream().filter("com.payments.reconciler.workflow.Fenced"::equals).count();
        List<WriteLog.Refusal> engine = List.of(refusal(LEASES, "reconcile-2026-12-01/u1", "ConditionalCheckFailed", "None"));

        assertThat(fromHistory).as("the known-bad source").isZero();
        assertThat(FencedRefusals.count(engine, LEASES)).isEqualTo(1);
    }

}
