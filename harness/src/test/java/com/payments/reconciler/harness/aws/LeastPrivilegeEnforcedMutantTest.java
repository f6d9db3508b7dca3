package com.payments.reconciler.harness.aws;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.payments.reconciler.workflow.LambdaFunction;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.services.sfn.model.ExecutionStatus;

/**
 * The behaviour flips too: the same night, gated by a template whose ReconcilePage role lacks
 * {@code dynamodb:ConditionCheckItem} on the lease table (the fence of every release), is refused at its
 * first fenced transaction, and nothing is released.
 */
class LeastPrivilegeEnforcedMutantTest {

    @Test
    void withoutTheLeaseCheckGrantTheNightReleasesNothing() {
        SynthesizedTemplate built = SynthesizedTemplate.load();
        ObjectNode json = (ObjectNode) built.json();
        String role = built.function(LambdaFunction.RECONCILE_PAGE).roleLogicalId();
        built.resources("AWS::IAM::Policy").forEach((id, policy) -> {
            if (policy.path("Properties").path("Roles").path(0).path("Ref").asText().equals(role)) {
                for (JsonNode statement : json.path("Resources").path(id).path("Properties").path("PolicyDocument").path("Statement")) {
                    if (statement.path("Sid").asText().equals("LeasesTable")) {
                        ((ObjectNode) statement).putArray("Action").add("dynamodb:UpdateItem");
                    }
                }
            }
        });
        try (EnforcedNight local = new EnforcedNight("least-privilege-mutant", SynthesizedTemplate.of("narrowed", json))) {
            EnforcedNight.Night night = local.run(20, 11);
            System.out.printf("narrowed night: %s %s, %d of %d calls refused, first: %s%n", night.run().status(), night.run().error().orElse(""),
                    night.calls().stream().filter(RecordedCall::deniedByRecorder).count(), night.calls().size(),
                    night.calls().stream().filter(RecordedCall::deniedByRecorder).findFirst().map(RecordedCall::authorizes).orElse(java.util.List.of()));

            assertThat(night.run().status()).isNotEqualTo(ExecutionStatus.SUCCEEDED);
            assertThat(night.calls()).filteredOn(RecordedCall::deniedByRecorder).isNotEmpty().allSatisfy(call -> {
                assertThat(call.accessKeyId().flatMap(key -> local.attribution.functionOf(call.caller()))).contains(LambdaFunction.RECONCILE_PAGE.logicalName());
                assertThat(call.operation()).contains("dynamodb:TransactWriteItems");
                assertThat(call.errorType()).contains("AccessDeniedException");
            });
            assertThat(local.pipeline.provider().effects()).as("no release reached the provider").isEmpty();
        }
    }

}
