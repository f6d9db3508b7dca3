package com.payments.reconciler.cdk;

import com.fasterxml.jackson.databind.JsonNode;
import com.payments.reconciler.store.Tables;
import com.payments.reconciler.workflow.LambdaFunction;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * ReconcilePage and DeliverCommands record the night-wide hold {@code held#*} after a non-zero dead-letter depth
 * (NightWideHold): they may read and write that one item of Settlements, and no other. Every statement of their roles
 * that grants GetItem or PutItem on Settlements must carry {@code ForAllValues:StringEquals dynamodb:LeadingKeys [held#*]}.
 * Known-bad twin: the same check on a statement without the condition (a table-wide PutItem, which could overwrite a
 * settlement) reports it.
 */
class NightWideHoldGrantTest {

    private final SynthesizedStack synth = SynthesizedStack.get();
    private final TemplateJson template = new TemplateJson(synth);

    @Test
    void reconcilePageAndDeliverCommandsMayReadAndWriteOnlyTheNightWideHoldOfSettlements() {
        JsonNode settlements = template.getAtt(synth.stack.tables().table(Tables.Settlements.SCHEMA), "Arn");
        for (LambdaFunction function : List.of(LambdaFunction.RECONCILE_PAGE, LambdaFunction.DELIVER_COMMANDS)) {
            List<JsonNode> statements = template.statementsOf(synth.stack.functions().role(function));
            List<JsonNode> hold = statements.stream().filter(s -> s.path("Sid").asText().equals(DataAccess.NIGHT_WIDE_HOLD_SID)).toList();
            assertThat(hold).as(function.logicalName()).hasSize(1);
            assertThat(TemplateJson.strings(hold.getFirst().path("Action"))).containsExactlyInAnyOrder("dynamodb:GetItem", "dynamodb:PutItem");
            assertThat(hold.getFirst().path("Resource")).isEqualTo(settlements);
            assertThat(unlimitedItemAccess(statements, settlements)).as(function.logicalName()).isEmpty();
        }
    }

    @Test
    void knownBadATableWidePutItemOnSettlementsIsReported() {
        JsonNode settlements = template.getAtt(synth.stack.tables().table(Tables.Settlements.SCHEMA), "Arn");
        JsonNode wide = TemplateJson.parse("{\"Sid\":\"" + DataAccess.NIGHT_WIDE_HOLD_SID + "\",\"Effect\":\"Allow\","
                + "\"Action\":[\"dynamodb:GetItem\",\"dynamodb:PutItem\"],\"Resource\":" + settlements + "}");
        JsonNode otherKey = TemplateJson.parse("{\"Effect\":\"Allow\",\"Action\":\"dynamodb:PutItem\",\"Resource\":" + settlements
                + ",\"Condition\":{\"ForAllValues:StringEquals\":{\"dynamodb:LeadingKeys\":[\"held#auth-1\"]}}}");

        assertThat(unlimitedItemAccess(List.of(wide, otherKey), settlements)).hasSize(2);
    }

    /** The statements granting GetItem or PutItem on Settlements without the one-key condition on {@code held#*}. */
    static List<JsonNode> unlimitedItemAccess(List<JsonNode> statements, JsonNode settlements) {
        List<JsonNode> bad = new ArrayList<>();
        for (JsonNode s : statements) {
            boolean onSettlements = TemplateJson.nodes(s.path("Resource")).contains(settlements);
            boolean item = TemplateJson.strings(s.path("Action")).stream().anyMatch(a -> a.equals("dynamodb:GetItem") || a.equals("dynamodb:PutItem"));
            if (!onSettlements || !item) {
                continue;
            }
            JsonNode condition = s.path("Condition");
            List<String> keys = TemplateJson.strings(condition.path(ReconcilerFunctions.LEADING_KEYS_OPERATOR).path(ReconcilerFunctions.LEADING_KEYS));
            if (condition.size() != 1 || !keys.equals(List.of(Tables.Settlements.NIGHT_WIDE_HOLD_KEY))) {
                bad.add(s);
            }
        }
        return bad;
    }
}
