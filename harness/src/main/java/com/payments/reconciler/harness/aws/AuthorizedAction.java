package com.payments.reconciler.harness.aws;

/**
 * What one API call is authorised as: an IAM action on one resource. A call may imply several
 * (TransactWriteItems: one per item, as the item's own action on the item's table).
 */
public record AuthorizedAction(String action, String resource) {
    @Override
    public String toString() {
        return action + " on " + resource;
    }
}
