package com.payments.reconciler.window;

import com.payments.reconciler.testing.LocalAwsClients;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import com.payments.reconciler.store.AwsClients;
import com.payments.reconciler.testing.LocalDynamo;
import com.payments.reconciler.testing.MutableClock;
import com.payments.reconciler.workflow.EmfMetrics;
import com.payments.reconciler.workflow.InvalidInput;
import com.payments.reconciler.workflow.JsonHandler;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalTime;
import java.time.ZoneId;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.slf4j.LoggerFactory;
import software.amazon.awssdk.core.SdkRequest;
import software.amazon.awssdk.core.interceptor.Context;
import software.amazon.awssdk.core.interceptor.ExecutionAttributes;
import software.amazon.awssdk.core.interceptor.ExecutionInterceptor;
import software.amazon.awssdk.services.sfn.SfnClient;
import software.amazon.awssdk.services.sfn.model.DescribeExecutionRequest;
import software.amazon.awssdk.services.sfn.model.ExecutionStatus;

/**
 * StartWindow against moto's real Step Functions API, which implements AWS's execution-name rules:
 * duplicates of one occurrence are suppressed (and succeed), reruns get the next free name.
 */
@ExtendWith(LocalDynamo.class)
class StartWindowTest {

    private static final String WAITING = "{\"StartAt\":\"Hold\",\"States\":{\"Hold\":{\"Type\":\"Wait\",\"Seconds\":600,\"End\":true}}}";
    private static final String PASSING = "{\"StartAt\":\"Done\",\"States\":{\"Done\":{\"Type\":\"Pass\",\"End\":true}}}";
    private final MutableClock clock = new MutableClock(Instant.parse("2026-12-01T02:07:00Z"));
    private final List<String> metricLines = new ArrayList<>();
    private final WindowConfig config = new WindowConfig(ZoneId.of("UTC"), LocalTime.of(2, 0), Duration.ofHours(72), 4, false, 30);
    private SfnClient sfn;

    private final ListAppender<ILoggingEvent> logs = new ListAppender<>();
    private LocalDynamo.Engine engine;

    @BeforeEach
    void client(LocalDynamo.Engine engine) {
        this.engine = engine;
        sfn = new LocalAwsClients(engine.moto().endpoint(), List.of()).sfn();
        logs.start();
        starterLog().addAppender(logs);
    }

    @AfterEach
    void detachLogs() {
        starterLog().detachAppender(logs);
    }

    private static Logger starterLog() {
        return (Logger) LoggerFactory.getLogger(WindowStarter.class);
    }

    private String stateMachine(String definition) {
        return sfn.createStateMachine(b -> b.name("sm-" + UUID.randomUUID()).definition(definition)
                .roleArn("arn:aws:iam::123456789012:role/test")).stateMachineArn();
    }

    private StartWindowHandler handler(String stateMachineArn, WindowConfig windowConfig) {
        return new StartWindowHandler(new WindowStarter(sfn, stateMachineArn, new EmfMetrics(clock, "StartWindow", metricLines::add)),
                windowConfig, clock);
    }

    private static StartResult deliver(StartWindowHandler handler, String event) throws Exception {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        handler.handleRequest(new ByteArrayInputStream(event.getBytes(StandardCharsets.UTF_8)), out, null);
        return JsonHandler.parse(out.toByteArray(), StartResult.class);
    }

    @Test
    void sameOccurrenceDeliveredThreeTimesWhileRunningStartsOneExecution() throws Exception {
        String sm = stateMachine(WAITING);
        StartWindowHandler handler = handler(sm, config);
        String event = "{\"scheduledTime\":\"2026-12-01T02:00:00Z\"}";
        StartResult first = deliver(handler, event);
        StartResult second = deliver(handler, event);
        StartResult third = deliver(handler, "{\"scheduledTime\":\"2026-12-01T02:00:00+00:00\"}");

        assertThat(first.started()).isTrue();
        assertThat(first.executionName()).isEqualTo("reconcile-2026-12-01");
        assertThat(List.of(second, third)).allSatisfy(r -> {
            assertThat(r.duplicateSuppressed()).isTrue();
            assertThat(r.executionArn()).isEqualTo(first.executionArn());
            assertThat(r.existingInputHash()).isEqualTo(first.inputHash());
            assertThat(r.existingStatus()).isEqualTo("RUNNING");
        });
        assertThat(sfn.listExecutions(b -> b.stateMachineArn(sm)).executions()).hasSize(1);
        assertThat(metricLines).hasSize(3);
        assertThat(metricLines.getFirst()).contains("\"DuplicateStartsSuppressed\":0");
        assertThat(metricLines.subList(1, 3)).allSatisfy(line -> assertThat(line)
                .contains("\"DuplicateStartsSuppressed\":1", "\"Namespace\":\"HoldReleaseReconciler\"", "\"Function\":\"StartWindow\""));
    }

    @Test
    void deliveryAfterTheExecutionClosedIsSuppressed() throws Exception {
        String sm = stateMachine(PASSING);
        StartWindowHandler handler = handler(sm, config);
        StartResult first = deliver(handler, "{\"scheduledTime\":\"2026-12-01T02:00:00Z\"}");
        awaitClosed(first.executionArn());
        StartResult late = deliver(handler, "{\"scheduledTime\":\"2026-12-01T02:00:00Z\"}");
        assertThat(late.duplicateSuppressed()).isTrue();
        assertThat(late.existingStatus()).isEqualTo("SUCCEEDED");
        assertThat(sfn.listExecutions(b -> b.stateMachineArn(sm)).executions()).hasSize(1);
    }

    @Test
    void changedConfigurationIsSuppressedNamingTheFieldsThatDiffer() throws Exception {
        String sm = stateMachine(WAITING);
        deliver(handler(sm, config), "{\"scheduledTime\":\"2026-12-01T02:00:00Z\"}");
        // The grace and shards are the deployment's, not the input's: a redeploy with others starts the same input.
        WindowConfig regraced = new WindowConfig(ZoneId.of("UTC"), LocalTime.of(2, 0), Duration.ofHours(48), 8, false, 30);
        StartResult same = deliver(handler(sm, regraced), "{\"scheduledTime\":\"2026-12-01T02:00:00Z\"}");
        assertThat(same.duplicateSuppressed()).isTrue();
        assertThat(same.differingFields()).isEmpty();
        assertThat(same.inputHash()).isEqualTo(same.existingInputHash());

        StartResult result = deliver(handler(sm, config.withDryRun(true)), "{\"scheduledTime\":\"2026-12-01T02:00:00Z\"}");
        assertThat(result.duplicateSuppressed()).isTrue();
        assertThat(result.differingFields()).containsExactly("dryRun");
        assertThat(result.inputHash()).isNotEqualTo(result.existingInputHash());
        assertThat(sfn.listExecutions(b -> b.stateMachineArn(sm)).executions()).hasSize(1);

        ILoggingEvent warning = logs.list.stream().filter(e -> e.getLevel() == Level.WARN).findFirst().orElseThrow();
        assertThat(warning.getFormattedMessage()).contains("reconcile-2026-12-01", "[dryRun]",
                result.inputHash(), result.existingInputHash());
        // Hashes and field names only: neither input travels into the logs.
        assertThat(logs.list).extracting(ILoggingEvent::getFormattedMessage).noneMatch(m -> m.contains("\"dryRun\""));
        assertThat(warning.getMDCPropertyMap()).containsEntry("windowId", "2026-12-01").containsEntry("executionName", "reconcile-2026-12-01");
    }

    /** The other delivery wins between our look and our start, then closes: StartExecution says ExecutionAlreadyExists. */
    @Test
    void losingTheRaceToAClosedExecutionIsSuppressedFromExecutionAlreadyExists() throws Exception {
        String sm = stateMachine(PASSING);
        StartResult winner = deliver(handler(sm, config), "{\"scheduledTime\":\"2026-12-01T02:00:00Z\"}");
        awaitClosed(winner.executionArn());

        StartResult loser;
        try (SfnClient blind = new LocalAwsClients(engine.moto().endpoint(), List.of(new FirstLookMisses())).sfn()) {
            WindowStarter starter = new WindowStarter(blind, sm, new EmfMetrics(clock, "StartWindow", metricLines::add));
            loser = new StartWindowHandler(starter, config, clock).handle(new ScheduledEvent("2026-12-01T02:00:00Z"), null);
        }

        assertThat(loser.started()).isFalse();
        assertThat(loser.duplicateSuppressed()).isTrue();
        assertThat(loser.executionArn()).isEqualTo(winner.executionArn());
        assertThat(loser.existingStatus()).isEqualTo("SUCCEEDED");
        assertThat(metricLines.getLast()).contains("\"DuplicateStartsSuppressed\":1");
        assertThat(sfn.listExecutions(b -> b.stateMachineArn(sm)).executions()).hasSize(1);
    }

    /** Racing a running execution: Step Functions returns the same execution, so still exactly one run. */
    @Test
    void losingTheRaceToARunningExecutionStillStartsOnlyOne() throws Exception {
        String sm = stateMachine(WAITING);
        StartResult winner = deliver(handler(sm, config), "{\"scheduledTime\":\"2026-12-01T02:00:00Z\"}");
        WindowId window = WindowId.parse("2026-12-01", "window");
        StartResult loser;
        try (SfnClient blind = new LocalAwsClients(engine.moto().endpoint(), List.of(new FirstLookMisses())).sfn()) {
            loser = new WindowStarter(blind, sm, new EmfMetrics(clock, "StartWindow", metricLines::add))
                    .start(ExecutionName.scheduled(window), config.inputFor(window));
        }
        assertThat(loser.executionArn()).isEqualTo(winner.executionArn());
        assertThat(sfn.listExecutions(b -> b.stateMachineArn(sm)).executions()).hasSize(1);
    }

    /** Makes the first DescribeExecution ask for an execution that does not exist: our look happened before the other start. */
    private static final class FirstLookMisses implements ExecutionInterceptor {
        private final AtomicBoolean missed = new AtomicBoolean();

        @Override
        public SdkRequest modifyRequest(Context.ModifyRequest context, ExecutionAttributes attributes) {
            if (context.request() instanceof DescribeExecutionRequest describe && missed.compareAndSet(false, true)) {
                return describe.toBuilder().executionArn(describe.executionArn() + "-not-yet").build();
            }
            return context.request();
        }
    }

    @Test
    void rerunsTakeTheNextFreeNameAndAreRefusedWhileTheWindowRuns() throws Exception {
        String sm = stateMachine(PASSING);
        WindowStarter starter = new WindowStarter(sfn, sm, new EmfMetrics(clock, "cli", metricLines::add));
        WindowId window = WindowId.parse("2026-12-01", "window");
        StartResult scheduled = starter.start(ExecutionName.scheduled(window), config.inputFor(window));
        awaitClosed(scheduled.executionArn());
        StartResult rerun1 = starter.startRerun(window, config.inputFor(window), false);
        awaitClosed(rerun1.executionArn());
        StartResult rerun2 = starter.startRerun(window, config.withDryRun(true).inputFor(window), false);
        assertThat(rerun1.executionName()).isEqualTo("reconcile-2026-12-01-rerun-1");
        assertThat(rerun2.executionName()).isEqualTo("reconcile-2026-12-01-rerun-2");
        assertThat(starter.executionsOf(window)).extracting(e -> e.name().rerun()).containsExactly(0, 1, 2);

        String waiting = stateMachine(WAITING);
        WindowStarter busy = new WindowStarter(sfn, waiting, new EmfMetrics(clock, "cli", metricLines::add));
        busy.start(ExecutionName.scheduled(window), config.inputFor(window));
        assertThatThrownBy(() -> busy.startRerun(window, config.inputFor(window), false))
                .isInstanceOf(WindowStarter.WindowBusy.class).hasMessageContaining("reconcile-2026-12-01").hasMessageContaining("--force");
        assertThat(busy.startRerun(window, config.inputFor(window), true).executionName()).isEqualTo("reconcile-2026-12-01-rerun-1");
    }

    /**
     * moto runs executions on its own thread, as Step Functions does; the test proceeds on the state the
     * engine reports (closed), the poll interval only bounds how long that takes to be seen.
     */
    private void awaitClosed(String executionArn) throws InterruptedException {
        for (int i = 0; i < 200; i++) {
            if (sfn.describeExecution(b -> b.executionArn(executionArn)).status() != ExecutionStatus.RUNNING) {
                return;
            }
            Thread.sleep(50);
        }
        throw new AssertionError(executionArn + " did not close");
    }
}
