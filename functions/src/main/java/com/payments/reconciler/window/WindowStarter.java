package com.payments.reconciler.window;

import com.payments.reconciler.workflow.EmfMetrics;
import com.payments.reconciler.workflow.InvalidInput;
import com.payments.reconciler.workflow.Metrics;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.slf4j.MDC;
import software.amazon.awssdk.services.sfn.SfnClient;
import software.amazon.awssdk.services.sfn.model.DescribeExecutionResponse;
import software.amazon.awssdk.services.sfn.model.ExecutionAlreadyExistsException;
import software.amazon.awssdk.services.sfn.model.ExecutionDoesNotExistException;
import software.amazon.awssdk.services.sfn.model.ExecutionListItem;
import software.amazon.awssdk.services.sfn.model.ExecutionStatus;

/**
 * Starts executions under deterministic names (docs/design.md §8) and turns Step Functions' name rules into
 * duplicate-start suppression: a name that exists (running with the same input, closed, or with a
 * different input) is reported as "duplicate start suppressed" — logged with both inputs' hashes and
 * counted — never as a failure that would make Scheduler retry the same occurrence until its
 * retry policy gives up.
 */
public final class WindowStarter {

    private static final Logger LOG = LoggerFactory.getLogger(WindowStarter.class);
    private final SfnClient sfn;
    private final String stateMachineArn;
    private final EmfMetrics metrics;

    public WindowStarter(SfnClient sfn, String stateMachineArn, EmfMetrics metrics) {
        this.sfn = sfn;
        this.stateMachineArn = stateMachineArn;
        this.metrics = metrics;
    }

    /** The ARN an execution of this state machine has under {@code name}. */
    public String executionArn(ExecutionName name) {
        int at = stateMachineArn.indexOf(":stateMachine:");
        if (at < 0) {
            throw new InvalidInput("stateMachineArn", "must be a state machine ARN (arn:aws:states:REGION:ACCOUNT:stateMachine:NAME), was " + stateMachineArn);
        }
        return stateMachineArn.substring(0, at) + ":execution:" + stateMachineArn.substring(at + ":stateMachine:".length()) + ":" + name;
    }

    /**
     * Starts {@code name} with {@code input}, or reports the existing execution of that name as a
     * suppressed duplicate. DescribeExecution first: Step Functions answers a same-name-same-input start
     * of a running execution with that execution's ARN, indistinguishable from a fresh start, so only
     * looking first tells a duplicate delivery apart. Two deliveries racing past the look both get the
     * one execution (Step Functions guarantees that); the loser then reports {@code started} too, which
     * undercounts the metric but never starts a second run.
     */
    public StartResult start(ExecutionName name, ExecutionInput input) {
        if (!name.window().toString().equals(input.windowId())) {
            throw new InvalidInput("windowId", "the input is for window " + input.windowId() + " but the name is " + name);
        }
        MDC.put("windowId", input.windowId());
        MDC.put("executionName", name.toString());
        try {
            String arn = executionArn(name);
            Optional<DescribeExecutionResponse> existing = describe(arn);
            if (existing.isPresent()) {
                return suppressed(name, input, existing.get());
            }
            try {
                String started = sfn.startExecution(b -> b.stateMachineArn(stateMachineArn).name(name.toString()).input(input.toJson())).executionArn();
                LOG.info("started {} for window {} (input sha256 {})", name, input.windowId(), input.sha256());
                // A zero data point on every start, so the alarm tells "no duplicates" from "no data".
                metrics.count(Metrics.DUPLICATE_STARTS_SUPPRESSED, 0);
                return new StartResult(input.windowId(), name.toString(), started, true, false, input.sha256(), null, List.of(), null);
            } catch (ExecutionAlreadyExistsException raced) {
                return suppressed(name, input, describe(arn).orElseThrow(() -> raced));
            }
        } finally {
            MDC.remove("windowId");
            MDC.remove("executionName");
        }
    }

    private StartResult suppressed(ExecutionName name, ExecutionInput input, DescribeExecutionResponse existing) {
        String existingHash = existing.input() == null ? "" : ExecutionInput.sha256(existing.input());
        List<String> differing = List.of();
        if (!existingHash.equals(input.sha256())) {
            differing = differingFields(input, existing.input());
            LOG.warn("duplicate start suppressed for {}: it exists ({}) with a different input; fields that differ: {} "
                    + "(requested sha256 {}, existing sha256 {}); start a rerun to apply the new configuration",
                    name, existing.statusAsString(), differing, input.sha256(), existingHash);
        } else {
            LOG.info("duplicate start suppressed for {}: it exists ({}) with the same input (sha256 {})",
                    name, existing.statusAsString(), existingHash);
        }
        metrics.count(Metrics.DUPLICATE_STARTS_SUPPRESSED, 1);
        return new StartResult(input.windowId(), name.toString(), existing.executionArn(), false, true, input.sha256(),
                existingHash, differing, existing.statusAsString());
    }

    private static List<String> differingFields(ExecutionInput requested, String existingJson) {
        try {
            return requested.differingFields(ExecutionInput.parse(existingJson));
        } catch (RuntimeException unreadable) {
            return List.of("(existing input is not an execution input of this version)");
        }
    }

    private Optional<DescribeExecutionResponse> describe(String arn) {
        try {
            return Optional.of(sfn.describeExecution(b -> b.executionArn(arn)));
        } catch (ExecutionDoesNotExistException absent) {
            return Optional.empty();
        }
    }

    /** Every execution of the window (scheduled and reruns), oldest first. */
    public List<WindowExecution> executionsOf(WindowId window) {
        List<WindowExecution> found = new ArrayList<>();
        for (ExecutionListItem item : sfn.listExecutionsPaginator(b -> b.stateMachineArn(stateMachineArn)).executions()) {
            ExecutionName.parse(item.name()).filter(n -> n.window().equals(window)).ifPresent(n ->
                    found.add(new WindowExecution(n, item.executionArn(), item.status(), item.startDate(), item.stopDate())));
        }
        found.sort(Comparator.comparingInt(e -> e.name().rerun()));
        return found;
    }

    /**
     * Starts the next rerun of a window ({@code -rerun-n}, n one past the highest used). Refused while an
     * execution of the window runs (two runs would only fence each other), unless forced.
     */
    public StartResult startRerun(WindowId window, ExecutionInput input, boolean force) {
        List<WindowExecution> executions = executionsOf(window);
        Optional<WindowExecution> running = executions.stream().filter(e -> e.status() == ExecutionStatus.RUNNING).findFirst();
        if (running.isPresent() && !force) {
            throw new WindowBusy("window " + window + " has a running execution " + running.get().name()
                    + "; wait for it, or pass --force to start a rerun that will take over its lease once it expires");
        }
        int next = executions.stream().mapToInt(e -> e.name().rerun()).max().orElse(0) + 1;
        return start(ExecutionName.rerun(window, next), input);
    }

    /** A window cannot be rerun now: an execution of it is running. */
    public static final class WindowBusy extends RuntimeException {
        public WindowBusy(String message) {
            super(message);
        }
    }
}
