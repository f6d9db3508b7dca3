package com.payments.reconciler.harness.aws;

import static org.assertj.core.api.Assertions.assertThat;

import com.payments.reconciler.store.TableNames;
import com.payments.reconciler.workflow.EnvVars;
import com.payments.reconciler.workflow.LambdaFunction;
import com.payments.reconciler.workflow.ReservedConcurrency;
import java.util.Arrays;
import org.junit.jupiter.api.Test;

/** The template the cdk build wrote, read from the classpath: its functions, environments and role statements, resolved locally. */
class SynthesizedTemplateTest {

    static final String REGION = "eu-west-1";
    static final String ACCOUNT = LocalResources.MOTO_ACCOUNT;
    static final String STATE_MACHINE = "arn:aws:states:eu-west-1:123456789012:stateMachine:reconciler-prod-hold-release-reconciler";
    static final String SECRET = "arn:aws:secretsmanager:eu-west-1:123456789012:secret:reconciler-prod-provider-api-key-AbCdEf";

    private final SynthesizedTemplate template = SynthesizedTemplate.load();
    private final IntrinsicResolver resolver = new IntrinsicResolver(
            TemplateResources.of(template, TableNames.withPrefix("local-"), STATE_MACHINE, SECRET, REGION, ACCOUNT));

    @Test
    void theBuildPutTheDefaultContextStackOnTheClasspath() {
        assertThat(template.name()).isEqualTo("reconciler-prod-HoldReleaseReconciler.template.json");
    }

    @Test
    void listsTheFiveFunctionsWithTheirHandlerMemoryTimeoutReservedConcurrencyAndRole() {
        assertThat(template.functions()).extracting(SynthesizedTemplate.TemplateFunction::function)
                .containsExactlyInAnyOrder(LambdaFunction.values());
        for (LambdaFunction function : LambdaFunction.values()) {
            SynthesizedTemplate.TemplateFunction spec = template.function(function);
            assertThat(spec.handler()).isEqualTo(function.handler());
            assertThat(spec.memorySize()).isEqualTo(function.memoryMb());
            assertThat(spec.timeoutSeconds()).isEqualTo(function.timeout().toSeconds());
            assertThat(spec.reservedConcurrency()).hasValue(ReservedConcurrency.of(function));
            assertThat(template.resource(spec.roleLogicalId()).path("Type").asText()).isEqualTo("AWS::IAM::Role");
        }
    }

    @Test
    void environmentsResolveToTheLocalResources() {
        assertThat(template.function(LambdaFunction.START_WINDOW).environment(resolver)).containsEntry(EnvVars.STATE_MACHINE_ARN, STATE_MACHINE);
        assertThat(template.function(LambdaFunction.DELIVER_COMMANDS).environment(resolver)).containsEntry(EnvVars.PROVIDER_SECRET_ID, SECRET)
                .containsEntry(EnvVars.PROVIDER_BASE_URL, "https://provider.example/api");
    }

    @Test
    void everyRoleStatementResolvesWithNoIntrinsicLeft() {
        for (LambdaFunction function : LambdaFunction.values()) {
            var statements = template.statementsOfRole(template.function(function).roleLogicalId(), resolver);
            assertThat(statements).as(function.logicalName()).isNotEmpty().allSatisfy(s -> {
                assertThat(s.resources()).allSatisfy(r -> assertThat(r).satisfiesAnyOf(
                        x -> assertThat(x).isEqualTo("*"), x -> assertThat(x).startsWith("arn:aws:")));
                assertThat(s.resources().toString()).doesNotContain("Fn::", "Ref");
            });
        }
        var leases = template.statementsOfRole(template.function(LambdaFunction.ACQUIRE_LEASE).roleLogicalId(), resolver).stream()
                .filter(s -> s.sid().orElse("").equals("LeasesTable")).findFirst().orElseThrow();
        assertThat(leases.resources()).containsExactly("arn:aws:dynamodb:eu-west-1:123456789012:table/local-Leases");
        assertThat(Arrays.asList(LambdaFunction.values())).isNotEmpty();
    }

    @Test
    void theSecretsResourcePolicyResolvesItsPrincipalCondition() {
        String secretId = template.secretWithArn(SECRET, resolver).orElseThrow();
        var policy = template.resourcePolicyOf(secretId, resolver);
        assertThat(policy).hasSize(1);
        assertThat(policy.getFirst().effect()).isEqualTo(PolicyStatement.Effect.DENY);
        assertThat(policy.getFirst().conditions().get("StringNotEquals").get("aws:PrincipalArn"))
                .containsExactly("arn:aws:iam::123456789012:role/" + template.function(LambdaFunction.DELIVER_COMMANDS).roleLogicalId());
    }
}
