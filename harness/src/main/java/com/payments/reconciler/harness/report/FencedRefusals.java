package com.payments.reconciler.harness.report;

import com.fasterxml.jackson.databind.JsonNode;
import com.payments.reconciler.local.moto.WriteLog;
import java.util.List;

/**
 * Fenced refusals as the engine saw them: transactions DynamoDB cancelled because their lease ConditionCheck
 * failed. The execution histories cannot be the source: a worker paused past its lease may have had its task
 * time out before its write was refused, so the refusal never reaches any history as a {@code Fenced} failure.
 */
public final class FencedRefusals {

    private static final String CONDITION_FAILED = "ConditionalCheckFailed";

    private FencedRefusals() {
    }

    /** The refused transactions whose check on {@code leasesTable} is among the failed conditions. */
    public static long count(List<WriteLog.Refusal> refusals, String leasesTable) {
        return refusals.stream().filter(r -> leaseCheckFailed(r, leasesTable)).count();
    }

    /**
     * Those sent by one execution: the lease check names its owner, {@code {executionName}/{uuid}} (the workflow's
     * MintOwnerId state), so a rerun's refusals are not counted against the run it superseded.
     */
    public static long countFor(List<WriteLog.Refusal> refusals, String leasesTable, String executionName) {
        return refusals.stream().filter(r -> leaseCheckFailed(r, leasesTable) && sentBy(r, executionName)).count();
    }

    private static boolean sentBy(WriteLog.Refusal refusal, String executionName) {
        for (JsonNode item : refusal.request().path("TransactItems")) {
            for (JsonNode value : item.path("ConditionCheck").path("ExpressionAttributeValues")) {
                if (value.path("S").asText("").startsWith(executionName + "/")) {
                    return true;
                }
            }
        }
        return false;
    }

    static boolean leaseCheckFailed(WriteLog.Refusal refusal, String leasesTable) {
        JsonNode items = refusal.request().path("TransactItems");
        for (int i = 0; i < items.size(); i++) {
            JsonNode check = items.get(i).path("ConditionCheck");
            if (leasesTable.equals(check.path("TableName").asText(null))
                    && CONDITION_FAILED.equals(refusal.reasons().path(i).path("Code").asText(null))) {
                return true;
            }
        }
        return false;
    }
}
