package com.payments.reconciler.harness.aws;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** Each intrinsic, nested ones, and the errors: a table of template fragments and what they resolve to locally. */
class IntrinsicResolverTest {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final LocalResources LOCAL = LocalResources.of(Map.of(
            "Table", new LocalResources.Resource("local-Leases", Map.of("Arn", "arn:aws:dynamodb:eu-west-1:123456789012:table/local-Leases")),
            "Machine", LocalResources.Resource.of("arn:aws:states:eu-west-1:123456789012:stateMachine:sm", "arn:aws:states:eu-west-1:123456789012:stateMachine:sm")),
            "eu-west-1", "123456789012");
    private final IntrinsicResolver resolver = new IntrinsicResolver(LOCAL);

    static Stream<Arguments> resolved() {
        return Stream.of(
                Arguments.of("{\"Ref\": \"Table\"}", "\"local-Leases\""),
                Arguments.of("{\"Ref\": \"AWS::Region\"}", "\"eu-west-1\""),
                Arguments.of("{\"Ref\": \"AWS::AccountId\"}", "\"123456789012\""),
                Arguments.of("{\"Ref\": \"AWS::Partition\"}", "\"aws\""),
                Arguments.of("{\"Ref\": \"AWS::URLSuffix\"}", "\"amazonaws.com\""),
                Arguments.of("{\"Fn::GetAtt\": [\"Table\", \"Arn\"]}", "\"arn:aws:dynamodb:eu-west-1:123456789012:table/local-Leases\""),
                Arguments.of("{\"Fn::GetAtt\": \"Table.Arn\"}", "\"arn:aws:dynamodb:eu-west-1:123456789012:table/local-Leases\""),
                Arguments.of("{\"Fn::Join\": [\"\", [{\"Fn::GetAtt\": [\"Table\", \"Arn\"]}, \"/index/pending-by-age\"]]}",
                        "\"arn:aws:dynamodb:eu-west-1:123456789012:table/local-Leases/index/pending-by-age\""),
                Arguments.of("{\"Fn::Join\": [\"\", [\"arn:\", {\"Ref\": \"AWS::Partition\"}, \":states:\", {\"Ref\": \"AWS::Region\"}, \":\", "
                        + "{\"Ref\": \"AWS::AccountId\"}, \":execution:sm:*\"]]}", "\"arn:aws:states:eu-west-1:123456789012:execution:sm:*\""),
                Arguments.of("{\"Fn::Select\": [1, [\"a\", \"b\", \"c\"]]}", "\"b\""),
                Arguments.of("{\"Fn::Split\": [\":\", \"a:b::c\"]}", "[\"a\", \"b\", \"\", \"c\"]"),
                Arguments.of("{\"Fn::Select\": [5, {\"Fn::Split\": [\":\", {\"Ref\": \"Machine\"}]}]}", "\"stateMachine\""),
                Arguments.of("{\"Fn::Sub\": \"arn:${AWS::Partition}:logs:${AWS::Region}:${AWS::AccountId}:log-group:${Table}\"}",
                        "\"arn:aws:logs:eu-west-1:123456789012:log-group:local-Leases\""),
                Arguments.of("{\"Fn::Sub\": \"${Table.Arn}/index/*\"}", "\"arn:aws:dynamodb:eu-west-1:123456789012:table/local-Leases/index/*\""),
                Arguments.of("{\"Fn::Sub\": \"${!Literal}-${AWS::Region}\"}", "\"${Literal}-eu-west-1\""),
                Arguments.of("{\"Fn::Sub\": [\"${Name}-${AWS::Region}\", {\"Name\": {\"Ref\": \"Table\"}}]}", "\"local-Leases-eu-west-1\""),
                Arguments.of("{\"Variables\": {\"A\": {\"Ref\": \"Table\"}, \"B\": \"literal\"}, \"List\": [{\"Ref\": \"AWS::Region\"}, 3]}",
                        "{\"Variables\": {\"A\": \"local-Leases\", \"B\": \"literal\"}, \"List\": [\"eu-west-1\", 3]}"));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("resolved")
    void resolvesAgainstTheLocalResources(String fragment, String expected) throws Exception {
        assertThat(resolver.resolve(JSON.readTree(fragment))).isEqualTo(JSON.readTree(expected));
    }

    static Stream<Arguments> refused() {
        return Stream.of(
                Arguments.of("{\"Ref\": \"Nowhere\"}", "the logical id Nowhere is not in the local resource map"),
                Arguments.of("{\"Fn::Join\": [\"\", [{\"Fn::GetAtt\": [\"Missing\", \"Arn\"]}]]}", "$.Fn::Join[1][0].Fn::GetAtt: the logical id Missing"),
                Arguments.of("{\"Fn::GetAtt\": [\"Table\", \"StreamArn\"]}", "the local resource Table has no attribute StreamArn"),
                Arguments.of("{\"Fn::Sub\": \"${Nowhere.Arn}\"}", "the logical id Nowhere"),
                Arguments.of("{\"Ref\": \"AWS::StackName\"}", "the pseudo parameter AWS::StackName has no local value"),
                Arguments.of("{\"Fn::ImportValue\": \"SharedVpc\"}", "Fn::ImportValue \"SharedVpc\" names another stack's export"),
                Arguments.of("{\"Fn::If\": [\"C\", \"a\", \"b\"]}", "the intrinsic Fn::If is not supported"),
                Arguments.of("{\"Fn::Select\": [3, [\"a\"]]}", "Fn::Select index 3 outside"));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("refused")
    void refusesWhatItCannotAnswerWithTheReason(String fragment, String message) throws Exception {
        JsonNode node = JSON.readTree(fragment);
        assertThatThrownBy(() -> resolver.resolve(node)).isInstanceOf(UnresolvableTemplate.class).hasMessageContaining(message);
    }
}
