package com.payments.reconciler.window;

import com.amazonaws.services.lambda.runtime.Context;
import com.payments.reconciler.workflow.EmfMetrics;
import com.payments.reconciler.workflow.EnvVars;
import com.payments.reconciler.workflow.HandlerEnvironment;
import com.payments.reconciler.workflow.JsonHandler;
import com.payments.reconciler.workflow.LambdaFunction;
import java.time.Clock;

/**
 * Scheduler's target: floors the occurrence's nominal time to its window, names the execution
 * {@code reconcile-{windowId}}, builds the deterministic input and starts it. A duplicate delivery of
 * the same occurrence (Scheduler is at-least-once) is suppressed, and succeeds.
 *
 * <p>The event is strict ({@link ScheduledEvent}: an unknown field is an error): the stack writes the
 * Scheduler target's input, so a different shape means a misconfigured schedule, and failing makes it
 * visible (Scheduler retries, then the dead-letter queue) instead of starting a window from a guess.
 */
public final class StartWindowHandler extends JsonHandler<ScheduledEvent, StartResult> {

    private final WindowStarter starter;
    private final WindowConfig config;
    private final Clock clock;

    public StartWindowHandler() {
        this(HandlerEnvironment.fromSystem());
    }

    public StartWindowHandler(HandlerEnvironment env) {
        this(new WindowStarter(env.aws().sfn(), env.required(EnvVars.STATE_MACHINE_ARN),
                EmfMetrics.toStdout(env.clock(), LambdaFunction.START_WINDOW.logicalName())),
                WindowConfig.fromEnvironment(env), env.clock());
    }

    public StartWindowHandler(WindowStarter starter, WindowConfig config, Clock clock) {
        super(ScheduledEvent.class);
        this.starter = starter;
        this.config = config;
        this.clock = clock;
    }

    @Override
    protected StartResult handle(ScheduledEvent event, Context context) {
        WindowId window = WindowId.fromScheduledTime(event.scheduledTime(), config.zone());
        config.requireStartable(window, clock.instant());
        return starter.start(ExecutionName.scheduled(window), config.inputFor(window));
    }
}
