package com.payments.reconciler.harness.aws;

/**
 * What one API call is authorised as: an IAM action on one resource, with the partition key values it touches there
 * ({@code dynamodb:LeadingKeys}). A call may imply several (TransactWriteItems: one per item, as the item's own action
 * on the item's table with the item's own key).
 */
public record AuthorizedAction(String action, String resource, LeadingKeys leadingKeys) {

    /** An action whose request carries no partition key (every non-DynamoDB action, DescribeTable, Scan). */
    public AuthorizedAction(String action, String resource) {
        this(action, resource, LeadingKeys.NONE);
    }

    /** The action and resource only, as AWS's denial names them (the key values are in {@link #leadingKeys()}). */
    @Override
    public String toString() {
        return action + " on " + resource;
    }
}
