package com.payments.reconciler.harness.local;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.payments.reconciler.harness.aws.SynthesizedTemplate;
import com.payments.reconciler.harness.lambda.FunctionCode;
import com.payments.reconciler.harness.lambda.ProcessLambdaService;
import com.payments.reconciler.workflow.ReservedConcurrency;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The sandboxes take each function's concurrency from the synthesised template, as Lambda would enforce it. */
class TemplateHostingTest {

    @TempDir
    Path workDir;

    private final SynthesizedTemplate template = SynthesizedTemplate.load();

    @Test
    void eachHostedFunctionIsCappedAtTheTemplatesReservedConcurrency() {
        try (TemplateHosting hosting = TemplateHosting.start(workDir, template)) {
            for (SynthesizedTemplate.TemplateFunction function : template.functions()) {
                hosting.lambda().deploy(TemplateHosting.spec(function, Map.of()));
                JsonNode reserved = template.resource(function.logicalId()).path("Properties").path("ReservedConcurrentExecutions");
                assertThat(reserved.isInt()).as(function.logicalId()).isTrue();
                assertThat(reserved.asInt()).as(function.logicalId()).isEqualTo(ReservedConcurrency.of(function.function()));
                assertThat(hosting.lambda().concurrencyLimit(function.function().logicalName())).as(function.logicalId())
                        .isEqualTo(reserved.asInt());
            }
        }
    }

    /** A template synthesised with {@code reserveConcurrency=false}: the service's own cap, as before. */
    @Test
    void aFunctionWithoutReservedConcurrencyKeepsTheServicesCap() {
        JsonNode json = template.json();
        json.path("Resources").forEach(r -> {
            if (r.path("Type").asText().equals("AWS::Lambda::Function")) {
                ((ObjectNode) r.path("Properties")).remove("ReservedConcurrentExecutions");
            }
        });
        SynthesizedTemplate unreserved = SynthesizedTemplate.of(template.name(), json);
        int serviceCap = ProcessLambdaService.Config.defaults(workDir, new FunctionCode(List.of(workDir))).maxSandboxesPerFunction();
        try (TemplateHosting hosting = TemplateHosting.start(workDir, unreserved)) {
            for (SynthesizedTemplate.TemplateFunction function : unreserved.functions()) {
                assertThat(function.reservedConcurrency()).isEmpty();
                hosting.lambda().deploy(TemplateHosting.spec(function, Map.of()));
                assertThat(hosting.lambda().concurrencyLimit(function.function().logicalName())).isEqualTo(serviceCap);
            }
        }
    }
}
