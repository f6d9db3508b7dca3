package com.payments.reconciler.harness.aws;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.payments.reconciler.harness.aws.IamDecision.Verdict;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** IAM's rules as the evaluator implements them, one row per rule: statements, request, verdict, deciding Sid. */
class IamPolicyEvaluatorTest {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String ROLE = "arn:aws:iam::123456789012:role/Deliver";
    private static final String OTHER = "arn:aws:iam::123456789012:role/Admin";
    private static final String TABLE = "arn:aws:dynamodb:eu-west-1:123456789012:table/Leases";
    private static final String SECRET = "arn:aws:secretsmanager:eu-west-1:123456789012:secret:key-AbCdEf";
    private final IamPolicyEvaluator evaluator = new IamPolicyEvaluator();

    static List<PolicyStatement> statements(String json) {
        JsonNode array;
        try {
            array = JSON.readTree(json);
        } catch (java.io.IOException e) {
            throw new AssertionError(e);
        }
        List<PolicyStatement> out = new ArrayList<>();
        for (int i = 0; i < array.size(); i++) {
            out.add(PolicyStatement.parse("test#" + i, array.get(i)));
        }
        return out;
    }

    static Stream<Arguments> identityRows() {
        String update = "{\"Sid\": \"U\", \"Effect\": \"Allow\", \"Action\": \"dynamodb:UpdateItem\", \"Resource\": \"" + TABLE + "\"}";
        return Stream.of(
                Arguments.of("exact action and resource", "[" + update + "]", "dynamodb:UpdateItem", TABLE, Verdict.ALLOW, "U"),
                Arguments.of("action matched case-insensitively", "[" + update + "]", "DynamoDB:updateitem", TABLE, Verdict.ALLOW, "U"),
                Arguments.of("another action: implicit deny", "[" + update + "]", "dynamodb:DeleteItem", TABLE, Verdict.IMPLICIT_DENY, null),
                Arguments.of("another table: implicit deny", "[" + update + "]", "dynamodb:UpdateItem", TABLE + "2", Verdict.IMPLICIT_DENY, null),
                Arguments.of("the table's grant does not cover its index", "[" + update + "]", "dynamodb:UpdateItem", TABLE + "/index/i", Verdict.IMPLICIT_DENY, null),
                Arguments.of("resource matched case-sensitively", "[" + update + "]", "dynamodb:UpdateItem", TABLE.replace("Leases", "leases"), Verdict.IMPLICIT_DENY, null),
                Arguments.of("* in an action", "[{\"Sid\": \"W\", \"Effect\": \"Allow\", \"Action\": \"dynamodb:*Item\", \"Resource\": \"*\"}]",
                        "dynamodb:ConditionCheckItem", TABLE, Verdict.ALLOW, "W"),
                Arguments.of("? in an action is one character", "[{\"Sid\": \"Q\", \"Effect\": \"Allow\", \"Action\": \"dynamodb:?etItem\", \"Resource\": \"*\"}]",
                        "dynamodb:BatchGetItem", TABLE, Verdict.IMPLICIT_DENY, null),
                Arguments.of("* in a resource spans the resource part", "[{\"Sid\": \"R\", \"Effect\": \"Allow\", \"Action\": \"states:DescribeExecution\", "
                        + "\"Resource\": \"arn:aws:states:eu-west-1:123456789012:execution:sm:*\"}]",
                        "states:DescribeExecution", "arn:aws:states:eu-west-1:123456789012:execution:sm:reconcile-2026-12-01", Verdict.ALLOW, "R"),
                Arguments.of("* does not cross an ARN component", "[{\"Sid\": \"R\", \"Effect\": \"Allow\", \"Action\": \"states:DescribeExecution\", "
                        + "\"Resource\": \"arn:aws:states:eu-*:123456789012:execution:sm:*\"}]",
                        "states:DescribeExecution", "arn:aws:states:us-east-1:123456789012:execution:sm:x", Verdict.IMPLICIT_DENY, null),
                Arguments.of("explicit deny wins over an allow", "[" + update + ", {\"Sid\": \"D\", \"Effect\": \"Deny\", \"Action\": \"dynamodb:*\", \"Resource\": \"*\"}]",
                        "dynamodb:UpdateItem", TABLE, Verdict.EXPLICIT_DENY, "D"),
                Arguments.of("NotAction allows everything else", "[{\"Sid\": \"N\", \"Effect\": \"Allow\", \"NotAction\": \"dynamodb:DeleteItem\", \"Resource\": \"*\"}]",
                        "dynamodb:UpdateItem", TABLE, Verdict.ALLOW, "N"),
                Arguments.of("NotAction excludes its own", "[{\"Sid\": \"N\", \"Effect\": \"Allow\", \"NotAction\": \"dynamodb:DeleteItem\", \"Resource\": \"*\"}]",
                        "dynamodb:DeleteItem", TABLE, Verdict.IMPLICIT_DENY, null),
                Arguments.of("NotResource deny spares its own", "[" + update + ", {\"Sid\": \"D\", \"Effect\": \"Deny\", \"Action\": \"*\", \"NotResource\": \"" + TABLE + "\"}]",
                        "dynamodb:UpdateItem", TABLE, Verdict.ALLOW, "U"),
                Arguments.of("NotResource deny hits the others", "[{\"Sid\": \"D\", \"Effect\": \"Deny\", \"Action\": \"*\", \"NotResource\": \"" + TABLE + "\"}]",
                        "dynamodb:UpdateItem", TABLE + "2", Verdict.EXPLICIT_DENY, "D"),
                Arguments.of("StringEquals on a missing key is false (kms:ViaService absent: a direct call)",
                        "[{\"Sid\": \"K\", \"Effect\": \"Allow\", \"Action\": \"kms:Decrypt\", \"Resource\": \"*\", \"Condition\": {\"StringEquals\": {\"kms:ViaService\": \"dynamodb.eu-west-1.amazonaws.com\"}}}]",
                        "kms:Decrypt", "arn:aws:kms:eu-west-1:123456789012:key/k", Verdict.IMPLICIT_DENY, null),
                Arguments.of("Bool aws:SecureTransport false denies plain HTTP; true passes",
                        "[" + update + ", {\"Sid\": \"TLS\", \"Effect\": \"Deny\", \"Action\": \"*\", \"Resource\": \"*\", \"Condition\": {\"Bool\": {\"aws:SecureTransport\": \"false\"}}}]",
                        "dynamodb:UpdateItem", TABLE, Verdict.ALLOW, "U"),
                Arguments.of("ArnLike on aws:PrincipalArn", "[{\"Sid\": \"A\", \"Effect\": \"Allow\", \"Action\": \"*\", \"Resource\": \"*\", "
                        + "\"Condition\": {\"ArnLike\": {\"aws:PrincipalArn\": \"arn:aws:iam::123456789012:role/Del*\"}}}]",
                        "dynamodb:UpdateItem", TABLE, Verdict.ALLOW, "A"),
                Arguments.of("conditions: keys ANDed", "[{\"Sid\": \"A\", \"Effect\": \"Allow\", \"Action\": \"*\", \"Resource\": \"*\", "
                        + "\"Condition\": {\"StringEquals\": {\"aws:PrincipalArn\": \"" + ROLE + "\", \"aws:SecureTransport\": \"false\"}}}]",
                        "dynamodb:UpdateItem", TABLE, Verdict.IMPLICIT_DENY, null),
                Arguments.of("conditions: values ORed", "[{\"Sid\": \"A\", \"Effect\": \"Allow\", \"Action\": \"*\", \"Resource\": \"*\", "
                        + "\"Condition\": {\"StringEquals\": {\"aws:PrincipalArn\": [\"" + OTHER + "\", \"" + ROLE + "\"]}}}]",
                        "dynamodb:UpdateItem", TABLE, Verdict.ALLOW, "A"),
                Arguments.of("Null true: the key must be absent", "[{\"Sid\": \"A\", \"Effect\": \"Allow\", \"Action\": \"*\", \"Resource\": \"*\", "
                        + "\"Condition\": {\"Null\": {\"kms:ViaService\": \"true\"}}}]",
                        "dynamodb:UpdateItem", TABLE, Verdict.ALLOW, "A"),
                Arguments.of("IfExists passes on a missing key", "[{\"Sid\": \"A\", \"Effect\": \"Allow\", \"Action\": \"*\", \"Resource\": \"*\", "
                        + "\"Condition\": {\"StringEqualsIfExists\": {\"kms:ViaService\": \"x\"}}}]",
                        "dynamodb:UpdateItem", TABLE, Verdict.ALLOW, "A"));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("identityRows")
    void identityPolicies(String rule, String policy, String action, String resource, Verdict verdict, String sid) {
        IamDecision decision = evaluator.evaluate(statements(policy), IamRequest.of(action, resource, ROLE));
        assertThat(decision.verdict()).as(rule).isEqualTo(verdict);
        assertThat(decision.decidedBy().flatMap(PolicyStatement::sid)).as(rule).isEqualTo(Optional.ofNullable(sid));
    }

    /** The stack's secret: DeliverCommands' role allows the read; the secret's policy denies every other principal. */
    private static final String SECRET_POLICY = "[{\"Sid\": \"OnlyDeliverCommandsReadsTheKey\", \"Effect\": \"Deny\", \"Principal\": {\"AWS\": \"*\"}, "
            + "\"Action\": \"secretsmanager:GetSecretValue\", \"Resource\": \"*\", \"Condition\": {\"StringNotEquals\": {\"aws:PrincipalArn\": \"" + ROLE + "\"}}}]";

    static Stream<Arguments> resourcePolicyRows() {
        String read = "[{\"Sid\": \"ReadProviderApiKey\", \"Effect\": \"Allow\", \"Action\": \"secretsmanager:GetSecretValue\", \"Resource\": \"" + SECRET + "\"}]";
        String admin = "[{\"Sid\": \"Admin\", \"Effect\": \"Allow\", \"Action\": \"*\", \"Resource\": \"*\"}]";
        return Stream.of(
                Arguments.of("the delivery role reads the key", read, ROLE, Verdict.ALLOW, "ReadProviderApiKey"),
                Arguments.of("an administrator's allow-all is denied by the secret's policy", admin, OTHER, Verdict.EXPLICIT_DENY, "OnlyDeliverCommandsReadsTheKey"),
                Arguments.of("a role without a grant is denied (explicitly, by the secret)", "[]", OTHER, Verdict.EXPLICIT_DENY, "OnlyDeliverCommandsReadsTheKey"),
                Arguments.of("the delivery role without its grant: implicit deny (the resource policy only denies)", "[]", ROLE, Verdict.IMPLICIT_DENY, null));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("resourcePolicyRows")
    void identityAndResourcePolicyTogether(String rule, String identity, String principal, Verdict verdict, String sid) {
        IamDecision decision = evaluator.evaluate(statements(identity), statements(SECRET_POLICY),
                IamRequest.of("secretsmanager:GetSecretValue", SECRET, principal));
        assertThat(decision.verdict()).as(rule).isEqualTo(verdict);
        assertThat(decision.decidedBy().flatMap(PolicyStatement::sid)).as(rule).isEqualTo(Optional.ofNullable(sid));
    }

    @Test
    void aResourcePolicyAllowNamingThePrincipalAllowsInTheSameAccount() {
        List<PolicyStatement> resource = statements("[{\"Sid\": \"R\", \"Effect\": \"Allow\", \"Principal\": {\"AWS\": \"" + ROLE + "\"}, "
                + "\"Action\": \"secretsmanager:GetSecretValue\", \"Resource\": \"*\"}]");
        assertThat(evaluator.evaluate(List.of(), resource, IamRequest.of("secretsmanager:GetSecretValue", SECRET, ROLE)).verdict()).isEqualTo(Verdict.ALLOW);
        assertThat(evaluator.evaluate(List.of(), resource, IamRequest.of("secretsmanager:GetSecretValue", SECRET, OTHER)).verdict()).isEqualTo(Verdict.IMPLICIT_DENY);
    }

    @Test
    void forAllValuesLimitsAGrantToItsKeysAndAnAbsentKeyAllowsNothing() {
        List<PolicyStatement> hold = statements("[{\"Sid\": \"H\", \"Effect\": \"Allow\", \"Action\": \"dynamodb:PutItem\", \"Resource\": \"" + TABLE
                + "\", \"Condition\": {\"ForAllValues:StringEquals\": {\"dynamodb:LeadingKeys\": [\"held#*\"]}}}]");
        assertThat(evaluator.evaluate(hold, IamRequest.of("dynamodb:PutItem", TABLE, ROLE).withContext("dynamodb:LeadingKeys", "held#*")).verdict())
                .isEqualTo(Verdict.ALLOW);
        assertThat(evaluator.evaluate(hold, IamRequest.of("dynamodb:PutItem", TABLE, ROLE).withContext("dynamodb:LeadingKeys", "auth-1")).verdict())
                .as("another key").isEqualTo(Verdict.IMPLICIT_DENY);
        // Known-bad for a local proof: IAM passes a set operator on an absent key; this evaluator must not allow more than IAM.
        assertThat(evaluator.evaluate(hold, IamRequest.of("dynamodb:PutItem", TABLE, ROLE)).verdict()).as("no key in the request")
                .isEqualTo(Verdict.IMPLICIT_DENY);
        assertThatThrownBy(() -> statements("[{\"Effect\": \"Allow\", \"Action\": \"*\", \"Resource\": \"*\", "
                + "\"Condition\": {\"ForAllValues:StringNotEquals\": {\"dynamodb:LeadingKeys\": \"x\"}}}]"))
                .isInstanceOf(UnsupportedPolicy.class);
    }

    @Test
    void leadingKeysAsAValueSetEveryValueMustBeInTheGrant() {
        List<PolicyStatement> hold = statements("[{\"Sid\": \"H\", \"Effect\": \"Allow\", \"Action\": [\"dynamodb:GetItem\", \"dynamodb:PutItem\"], "
                + "\"Resource\": \"" + TABLE + "\", \"Condition\": {\"ForAllValues:StringEquals\": {\"dynamodb:LeadingKeys\": [\"held#*\"]}}}]");
        IamRequest put = IamRequest.of("dynamodb:PutItem", TABLE, ROLE);
        IamRequest get = IamRequest.of("dynamodb:GetItem", TABLE, ROLE);
        assertThat(evaluator.evaluate(hold, put.withValues("dynamodb:LeadingKeys", List.of("held#*"))).verdict()).isEqualTo(Verdict.ALLOW);
        assertThat(evaluator.evaluate(hold, get.withValues("dynamodb:LeadingKeys", List.of("held#*"))).verdict()).isEqualTo(Verdict.ALLOW);
        assertThat(evaluator.evaluate(hold, get.withValues("dynamodb:LeadingKeys", List.of("held#auth-1"))).verdict()).isEqualTo(Verdict.IMPLICIT_DENY);
        assertThat(evaluator.evaluate(hold, put.withValues("dynamodb:LeadingKeys", List.of("auth-1"))).verdict()).isEqualTo(Verdict.IMPLICIT_DENY);
        // One value outside the grant denies the whole set (a batch naming the hold and an authorisation).
        assertThat(evaluator.evaluate(hold, put.withValues("dynamodb:LeadingKeys", List.of("held#*", "auth-1"))).verdict())
                .isEqualTo(Verdict.IMPLICIT_DENY);
        // Known-bad: an empty set would pass "every value matches" vacuously (as IAM passes an absent key); the evaluator denies.
        assertThat(evaluator.evaluate(hold, put.withValues("dynamodb:LeadingKeys", List.of())).verdict()).isEqualTo(Verdict.IMPLICIT_DENY);
    }

    @Test
    void anUndeterminedKeyNeverAllowsThroughAConditionOnIt() {
        List<PolicyStatement> hold = statements("[{\"Sid\": \"H\", \"Effect\": \"Allow\", \"Action\": \"dynamodb:PutItem\", \"Resource\": \"" + TABLE
                + "\", \"Condition\": {\"ForAllValues:StringEquals\": {\"dynamodb:LeadingKeys\": [\"held#*\"]}}}]");
        IamRequest undetermined = IamRequest.of("dynamodb:PutItem", TABLE, ROLE).withUndetermined("dynamodb:LeadingKeys");
        assertThat(evaluator.evaluate(hold, undetermined).verdict()).as("Allow: its condition fails").isEqualTo(Verdict.IMPLICIT_DENY);
        // In a Deny the same key makes the condition hold: a negated operator would otherwise let an unknown key slip past it.
        List<PolicyStatement> denyOthers = statements("[{\"Sid\": \"A\", \"Effect\": \"Allow\", \"Action\": \"dynamodb:PutItem\", \"Resource\": \"" + TABLE
                + "\"}, {\"Sid\": \"D\", \"Effect\": \"Deny\", \"Action\": \"dynamodb:PutItem\", \"Resource\": \"" + TABLE
                + "\", \"Condition\": {\"StringNotEquals\": {\"dynamodb:LeadingKeys\": \"held#*\"}}}]");
        assertThat(evaluator.evaluate(denyOthers, undetermined).verdict()).as("Deny: its condition holds").isEqualTo(Verdict.EXPLICIT_DENY);
        assertThat(evaluator.evaluate(denyOthers, IamRequest.of("dynamodb:PutItem", TABLE, ROLE).withValues("dynamodb:LeadingKeys", List.of("held#*")))
                .verdict()).as("the hold key passes the Deny").isEqualTo(Verdict.ALLOW);
        assertThat(evaluator.evaluate(denyOthers, IamRequest.of("dynamodb:PutItem", TABLE, ROLE).withValues("dynamodb:LeadingKeys", List.of("auth-1")))
                .verdict()).as("another key is denied").isEqualTo(Verdict.EXPLICIT_DENY);
        // A single-valued operator over several values is not modelled: the safe way, as for an undetermined key.
        assertThat(evaluator.evaluate(denyOthers, IamRequest.of("dynamodb:PutItem", TABLE, ROLE)
                .withValues("dynamodb:LeadingKeys", List.of("held#*", "held#*2"))).verdict()).isEqualTo(Verdict.EXPLICIT_DENY);
        // A statement without a condition on the key is unaffected by it.
        assertThat(evaluator.evaluate(denyOthers.subList(0, 1), undetermined).verdict()).isEqualTo(Verdict.ALLOW);
    }

    @Test
    void anUnknownConditionOperatorFailsLoudlyInsteadOfAllowing() {
        assertThatThrownBy(() -> statements("[{\"Effect\": \"Allow\", \"Action\": \"*\", \"Resource\": \"*\", "
                + "\"Condition\": {\"NumericLessThan\": {\"aws:MultiFactorAuthAge\": \"3600\"}}}]"))
                .isInstanceOf(UnsupportedPolicy.class).hasMessageContaining("NumericLessThan");
        assertThatThrownBy(() -> statements("[{\"Effect\": \"Allow\", \"Action\": \"*\", \"Resource\": \"*\", "
                + "\"Condition\": {\"ForAnyValue:StringEquals\": {\"dynamodb:EnclosingOperation\": \"TransactWriteItems\"}}}]"))
                .isInstanceOf(UnsupportedPolicy.class).hasMessageContaining("ForAnyValue:StringEquals");
        assertThatThrownBy(() -> statements("[{\"Effect\": \"Allow\", \"NotPrincipal\": {\"AWS\": \"x\"}, \"Action\": \"*\", \"Resource\": \"*\"}]"))
                .isInstanceOf(UnsupportedPolicy.class);
    }
}
