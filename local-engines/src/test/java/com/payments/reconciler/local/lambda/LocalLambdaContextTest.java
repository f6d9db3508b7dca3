package com.payments.reconciler.local.lambda;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/** The context's deadline runs on the clock it is given: it counts down with it, stands still without it. */
class LocalLambdaContextTest {

    private static final LocalLambdaContext.Function FUNCTION =
            new LocalLambdaContext.Function("DeliverCommands", 1024, "arn:aws:lambda:eu-west-1:123456789012:function:DeliverCommands", "local");

    @Test
    void theRemainingTimeCountsDownOnItsClockAndStopsAtZero() {
        AtomicLong nanos = new AtomicLong(5_000_000_000L);
        LocalLambdaContext context = new LocalLambdaContext(FUNCTION, "r-1", Duration.ofSeconds(120), nanos::get);
        assertThat(context.getRemainingTimeInMillis()).isEqualTo(120_000);
        nanos.addAndGet(Duration.ofSeconds(100).toNanos());
        assertThat(context.getRemainingTimeInMillis()).isEqualTo(20_000);
        nanos.addAndGet(Duration.ofSeconds(30).toNanos());
        assertThat(context.getRemainingTimeInMillis()).isZero();
    }

    @Test
    void aTestMovesAStandingDeadline() {
        LocalLambdaContext context = new LocalLambdaContext(FUNCTION, "r-2", Duration.ofSeconds(120), () -> 0L);
        assertThat(context.getRemainingTimeInMillis()).isEqualTo(120_000);
        context.remaining(Duration.ofSeconds(19));
        assertThat(context.getRemainingTimeInMillis()).isEqualTo(19_000);
    }

    @Test
    void theFunctionsIdentityIsWhatLambdaWouldReport() {
        LocalLambdaContext context = new LocalLambdaContext(FUNCTION, "r-3", Duration.ofSeconds(1), () -> 0L);
        assertThat(context.getFunctionName()).isEqualTo("DeliverCommands");
        assertThat(context.getLogGroupName()).isEqualTo("/aws/lambda/DeliverCommands");
        assertThat(context.getInvokedFunctionArn()).endsWith(":function:DeliverCommands");
        assertThat(context.getMemoryLimitInMB()).isEqualTo(1024);
        assertThat(context.getAwsRequestId()).isEqualTo("r-3");
        assertThat(context.getFunctionVersion()).isEqualTo("$LATEST");
    }
}
