package com.payments.reconciler.cli.operator;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.function.Consumer;
import software.amazon.awssdk.core.exception.SdkClientException;
import software.amazon.awssdk.services.sfn.SfnClient;
import software.amazon.awssdk.services.sfn.model.DescribeExecutionResponse;
import software.amazon.awssdk.services.sfn.model.ExecutionStatus;
import software.amazon.awssdk.services.sfn.model.GetExecutionHistoryResponse;
import software.amazon.awssdk.services.sfn.model.HistoryEvent;
import software.amazon.awssdk.services.sfn.model.HistoryEventType;

/**
 * Follows one execution through the Step Functions API ({@code DescribeExecution}, and
 * {@code GetExecutionHistory} every {@link #HISTORY_EVERY} and once it closed) until it closes, handing
 * each new event to a listener — the same calls against AWS and against the local moto. Polling is
 * what the console does too.
 *
 * <p>The history is read far less often than the status because moto ignores {@code maxResults} and
 * {@code nextToken} and serialises the whole history on every call, on the same single thread that serves
 * DynamoDB: read every 100 ms, a growing history took half of the engine's time late in a 100,000-candidate
 * window (py-spy on the moto process), which made the local window's wall time grow faster than its size.
 */
public final class ExecutionFollower {

    private static final Duration POLL = Duration.ofMillis(100);
    /** How often the (possibly long) history is read while the execution runs: progress lines lag by at most this. */
    static final Duration HISTORY_EVERY = Duration.ofSeconds(2);
    private final SfnClient sfn;

    public ExecutionFollower(SfnClient sfn) {
        this.sfn = sfn;
    }

    /** The closed execution: status, output or error, its history and what it cost. */
    public record Followed(String executionArn, ExecutionStatus status, Optional<String> output, Optional<String> error,
                           Optional<String> cause, List<HistoryEvent> events, long stateTransitions, long retries) {
        public boolean succeeded() {
            return status == ExecutionStatus.SUCCEEDED;
        }
    }

    public Followed follow(String executionArn, Consumer<HistoryEvent> listener, Duration timeout) {
        long deadline = System.nanoTime() + timeout.toNanos();
        List<HistoryEvent> events = new ArrayList<>();
        long historyDue = System.nanoTime();
        while (true) {
            try {
                DescribeExecutionResponse described = sfn.describeExecution(b -> b.executionArn(executionArn));
                boolean closed = described.status() != ExecutionStatus.RUNNING;
                if (closed || System.nanoTime() - historyDue >= 0) {
                    historyDue = System.nanoTime() + HISTORY_EVERY.toNanos();
                    List<HistoryEvent> all = history(executionArn);
                    for (HistoryEvent event : all.subList(events.size(), all.size())) {
                        listener.accept(event);
                        events.add(event);
                    }
                }
                if (closed) {
                    return new Followed(executionArn, described.status(), Optional.ofNullable(described.output()),
                            Optional.ofNullable(described.error()), Optional.ofNullable(described.cause()), List.copyOf(events),
                            transitions(events), retries(events));
                }
            } catch (SdkClientException slow) {
                // A poll that got no answer in time says nothing about the execution (a busy local engine serves
                // one request at a time): the execution goes on, so does following it, until the deadline.
                if (System.nanoTime() > deadline) {
                    throw slow;
                }
            }
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException("execution " + executionArn + " still RUNNING after " + timeout);
            }
            try {
                Thread.sleep(POLL);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("interrupted while following " + executionArn, e);
            }
        }
    }

    public List<HistoryEvent> history(String executionArn) {
        List<HistoryEvent> all = new ArrayList<>();
        String token = null;
        do {
            String next = token;
            GetExecutionHistoryResponse page = sfn.getExecutionHistory(b -> b.executionArn(executionArn).maxResults(1000).nextToken(next));
            all.addAll(page.events());
            token = page.nextToken();
        } while (token != null);
        return all;
    }

    /**
     * Billed state transitions: every state entered, plus every retry attempt of a task (Standard
     * workflows are billed per transition, retries included).
     */
    static long transitions(List<HistoryEvent> events) {
        long entered = events.stream().filter(e -> e.typeAsString().endsWith("StateEntered")).count();
        return entered + retries(events);
    }

    /** Task attempts beyond the first within one state entry. */
    static long retries(List<HistoryEvent> events) {
        long retries = 0;
        java.util.Map<Long, Integer> scheduledPerEntry = new java.util.HashMap<>();
        java.util.Map<Long, HistoryEvent> byId = new java.util.HashMap<>();
        for (HistoryEvent e : events) {
            byId.put(e.id(), e);
            if (e.type() == HistoryEventType.TASK_SCHEDULED || e.type() == HistoryEventType.LAMBDA_FUNCTION_SCHEDULED) {
                long entry = enteringState(e, byId);
                int n = scheduledPerEntry.merge(entry, 1, Integer::sum);
                if (n > 1) {
                    retries++;
                }
            }
        }
        return retries;
    }

    private static long enteringState(HistoryEvent event, java.util.Map<Long, HistoryEvent> byId) {
        HistoryEvent current = event;
        while (current != null && !current.typeAsString().endsWith("StateEntered")) {
            current = byId.get(current.previousEventId());
        }
        return current == null ? -1 : current.id();
    }
}
