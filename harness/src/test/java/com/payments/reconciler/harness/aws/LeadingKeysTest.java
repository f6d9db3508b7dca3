package com.payments.reconciler.harness.aws;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.payments.reconciler.cdk.DataAccess;
import com.payments.reconciler.harness.aws.IamDecision.Verdict;
import com.payments.reconciler.store.TableNames;
import com.payments.reconciler.workflow.LambdaFunction;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * {@code dynamodb:LeadingKeys} as the recorder's requests carry it: each item action's partition key value, the
 * attribute named by the project's schema (Tables), and the {@code NightWideHoldOnly} grant of the template as built
 * judged on whole request bodies. Each row's known-bad twin: the same request without the key (how the evaluator
 * judged before it read one) is denied, and a template without the statement denies what it allowed.
 */
class LeadingKeysTest {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String T = "arn:aws:dynamodb:eu-west-1:123456789012:table/local-";
    private final ServiceAuthorization authorization = new ServiceAuthorization(ArnScope.of(LocalResources.MOTO_ACCOUNT, Map.of()));
    private final SynthesizedTemplate built = SynthesizedTemplate.load();

    private static String s(String value) {
        return "{\"S\": \"" + value + "\"}";
    }

    static Stream<Arguments> requests() {
        return Stream.of(
                Arguments.of("GetItem: the Key's partition key", "dynamodb:GetItem",
                        "{\"TableName\": \"local-Settlements\", \"Key\": {\"authorisationId\": " + s("held#*") + "}}",
                        List.of(new LeadingKeys(LeadingKeys.Kind.KNOWN, List.of("held#*")))),
                Arguments.of("PutItem: the Item's partition key", "dynamodb:PutItem",
                        "{\"TableName\": \"local-Settlements\", \"Item\": {\"authorisationId\": " + s("held#auth-1") + ", \"heldAt\": {\"N\": \"1\"}}}",
                        List.of(LeadingKeys.of(List.of("held#auth-1")))),
                Arguments.of("a table ARN as TableName", "dynamodb:DeleteItem",
                        "{\"TableName\": \"" + T + "Leases\", \"Key\": {\"leaseName\": " + s("night") + "}}", List.of(LeadingKeys.of(List.of("night")))),
                Arguments.of("a key of another type than the schema's", "dynamodb:UpdateItem",
                        "{\"TableName\": \"local-Settlements\", \"Key\": {\"authorisationId\": {\"N\": \"1\"}}}", List.of(LeadingKeys.UNDETERMINED)),
                Arguments.of("an attribute that is not the partition key", "dynamodb:GetItem",
                        "{\"TableName\": \"local-Settlements\", \"Key\": {\"pk\": " + s("held#*") + "}}", List.of(LeadingKeys.UNDETERMINED)),
                Arguments.of("a table no schema names", "dynamodb:GetItem",
                        "{\"TableName\": \"local-Other\", \"Key\": {\"authorisationId\": " + s("held#*") + "}}", List.of(LeadingKeys.UNDETERMINED)),
                Arguments.of("Query: the partition key's equality, names and values resolved", "dynamodb:Query",
                        "{\"TableName\": \"local-ReleaseCommands\", \"KeyConditionExpression\": \"(#k = :k)\", "
                                + "\"ExpressionAttributeNames\": {\"#k\": \"operationId\"}, \"ExpressionAttributeValues\": {\":k\": " + s("op-1") + "}}",
                        List.of(LeadingKeys.of(List.of("op-1")))),
                Arguments.of("Query: no equality on the partition key", "dynamodb:Query",
                        "{\"TableName\": \"local-Settlements\", \"KeyConditionExpression\": \"begins_with(authorisationId, :p)\", "
                                + "\"ExpressionAttributeValues\": {\":p\": " + s("held#") + "}}", List.of(LeadingKeys.UNDETERMINED)),
                Arguments.of("Query on an index: not read", "dynamodb:Query",
                        "{\"TableName\": \"local-Authorisations\", \"IndexName\": \"pending-by-age\", \"KeyConditionExpression\": \"pendingShard = :s\", "
                                + "\"ExpressionAttributeValues\": {\":s\": " + s("3") + "}}", List.of(LeadingKeys.UNDETERMINED)),
                Arguments.of("Scan carries no partition key", "dynamodb:Scan", "{\"TableName\": \"local-Settlements\"}", List.of(LeadingKeys.NONE)),
                Arguments.of("DescribeTable carries no partition key", "dynamodb:DescribeTable", "{\"TableName\": \"local-Settlements\"}",
                        List.of(LeadingKeys.NONE)),
                Arguments.of("BatchGetItem: every key of the table, one question per table", "dynamodb:BatchGetItem",
                        "{\"RequestItems\": {\"local-Settlements\": {\"Keys\": [{\"authorisationId\": " + s("b") + "}, {\"authorisationId\": "
                                + s("a") + "}]}, \"local-Leases\": {\"Keys\": [{\"leaseName\": " + s("night#1") + "}]}}}",
                        List.of(LeadingKeys.of(List.of("a", "b")), LeadingKeys.of(List.of("night#1")))),
                Arguments.of("BatchWriteItem: puts' items and deletes' keys", "dynamodb:BatchWriteItem",
                        "{\"RequestItems\": {\"local-Settlements\": [{\"PutRequest\": {\"Item\": {\"authorisationId\": " + s("held#*")
                                + "}}}, {\"DeleteRequest\": {\"Key\": {\"authorisationId\": " + s("auth-1") + "}}}]}}",
                        List.of(LeadingKeys.of(List.of("auth-1", "held#*")))),
                Arguments.of("TransactWriteItems: each item with its own key", "dynamodb:TransactWriteItems", transaction("held#*"),
                        List.of(LeadingKeys.of(List.of("reconcile")), LeadingKeys.of(List.of("held#*")))),
                Arguments.of("TransactGetItems: each Get's key", "dynamodb:TransactGetItems",
                        "{\"TransactItems\": [{\"Get\": {\"TableName\": \"local-Leases\", \"Key\": {\"leaseName\": " + s("reconcile") + "}}}]}",
                        List.of(LeadingKeys.of(List.of("reconcile")))));
    }

    /** NightWideHold's write: the lease's fence and the Put of the hold item, one transaction. */
    private static String transaction(String heldKey) {
        return "{\"TransactItems\": [{\"ConditionCheck\": {\"TableName\": \"local-Leases\", \"Key\": {\"leaseName\": " + s("reconcile")
                + "}, \"ConditionExpression\": \"epoch = :e\"}}, {\"Put\": {\"TableName\": \"local-Settlements\", \"Item\": {\"authorisationId\": "
                + s(heldKey) + "}, \"ConditionExpression\": \"attribute_not_exists(authorisationId)\"}}]}";
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("requests")
    void eachItemActionCarriesThePartitionKeysItNames(String rule, String operation, String body, List<LeadingKeys> expected) throws Exception {
        assertThat(authorization.authorize(operation, "eu-west-1", JSON.readTree(body))).as(rule)
                .map(AuthorizedAction::leadingKeys).containsExactlyElementsOf(expected);
    }

    private LeastPrivilegeProof proof(SynthesizedTemplate template) {
        return new LeastPrivilegeProof(template, new IntrinsicResolver(TemplateResources.of(template, TableNames.withPrefix("local-"),
                SynthesizedTemplateTest.STATE_MACHINE, SynthesizedTemplateTest.SECRET, "eu-west-1", LocalResources.MOTO_ACCOUNT)));
    }

    /** Every action the body is authorised as, judged for the function's role: allowed only if all are. */
    private Verdict verdict(LeastPrivilegeProof proof, LambdaFunction function, String operation, String body) throws Exception {
        return verdict(proof, function, authorization.authorize(operation, "eu-west-1", JSON.readTree(body)));
    }

    private static Verdict verdict(LeastPrivilegeProof proof, LambdaFunction function, List<AuthorizedAction> actions) {
        return actions.stream().map(a -> proof.decide(function.logicalName(), a).verdict())
                .filter(v -> v != Verdict.ALLOW).findFirst().orElse(Verdict.ALLOW);
    }

    private static String getItem(String key) {
        return "{\"TableName\": \"local-Settlements\", \"Key\": {\"authorisationId\": " + s(key) + "}, \"ConsistentRead\": true}";
    }

    private static String putItem(String key) {
        return "{\"TableName\": \"local-Settlements\", \"Item\": {\"authorisationId\": " + s(key) + "}}";
    }

    static Stream<Arguments> grantRows() {
        return Stream.of(LambdaFunction.RECONCILE_PAGE, LambdaFunction.DELIVER_COMMANDS).flatMap(f -> Stream.of(
                Arguments.of(f, "dynamodb:GetItem", getItem("held#*"), Verdict.ALLOW),
                Arguments.of(f, "dynamodb:PutItem", putItem("held#*"), Verdict.ALLOW),
                Arguments.of(f, "dynamodb:TransactWriteItems", transaction("held#*"), Verdict.ALLOW),
                Arguments.of(f, "dynamodb:GetItem", getItem("held#auth-1"), Verdict.IMPLICIT_DENY),
                Arguments.of(f, "dynamodb:PutItem", putItem("held#auth-1"), Verdict.IMPLICIT_DENY),
                Arguments.of(f, "dynamodb:GetItem", getItem("auth-1"), Verdict.IMPLICIT_DENY),
                Arguments.of(f, "dynamodb:PutItem", putItem("auth-1"), Verdict.IMPLICIT_DENY),
                // held#* is a literal key: in StringEquals the * matches only itself, never another hold.
                Arguments.of(f, "dynamodb:PutItem", putItem("held#"), Verdict.IMPLICIT_DENY),
                Arguments.of(f, "dynamodb:TransactWriteItems", transaction("held#auth-1"), Verdict.IMPLICIT_DENY),
                Arguments.of(f, "dynamodb:TransactWriteItems", transaction("auth-1"), Verdict.IMPLICIT_DENY),
                // The grant is GetItem and PutItem only: the same key through another action is not in it.
                Arguments.of(f, "dynamodb:UpdateItem", getItem("held#*").replace(", \"ConsistentRead\": true", ""), Verdict.IMPLICIT_DENY),
                Arguments.of(f, "dynamodb:DeleteItem", getItem("held#*").replace(", \"ConsistentRead\": true", ""), Verdict.IMPLICIT_DENY),
                // A write naming the hold and an authorisation together: ForAllValues needs every key in the grant.
                Arguments.of(f, "dynamodb:BatchWriteItem", "{\"RequestItems\": {\"local-Settlements\": [{\"PutRequest\": {\"Item\": "
                        + "{\"authorisationId\": " + s("held#*") + "}}}, {\"PutRequest\": {\"Item\": {\"authorisationId\": " + s("auth-1") + "}}}]}}",
                        Verdict.IMPLICIT_DENY)));
    }

    @ParameterizedTest(name = "{0} {1} {2}: {3}")
    @MethodSource("grantRows")
    void theNightWideHoldGrantAllowsTheHoldKeyOnlyAndOnlyForGetAndPut(LambdaFunction function, String operation, String body, Verdict expected)
            throws Exception {
        assertThat(verdict(proof(built), function, operation, body)).isEqualTo(expected);
    }

    @Test
    void knownBadWithoutTheKeyInTheRequestTheGrantAllowsNothing() throws Exception {
        LeastPrivilegeProof proof = proof(built);
        for (LambdaFunction f : List.of(LambdaFunction.RECONCILE_PAGE, LambdaFunction.DELIVER_COMMANDS)) {
            for (String[] request : List.of(new String[] {"dynamodb:GetItem", getItem("held#*")}, new String[] {"dynamodb:PutItem", putItem("held#*")},
                    new String[] {"dynamodb:TransactWriteItems", transaction("held#*")})) {
                List<AuthorizedAction> read = authorization.authorize(request[0], "eu-west-1", JSON.readTree(request[1]));
                assertThat(verdict(proof, f, read)).as(f + " " + request[0] + " as read").isEqualTo(Verdict.ALLOW);
                // The evaluator as it was: no LeadingKeys in the context, the grant denies on the missing key (stricter than AWS).
                List<AuthorizedAction> withoutKeys = read.stream().map(a -> new AuthorizedAction(a.action(), a.resource())).toList();
                assertThat(verdict(proof, f, withoutKeys)).as(f + " " + request[0] + " without LeadingKeys").isEqualTo(Verdict.IMPLICIT_DENY);
                // A key the reader could not determine is no better: it never allows through a condition on it.
                List<AuthorizedAction> undetermined = read.stream().map(a -> new AuthorizedAction(a.action(), a.resource(),
                        a.leadingKeys().kind() == LeadingKeys.Kind.KNOWN ? LeadingKeys.UNDETERMINED : a.leadingKeys())).toList();
                assertThat(verdict(proof, f, undetermined)).as(f + " " + request[0] + " undetermined").isEqualTo(Verdict.IMPLICIT_DENY);
            }
        }
    }

    @Test
    void knownBadATemplateWithoutTheStatementRefusesTheHold() throws Exception {
        ObjectNode json = (ObjectNode) built.json();
        int removed = withoutNightWideHold(built, json);
        assertThat(removed).as("the statement is in ReconcilePage's and DeliverCommands' policies").isEqualTo(2);
        LeastPrivilegeProof mutant = proof(SynthesizedTemplate.of("no-night-wide-hold", json));
        for (LambdaFunction f : List.of(LambdaFunction.RECONCILE_PAGE, LambdaFunction.DELIVER_COMMANDS)) {
            assertThat(verdict(mutant, f, "dynamodb:GetItem", getItem("held#*"))).as(f + " GetItem").isEqualTo(Verdict.IMPLICIT_DENY);
            assertThat(verdict(mutant, f, "dynamodb:TransactWriteItems", transaction("held#*"))).as(f + " the fenced Put").isEqualTo(Verdict.IMPLICIT_DENY);
        }
    }

    /** Removes every {@code NightWideHoldOnly} statement from the template's policies; returns how many it removed. */
    static int withoutNightWideHold(SynthesizedTemplate built, ObjectNode json) {
        int removed = 0;
        for (String id : built.resources("AWS::IAM::Policy").keySet()) {
            ArrayNode statements = (ArrayNode) json.path("Resources").path(id).path("Properties").path("PolicyDocument").path("Statement");
            for (int i = statements.size() - 1; i >= 0; i--) {
                JsonNode statement = statements.get(i);
                if (statement.path("Sid").asText().equals(DataAccess.NIGHT_WIDE_HOLD_SID)) {
                    statements.remove(i);
                    removed++;
                }
            }
        }
        return removed;
    }
}
