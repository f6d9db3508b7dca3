package com.payments.reconciler.window;

import com.payments.reconciler.workflow.InvalidInput;

/**
 * The Scheduler target's input, as the CDK stack defines it: {@code {"scheduledTime": "<aws.scheduler.scheduled-time>"}}.
 * Strict (an unknown field is an error): the stack owns this shape, so anything else is a misconfiguration.
 * Scheduler's attempt number and execution id stay out: they differ between deliveries of one occurrence.
 */
public record ScheduledEvent(String scheduledTime) {

    public ScheduledEvent {
        if (scheduledTime == null || scheduledTime.isBlank()) {
            throw new InvalidInput("scheduledTime", "required, Scheduler's <aws.scheduler.scheduled-time>, e.g. 2026-12-01T02:00:00Z");
        }
    }
}
