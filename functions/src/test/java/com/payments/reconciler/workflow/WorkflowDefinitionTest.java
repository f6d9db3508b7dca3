package com.payments.reconciler.workflow;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Arrays;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/** The one owner of the ASL: its substitutions are the workflow's functions, and a text that disagrees is refused. */
class WorkflowDefinitionTest {

    private static final Set<String> WORKFLOW_SUBSTITUTIONS = Arrays.stream(LambdaFunction.values())
            .filter(LambdaFunction::invokedByWorkflow).map(LambdaFunction::aslSubstitution).collect(Collectors.toSet());

    @Test
    void theShippedFileUsesExactlyOneSubstitutionPerWorkflowFunction() {
        WorkflowDefinition shipped = WorkflowDefinition.shipped();
        assertThat(shipped.substitutionsUsed()).isEqualTo(WORKFLOW_SUBSTITUTIONS);
        assertThat(shipped.tree().path("States").size()).isPositive();
    }

    @Test
    void substitutingFillsEveryFunctionAndLeavesNoPlaceholder() {
        String substituted = WorkflowDefinition.shipped().substituted(f -> "arn:test:" + f.logicalName());
        assertThat(substituted).doesNotContain("${");
        for (LambdaFunction function : LambdaFunction.values()) {
            if (function.invokedByWorkflow()) {
                assertThat(substituted).contains("\"arn:test:" + function.logicalName() + "\"");
            }
        }
    }

    /** Known bad: a file naming a function the workflow does not have, or missing one, would deploy a literal ${...}. */
    @Test
    void aTextWhoseSubstitutionsDifferFromTheFunctionsIsRefused() {
        WorkflowDefinition extra = new WorkflowDefinition("{\"F\": \"${NoSuchFunctionArn}\"}");
        assertThatThrownBy(() -> extra.substitutions(f -> "x")).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("[NoSuchFunctionArn]").hasMessageContaining("LambdaFunction.aslSubstitution");
        WorkflowDefinition missing = new WorkflowDefinition("{\"States\": {}}");
        assertThatThrownBy(() -> missing.substituted(f -> "x")).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("differ from the workflow's functions");
    }

    @Test
    void aSubstitutionLeftUnfilledIsNamed() {
        assertThatThrownBy(() -> WorkflowDefinition.substitute("{\"A\": \"${One}\", \"B\": \"${Two}\"}", Map.of("One", "1")))
                .isInstanceOf(IllegalStateException.class).hasMessageContaining("${Two}");
        assertThat(WorkflowDefinition.substitute("{\"A\": \"${One}\"}", Map.of("One", "1"))).isEqualTo("{\"A\": \"1\"}");
    }

    @Test
    void eachSubstitutionLeadsBackToItsFunction() {
        for (LambdaFunction function : LambdaFunction.values()) {
            if (function.invokedByWorkflow()) {
                assertThat(WorkflowDefinition.functionSubstitutedBy("${" + function.aslSubstitution() + "}")).contains(function);
            }
        }
        assertThat(WorkflowDefinition.functionSubstitutedBy("${NoSuchFunctionArn}")).isEmpty();
        assertThat(WorkflowDefinition.functionSubstitutedBy("arn:aws:lambda:eu-west-1:123456789012:function:x")).isEmpty();
    }

    @Test
    void aDefinitionThatIsNotJsonIsNamedAsSuch() {
        assertThatThrownBy(() -> new WorkflowDefinition("{not json").tree()).hasMessageContaining("not JSON");
        assertThatThrownBy(() -> new WorkflowDefinition(" ")).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("ASL text");
    }
}
