package com.payments.reconciler.harness.lambda;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.payments.reconciler.workflow.LambdaFunction;
import java.time.Duration;
import java.util.Arrays;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/** The small values the process service is made of. */
class SandboxPartsTest {

    @Test
    void theHeapIsEightyFivePercentOfTheFunctionsMemoryAsLambdasJavaRuntimeSetsIt() {
        assertThat(HeapSize.forMemory(512).jvmOption()).isEqualTo("-XX:MaxHeapSize=445645k");
        assertThat(HeapSize.forMemory(128).jvmOption()).isEqualTo("-XX:MaxHeapSize=111411k");
        assertThat(HeapSize.forMemory(1024).jvmOption()).isEqualTo("-XX:MaxHeapSize=891290k");
    }

    @Test
    void eachFunctionGetsItsOwnTwentyCharacterTemporaryAccessKeyId() {
        Set<String> ids = Arrays.stream(LambdaFunction.values())
                .map(f -> FunctionCredentials.accessKeyIdFor(f.logicalName())).collect(Collectors.toSet());

        assertThat(ids).hasSize(LambdaFunction.values().length).allMatch(id -> id.matches("ASIA[A-Z0-9]{16}"));
        assertThat(FunctionCredentials.accessKeyIdFor("ReconcilePage")).startsWith("ASIARECONCIL")
                .isEqualTo(FunctionCredentials.accessKeyIdFor("ReconcilePage"));
        assertThat(FunctionCredentials.accessKeyIdFor("Env")).startsWith("ASIAENVXXXXX");
    }

    @Test
    void theInvokePathNamesAFunctionByNameOrArnWithOrWithoutAQualifier() {
        assertThat(FunctionName.parse("ReconcilePage").arn("us-east-1", "123456789012"))
                .isEqualTo("arn:aws:lambda:us-east-1:123456789012:function:ReconcilePage");
        assertThat(FunctionName.parse("ReconcilePage:live")).extracting(FunctionName::function, FunctionName::qualifier)
                .containsExactly("ReconcilePage", "live");
        assertThat(FunctionName.parse("111122223333:function:ReconcilePage").arn("us-east-1", "123456789012"))
                .isEqualTo("arn:aws:lambda:us-east-1:111122223333:function:ReconcilePage");
        assertThat(FunctionName.parse("arn:aws:lambda:eu-west-1:111122223333:function:ReconcilePage:$LATEST").arn("us-east-1", "1"))
                .isEqualTo("arn:aws:lambda:eu-west-1:111122223333:function:ReconcilePage:$LATEST");
    }

    @Test
    void aFunctionCannotBeGivenKeyVariablesLambdaReservesForItsRole() {
        assertThatThrownBy(() -> new FunctionSpec("F", "a.B::handleRequest", 512, Duration.ofSeconds(3), Map.of("AWS_ACCESS_KEY_ID", "AKIA")))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("AWS_ACCESS_KEY_ID is reserved");
    }

    @Test
    void lambdasOwnErrorsReadAsLambdaWritesThem() {
        assertThat(new String(LambdaErrors.timedOut("r-1", Duration.ofSeconds(3))))
                .isEqualTo("{\"errorType\":\"Sandbox.Timedout\",\"errorMessage\":\"RequestId: r-1 Error: Task timed out after 3.00 seconds\"}");
        assertThat(new String(LambdaErrors.exited("r-2", 137)))
                .isEqualTo("{\"errorType\":\"Runtime.ExitError\",\"errorMessage\":\"RequestId: r-2 Error: Runtime exited with error: signal: killed\"}");
    }
}
