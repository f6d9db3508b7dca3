package com.payments.reconciler.harness.ingest;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import static org.assertj.core.api.Assertions.assertThat;

/** Lambda's rules for an SQS invocation's answer (services-sqs-errorhandling), as a table. */
class BatchResponseTest {

    private static final List<String> BATCH = List.of("m1", "m2", "m3");

    static Stream<Arguments> answers() {
        return Stream.of(
                Arguments.of("no failures reported", false, "{\"batchItemFailures\":[]}", true, BATCH),
                Arguments.of("null list", false, "{\"batchItemFailures\":null}", true, BATCH),
                Arguments.of("empty answer object", false, "{}", true, BATCH),
                Arguments.of("null answer", false, "null", true, BATCH),
                Arguments.of("no answer at all", false, "", true, BATCH),
                Arguments.of("one reported", false, "{\"batchItemFailures\":[{\"itemIdentifier\":\"m2\"}]}", true, List.of("m1", "m3")),
                Arguments.of("all reported", false, "{\"batchItemFailures\":[{\"itemIdentifier\":\"m1\"},{\"itemIdentifier\":\"m2\"},"
                        + "{\"itemIdentifier\":\"m3\"}]}", true, List.of()),
                Arguments.of("empty identifier fails the batch", false, "{\"batchItemFailures\":[{\"itemIdentifier\":\"\"}]}", true, List.of()),
                Arguments.of("null identifier fails the batch", false, "{\"batchItemFailures\":[{\"itemIdentifier\":null}]}", true, List.of()),
                Arguments.of("wrong key fails the batch", false, "{\"batchItemFailures\":[{\"id\":\"m1\"}]}", true, List.of()),
                Arguments.of("unknown id fails the batch", false, "{\"batchItemFailures\":[{\"itemIdentifier\":\"m9\"}]}", true, List.of()),
                Arguments.of("not JSON fails the batch", false, "batchItemFailures", true, List.of()),
                Arguments.of("function error: nothing deleted", true, "{\"errorType\":\"X\"}", true, List.of()),
                Arguments.of("without ReportBatchItemFailures the answer is ignored", false,
                        "{\"batchItemFailures\":[{\"itemIdentifier\":\"m2\"}]}", false, BATCH),
                Arguments.of("without it a function error still deletes nothing", true, "", false, List.of()));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("answers")
    void deletesWhatLambdaDeletes(String why, boolean functionError, String answer, boolean reports, List<String> deleted) {
        assertThat(BatchResponse.toDelete(BATCH, functionError, answer.getBytes(StandardCharsets.UTF_8), reports)).isEqualTo(deleted);
    }
}
