package com.payments.reconciler.cdk;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;
import software.amazon.awscdk.assertions.Match;
import software.amazon.awscdk.cxapi.SynthesisMessage;

/**
 * cdk-nag's AwsSolutions pack, applied by the app itself: no unsuppressed error or warning, and every
 * suppression carries a written reason. Prints the suppressions and the resource counts (the build log's
 * record of what was accepted and what gets deployed).
 */
class CdkNagTest {

    private final SynthesizedStack synth = SynthesizedStack.get();
    private final TemplateJson template = new TemplateJson(synth);

    @Test
    void noUnsuppressedAwsSolutionsErrors() {
        List<SynthesisMessage> errors = synth.annotations.findError("*", Match.stringLikeRegexp("AwsSolutions-.*"));
        assertThat(errors.stream().map(m -> m.getId() + " " + m.getEntry().getData()).toList()).isEmpty();
    }

    @Test
    void noUnsuppressedAwsSolutionsWarnings() {
        List<SynthesisMessage> warnings = synth.annotations.findWarning("*", Match.stringLikeRegexp("AwsSolutions-.*"));
        assertThat(warnings.stream().map(m -> m.getId() + " " + m.getEntry().getData()).toList()).isEmpty();
    }

    /** CDK's own warnings too (e.g. SnapStart without a published version): each is fixed or acknowledged with a reason. */
    @Test
    void noUnacknowledgedWarningsOrErrorsAtAll() {
        assertThat(synth.annotations.findWarning("*", Match.anyValue()).stream().map(m -> m.getId() + " " + m.getEntry().getData()).toList()).isEmpty();
        assertThat(synth.annotations.findError("*", Match.anyValue()).stream().map(m -> m.getId() + " " + m.getEntry().getData()).toList()).isEmpty();
    }

    @Test
    void everySuppressionHasAWrittenReason() {
        List<String> listed = new ArrayList<>();
        template.root().path("Resources").properties().forEach(e -> {
            for (JsonNode rule : e.getValue().path("Metadata").path("cdk_nag").path("rules_to_suppress")) {
                String reason = rule.path("reason").asText();
                assertThat(reason).as(e.getKey() + " " + rule.path("id").asText()).hasSizeGreaterThan(60);
                listed.add(rule.path("id").asText() + " on " + e.getKey() + " " + rule.path("applies_to") + ": " + reason);
            }
        });
        assertThat(listed).isNotEmpty();
        System.out.println("cdk-nag suppressions (" + listed.size() + "):");
        listed.forEach(s -> System.out.println("  " + s));
    }

    @Test
    void resourceCounts() {
        Map<String, Integer> counts = new TreeMap<>();
        template.root().path("Resources").forEach(r -> counts.merge(r.path("Type").asText(), 1, Integer::sum));
        System.out.println("synthesised resources (" + counts.values().stream().mapToInt(Integer::intValue).sum() + "): " + counts);
        System.out.println("synthesis time for the shared fixture: " + synth.synthMillis + " ms");
        assertThat(counts).containsEntry("AWS::DynamoDB::Table", 5).containsEntry("AWS::Lambda::Function", 6)
                .containsEntry("AWS::StepFunctions::StateMachine", 1).containsEntry("AWS::Scheduler::Schedule", 1)
                .containsEntry("AWS::CloudWatch::Alarm", 25).containsEntry("AWS::CloudWatch::Dashboard", 1)
                .containsEntry("AWS::SNS::Topic", 1).containsEntry("AWS::SQS::Queue", 5).containsEntry("AWS::Lambda::EventInvokeConfig", 1)
                .containsEntry("AWS::Lambda::EventSourceMapping", 1);
    }
}
