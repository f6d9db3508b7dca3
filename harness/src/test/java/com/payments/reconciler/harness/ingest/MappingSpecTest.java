package com.payments.reconciler.harness.ingest;

import com.fasterxml.jackson.databind.node.ObjectNode;
import com.payments.reconciler.harness.aws.SynthesizedTemplate;
import java.time.Duration;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The local queue and mapping take their settings from the synthesised stack, not from copies of its constants. */
class MappingSpecTest {

    private final SynthesizedTemplate template = SynthesizedTemplate.load();

    @Test
    void readsTheIngestionMappingAndItsQueueFromTheTemplate() {
        MappingSpec spec = MappingSpec.fromTemplate(template);

        assertThat(spec.batchSize()).isEqualTo(10);
        assertThat(spec.reportBatchItemFailures()).isTrue();
        assertThat(spec.maximumConcurrency()).isEqualTo(5);
        assertThat(spec.maxReceiveCount()).isEqualTo(5);
        assertThat(spec.visibilityTimeout()).isEqualTo(Duration.ofSeconds(180));
        assertThat(spec.withVisibilityTimeout(Duration.ZERO).maxReceiveCount()).isEqualTo(5);
    }

    @Test
    void aTemplateWhoseMappingInvokesAnotherFunctionIsRefused() {
        ObjectNode json = template.json().deepCopy();
        json.with("Resources").properties().forEach(e -> {
            if (MappingSpec.MAPPING_TYPE.equals(e.getValue().path("Type").asText())) {
                ((ObjectNode) e.getValue().path("Properties")).put("FunctionName", "SomeOtherFunction");
            }
        });

        assertThatThrownBy(() -> MappingSpec.fromTemplate(SynthesizedTemplate.of("edited", json)))
                .hasMessageContaining("no event source mapping invokes");
    }

    @Test
    void aVisibilityTimeoutSqsCannotHoldIsRefused() {
        MappingSpec spec = MappingSpec.fromTemplate(template);

        assertThatThrownBy(() -> spec.withVisibilityTimeout(Duration.ofMillis(500))).hasMessageContaining("whole seconds");
        assertThatThrownBy(() -> spec.withVisibilityTimeout(Duration.ofHours(13))).hasMessageContaining("whole seconds");
    }
}
