package com.payments.reconciler.reconcile;

/**
 * A provider's final answer for one command, waiting to be recorded on it by {@link FencedWriter#recordDeliveries}.
 *
 * @param attempts provider requests this delivery made (added to the command's count)
 */
public record DeliveryMark(String operationId, DeliveryRecord.Result result, int attempts) {
}
