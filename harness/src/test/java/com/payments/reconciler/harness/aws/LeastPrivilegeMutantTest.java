package com.payments.reconciler.harness.aws;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.payments.reconciler.harness.aws.IamDecision.Verdict;
import com.payments.reconciler.store.TableNames;
import com.payments.reconciler.workflow.LambdaFunction;
import java.util.List;
import java.util.Optional;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;

/**
 * The proof can fail: the same known calls, evaluated against templates with one statement narrowed, a Deny
 * added, a grant widened or the secret's policy pointed elsewhere, flip from allowed to denied (or leave an
 * unexercised grant), where the template as built allows them all.
 */
class LeastPrivilegeMutantTest {

    private static final String T = "arn:aws:dynamodb:eu-west-1:123456789012:table/local-";
    private final SynthesizedTemplate built = SynthesizedTemplate.load();

    /** ReconcilePage's fenced release (one transaction) and DeliverCommands' key read, as the recorder records them. */
    private static final List<RecordedCall> KNOWN = List.of(
            call(1, LambdaFunction.RECONCILE_PAGE, "dynamodb:TransactWriteItems",
                    new AuthorizedAction("dynamodb:ConditionCheckItem", T + "Leases"),
                    new AuthorizedAction("dynamodb:UpdateItem", T + "Authorisations"),
                    new AuthorizedAction("dynamodb:ConditionCheckItem", T + "Settlements"),
                    new AuthorizedAction("dynamodb:PutItem", T + "ReleaseCommands")),
            call(2, LambdaFunction.DELIVER_COMMANDS, "secretsmanager:GetSecretValue",
                    new AuthorizedAction("secretsmanager:GetSecretValue", SynthesizedTemplateTest.SECRET)));

    private static RecordedCall call(long seq, LambdaFunction function, String operation, AuthorizedAction... actions) {
        return new RecordedCall(seq, function.logicalName(), Optional.empty(), Optional.of(operation), List.of(actions), Optional.empty(),
                200, Optional.empty(), false);
    }

    private LeastPrivilegeProof proof(SynthesizedTemplate template) {
        return new LeastPrivilegeProof(template, new IntrinsicResolver(TemplateResources.of(template, TableNames.withPrefix("local-"),
                SynthesizedTemplateTest.STATE_MACHINE, SynthesizedTemplateTest.SECRET, "eu-west-1", LocalResources.MOTO_ACCOUNT)));
    }

    private SynthesizedTemplate mutant(Consumer<ObjectNode> change) {
        ObjectNode json = (ObjectNode) built.json();
        change.accept(json);
        return SynthesizedTemplate.of("mutant", json);
    }

    /** The Statement array of the policy attached to a function's role. */
    private ArrayNode statementsOf(ObjectNode json, LambdaFunction function) {
        String role = built.function(function).roleLogicalId();
        for (var e : built.resources("AWS::IAM::Policy").entrySet()) {
            if (e.getValue().path("Properties").path("Roles").path(0).path("Ref").asText().equals(role)) {
                return (ArrayNode) json.path("Resources").path(e.getKey()).path("Properties").path("PolicyDocument").path("Statement");
            }
        }
        throw new AssertionError("no policy for " + function);
    }

    private static ObjectNode bySid(ArrayNode statements, String sid) {
        for (JsonNode s : statements) {
            if (s.path("Sid").asText().equals(sid)) {
                return (ObjectNode) s;
            }
        }
        throw new AssertionError("no statement " + sid);
    }

    private Verdict verdict(SynthesizedTemplate template, LambdaFunction function, AuthorizedAction action) {
        return proof(template).decide(function.logicalName(), action).verdict();
    }

    private static final AuthorizedAction LEASE_CHECK = new AuthorizedAction("dynamodb:ConditionCheckItem", T + "Leases");

    @Test
    void asBuiltEveryKnownCallIsAllowed() {
        LeastPrivilegeProof.Report report = proof(built).check(KNOWN, CallerAttribution.byFrontDoor(), List.of());
        assertThat(report.denied()).isEmpty();
        assertThat(report.verdicts()).hasSize(5);
    }

    @Test
    void aRoleMissingTheLeaseCheckRefusesTheFencedTransaction() {
        SynthesizedTemplate narrowed = mutant(json -> {
            ObjectNode leases = bySid(statementsOf(json, LambdaFunction.RECONCILE_PAGE), "LeasesTable");
            leases.putArray("Action").add("dynamodb:UpdateItem");
        });
        assertThat(verdict(built, LambdaFunction.RECONCILE_PAGE, LEASE_CHECK)).isEqualTo(Verdict.ALLOW);
        assertThat(verdict(narrowed, LambdaFunction.RECONCILE_PAGE, LEASE_CHECK)).isEqualTo(Verdict.IMPLICIT_DENY);
        assertThat(proof(narrowed).check(KNOWN, CallerAttribution.byFrontDoor(), List.of()).denied())
                .extracting(v -> v.action().toString()).containsExactly(LEASE_CHECK.toString());
    }

    @Test
    void anAddedDenyWinsOverTheGrant() {
        SynthesizedTemplate denied = mutant(json -> statementsOf(json, LambdaFunction.RECONCILE_PAGE).addObject()
                .put("Sid", "NoWritesToLeases").put("Effect", "Deny").put("Action", "dynamodb:*")
                .set("Resource", json.objectNode().set("Fn::GetAtt", json.arrayNode().add(leasesTableId()).add("Arn"))));
        IamDecision decision = proof(denied).decide(LambdaFunction.RECONCILE_PAGE.logicalName(), LEASE_CHECK);
        assertThat(decision.verdict()).isEqualTo(Verdict.EXPLICIT_DENY);
        assertThat(decision.decidedBy().flatMap(PolicyStatement::sid)).contains("NoWritesToLeases");
    }

    @Test
    void aWidenedGrantIsAnUnexercisedStatementAction() {
        SynthesizedTemplate widened = mutant(json -> ((ArrayNode) bySid(statementsOf(json, LambdaFunction.RECONCILE_PAGE), "LeasesTable")
                .path("Action")).add("dynamodb:DeleteItem"));
        LeastPrivilegeProof.Report report = proof(widened).check(KNOWN, CallerAttribution.byFrontDoor(), List.of());
        assertThat(report.gaps()).contains(new LeastPrivilegeProof.Gap("ReconcilePage",
                proof(widened).statements("ReconcilePage").stream().filter(s -> s.sid().orElse("").equals("LeasesTable")).findFirst().orElseThrow().label(),
                "dynamodb:DeleteItem"));
        assertThat(proof(built).check(KNOWN, CallerAttribution.byFrontDoor(), List.of()).gaps())
                .noneMatch(g -> g.action().equals("dynamodb:DeleteItem") && g.function().equals("ReconcilePage"));
    }

    @Test
    void theSecretsPolicyNamingAnotherRoleDeniesTheDeliveryFunction() {
        AuthorizedAction read = new AuthorizedAction("secretsmanager:GetSecretValue", SynthesizedTemplateTest.SECRET);
        String otherRole = built.function(LambdaFunction.RECONCILE_PAGE).roleLogicalId();
        SynthesizedTemplate repointed = mutant(json -> {
            for (var e : built.resources("AWS::SecretsManager::ResourcePolicy").entrySet()) {
                ObjectNode condition = (ObjectNode) json.path("Resources").path(e.getKey()).path("Properties").path("ResourcePolicy")
                        .path("Statement").path(0).path("Condition").path("StringNotEquals");
                condition.set("aws:PrincipalArn", json.objectNode().set("Fn::GetAtt", json.arrayNode().add(otherRole).add("Arn")));
            }
        });
        assertThat(verdict(built, LambdaFunction.DELIVER_COMMANDS, read)).isEqualTo(Verdict.ALLOW);
        assertThat(verdict(repointed, LambdaFunction.DELIVER_COMMANDS, read)).isEqualTo(Verdict.EXPLICIT_DENY);
        // And as built, no other function may read it: no grant, and the secret's own Deny.
        for (LambdaFunction other : LambdaFunction.values()) {
            if (other != LambdaFunction.DELIVER_COMMANDS) {
                assertThat(verdict(built, other, read)).as(other.logicalName()).isEqualTo(Verdict.EXPLICIT_DENY);
            }
        }
    }

    private String leasesTableId() {
        return built.resources("AWS::DynamoDB::Table").entrySet().stream()
                .filter(e -> e.getValue().path("Properties").path("TableName").asText().endsWith("Leases")).findFirst().orElseThrow().getKey();
    }
}
