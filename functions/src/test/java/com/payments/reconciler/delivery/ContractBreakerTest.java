package com.payments.reconciler.delivery;

import com.payments.reconciler.workflow.Timing;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The contract breaker's rule as a table: a sequence of answers ('.' within the contract, 'x' outside it) and the
 * answer at which the breaker trips (1-based; 0 = never). The breaker keeps the last
 * {@value Timing#CONTRACT_BREAKER_WINDOW} answers and trips once at least
 * {@value Timing#CONTRACT_BREAKER_MIN_VIOLATIONS} of them, and more than half, are outside the contract.
 */
class ContractBreakerTest {

    @ParameterizedTest(name = "{2}")
    @CsvSource(delimiter = '|', textBlock = """
            xxxxx                                        | 5  | a provider answering nothing but garbage stops at the minimum
            xxxx                                         | 0  | fewer than the minimum never trip, however high the rate
            .xxxxx                                       | 6  | 5 of 6 is more than half
            ..xxxxx                                      | 7  | 5 of 7 is more than half
            ...xxxxx                                     | 8  | 5 of 8 is more than half
            ....x.x.x.x.x                                | 0  | 5 of 13 is not more than half
            .........xxxxxxxxxx                          | 19 | 10 of 19 is more than half
            ..........xxxxxxxxxx                         | 0  | 10 of 20 is exactly half: not more
            ..........xxxxxxxxxxx                        | 21 | 11 of the last 20 (the oldest '.' has left the window)
            ....x....x....x....x....x....x....x....x.... | 0  | sparse poison, one in five, never trips however long the call
            x...................x...................x... | 0  | sparse poison, one in twenty
            xxxx................xxxxx                    | 0  | the first four have left the window by the next five: 5 of 20
            xxxx..........xxxxx                          | 0  | 9 of 19 is not more than half
            xxxx.x                                       | 6  | the fifth bad answer trips, a good one between or not
            xxxxxxx                                      | 5  | it trips once, not again at each later bad answer
            .x.x.x.x.x.x.x.x.x.x.x                       | 0  | half of every window, for ever: the oldest bad answers leave it
            """)
    void tripsWhereTheTableSays(String answers, int tripsAt, String why) {
        ContractBreaker breaker = new ContractBreaker();
        int tripped = 0;
        int trips = 0;
        for (int i = 0; i < answers.length(); i++) {
            boolean trip = false;
            if (answers.charAt(i) == 'x') {
                trip = breaker.violated();
            } else {
                breaker.answered();
            }
            if (trip) {
                trips++;
                tripped = tripped == 0 ? i + 1 : tripped;
            }
        }
        assertThat(tripped).as(why).isEqualTo(tripsAt);
        assertThat(trips).as("trips at most once").isLessThanOrEqualTo(1);
    }
}
