package com.payments.reconciler.cli.preflight;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;
import software.amazon.awssdk.awscore.exception.AwsErrorDetails;
import software.amazon.awssdk.awscore.exception.AwsServiceException;
import software.amazon.awssdk.services.cloudformation.CloudFormationClient;
import software.amazon.awssdk.services.cloudformation.model.CloudFormationException;
import software.amazon.awssdk.services.cloudformation.model.DescribeStacksRequest;
import software.amazon.awssdk.services.cloudformation.model.DescribeStacksResponse;
import software.amazon.awssdk.services.lambda.LambdaClient;
import software.amazon.awssdk.services.lambda.model.AccountLimit;
import software.amazon.awssdk.services.lambda.model.GetAccountSettingsRequest;
import software.amazon.awssdk.services.lambda.model.GetAccountSettingsResponse;
import software.amazon.awssdk.services.lambda.model.LambdaException;

/**
 * An operator policy without one of the pre-flight's read-only actions: the denial names the action (exit 3 with a
 * line saying which permission to add), where a bare AWS error would only say access was denied.
 */
class AccountProbeTest {

    private static AwsErrorDetails details(String code) {
        return AwsErrorDetails.builder().errorCode(code).errorMessage("denied").build();
    }

    private static LambdaClient lambda(boolean deny) {
        return new LambdaClient() {
            @Override
            public GetAccountSettingsResponse getAccountSettings(GetAccountSettingsRequest request) {
                if (deny) {
                    throw (LambdaException) LambdaException.builder().awsErrorDetails(details("AccessDeniedException")).statusCode(403).build();
                }
                return GetAccountSettingsResponse.builder()
                        .accountLimit(AccountLimit.builder().concurrentExecutions(1000).unreservedConcurrentExecutions(1000).build()).build();
            }

            @Override
            public String serviceName() {
                return "lambda";
            }

            @Override
            public void close() {
            }
        };
    }

    private static CloudFormationClient cloudFormation(String code) {
        return new CloudFormationClient() {
            @Override
            public DescribeStacksResponse describeStacks(DescribeStacksRequest request) {
                throw (CloudFormationException) CloudFormationException.builder().awsErrorDetails(details(code)).statusCode(403).build();
            }

            @Override
            public String serviceName() {
                return "cloudformation";
            }

            @Override
            public void close() {
            }
        };
    }

    @Test
    void aDeniedCallIsNamedByItsAction() {
        assertThatThrownBy(() -> new AccountProbe(lambda(true), null, null, null, null, null).gather("eu-west-1", "p-", "p-key"))
                .isInstanceOfSatisfying(AccountProbe.PermissionDenied.class, e -> {
                    assertThat(e.action()).isEqualTo("lambda:GetAccountSettings");
                    assertThat(e.getMessage()).contains("may not call lambda:GetAccountSettings", "docs/deploy.md");
                });
        assertThatThrownBy(() -> new AccountProbe(lambda(false), cloudFormation("AccessDenied"), null, null, null, null)
                .gather("eu-west-1", "p-", "p-key"))
                .isInstanceOfSatisfying(AccountProbe.PermissionDenied.class, e -> assertThat(e.action()).isEqualTo("cloudformation:DescribeStacks"));
    }

    @Test
    void theDeployPageListsEveryActionThePreflightCalls() throws java.io.IOException {
        String page = java.nio.file.Files.readString(java.nio.file.Path.of(System.getProperty("user.dir")).getParent().resolve("docs/deploy.md"));
        String section = page.substring(page.indexOf("## Pre-flight on a real account"), page.indexOf("2. **Bootstrap"));
        assertThat(AccountProbe.ACTIONS).allSatisfy(action -> assertThat(section).as(action).contains("`" + action + "`"));
        assertThat(section).as("known bad: an action the page does not list").doesNotContain("`lambda:GetFunction`");
    }

    @Test
    void otherErrorsStayAsAwsAnsweredThem() {
        assertThatThrownBy(() -> new AccountProbe(lambda(false), cloudFormation("Throttling"), null, null, null, null)
                .gather("eu-west-1", "p-", "p-key"))
                .isInstanceOf(CloudFormationException.class).isNotInstanceOf(AccountProbe.PermissionDenied.class);
        assertThat(AccountProbe.<String>allowed("x:Y", () -> "ok")).isEqualTo("ok");
        assertThatThrownBy(() -> AccountProbe.allowed("x:Y", () -> {
            throw AwsServiceException.builder().awsErrorDetails(details("ValidationError")).build();
        })).isNotInstanceOf(AccountProbe.PermissionDenied.class);
    }
}
