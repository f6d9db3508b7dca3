package com.payments.reconciler.reconcile;

import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import software.amazon.awssdk.services.sqs.model.QueueAttributeName;
import software.amazon.awssdk.services.sqs.model.SqsException;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The dead-letter queue's rule as a table: visible, in-flight and delayed messages all hold, and so does an answer that
 * is not three counts, or no answer (AccessDenied, a timeout). The known-bad row is the rule the decision first planned
 * ({@code ApproximateNumberOfMessages} alone): a message being read (in flight) or delayed would not hold.
 */
class DeadLetterDepthTest {

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', textBlock = """
            # case                                   | visible | in flight | delayed | expected
            empty                                    | 0       | 0         | 0       | Empty
            one visible                              | 1       | 0         | 0       | NotEmpty(1)
            one in flight (an operator reading it)   | 0       | 1         | 0       | NotEmpty(1)
            one delayed                              | 0       | 0         | 1       | NotEmpty(1)
            all three                                | 2       | 3         | 4       | NotEmpty(9)
            a count missing                          | 0       | absent    | 0       | Unreadable
            a count not a number                     | 0       | many      | 0       | Unreadable
            a negative count                         | -1      | 0         | 0       | Unreadable
            """)
    void holdsWhileAnythingMayBeThere(String scenario, String visible, String inFlight, String delayed, String expected) {
        Map<QueueAttributeName, String> counts = new HashMap<>();
        put(counts, QueueAttributeName.APPROXIMATE_NUMBER_OF_MESSAGES, visible);
        put(counts, QueueAttributeName.APPROXIMATE_NUMBER_OF_MESSAGES_NOT_VISIBLE, inFlight);
        put(counts, QueueAttributeName.APPROXIMATE_NUMBER_OF_MESSAGES_DELAYED, delayed);
        DeadLetterDepth.Reading reading = new DeadLetterDepth(names -> counts).read();
        assertThat(describe(reading)).as(scenario).isEqualTo(expected);
        assertThat(reading.holds()).as(scenario).isEqualTo(!expected.equals("Empty"));
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', textBlock = """
            AccessDenied  | User is not authorized to perform: sqs:GetQueueAttributes
            a timeout     | Unable to execute HTTP request: Read timed out
            """)
    void anUnreachableQueueHolds(String scenario, String message) {
        DeadLetterDepth.Reading reading = new DeadLetterDepth(names -> {
            throw SqsException.builder().message(message).build();
        }).read();
        assertThat(reading).as(scenario).isInstanceOf(DeadLetterDepth.Unreadable.class);
        assertThat(reading.holds()).isTrue();
        assertThat(reading.why()).contains("could not be read");
    }

    /** Known-bad: the visible count alone calls a queue whose one message is being read (in flight) empty. */
    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', textBlock = """
            in flight | 0 | 1 | 0
            delayed   | 0 | 0 | 1
            """)
    void knownBadTheVisibleCountAloneMissesMessagesInFlightOrDelayed(String scenario, String visible, String inFlight, String delayed) {
        Map<QueueAttributeName, String> counts = Map.of(QueueAttributeName.APPROXIMATE_NUMBER_OF_MESSAGES, visible,
                QueueAttributeName.APPROXIMATE_NUMBER_OF_MESSAGES_NOT_VISIBLE, inFlight, QueueAttributeName.APPROXIMATE_NUMBER_OF_MESSAGES_DELAYED, delayed);
        boolean visibleOnlyHolds = Long.parseLong(counts.get(QueueAttributeName.APPROXIMATE_NUMBER_OF_MESSAGES)) > 0;
        assertThat(visibleOnlyHolds).as(scenario + ": the known-bad rule lets the night release").isFalse();
        assertThat(DeadLetterDepth.of(counts).holds()).as(scenario + ": the rule holds").isTrue();
    }

    private static void put(Map<QueueAttributeName, String> counts, QueueAttributeName name, String value) {
        if (!"absent".equals(value)) {
            counts.put(name, value);
        }
    }

    private static String describe(DeadLetterDepth.Reading reading) {
        return switch (reading) {
            case DeadLetterDepth.Empty e -> "Empty";
            case DeadLetterDepth.NotEmpty n -> "NotEmpty(" + n.messages() + ")";
            case DeadLetterDepth.Unreadable u -> "Unreadable";
        };
    }
}
