package com.payments.reconciler.harness.aws;

import java.util.List;

/**
 * What the request context's {@code dynamodb:LeadingKeys} holds for one authorised action: the partition key values the
 * action touches on its table (DynamoDB Developer Guide, "Using IAM policy conditions for fine-grained access control";
 * a multivalued key, hence {@code ForAllValues:} in the grants that use it).
 *
 * @param kind whether the operation carries the key at all, and whether this harness could read it
 * @param values the partition key values, as strings (a number key in its wire form); only when {@link Kind#KNOWN}
 */
public record LeadingKeys(Kind kind, List<String> values) {

    public enum Kind {
        /** The operation carries no partition key (DescribeTable, Scan, every non-DynamoDB action): the key is absent on AWS too. */
        NONE,
        /** Read from the request: the values a table item operation names. */
        KNOWN,
        /**
         * A table item operation whose key this harness could not read (an unknown table, a binary key, a Query without a
         * plain equality on the partition key, a Query on an index): AWS would carry a value, this harness does not know
         * it, so any condition on the key denies (see {@link IamConditions}).
         */
        UNDETERMINED
    }

    public static final LeadingKeys NONE = new LeadingKeys(Kind.NONE, List.of());
    public static final LeadingKeys UNDETERMINED = new LeadingKeys(Kind.UNDETERMINED, List.of());

    /** The condition key's name (Service Authorization Reference, DynamoDB's condition keys). */
    public static final String CONDITION_KEY = "dynamodb:LeadingKeys";

    public LeadingKeys {
        values = List.copyOf(values);
        if ((kind == Kind.KNOWN) == values.isEmpty()) {
            throw new IllegalArgumentException("LeadingKeys: values only, and at least one, when KNOWN: " + kind + " " + values);
        }
    }

    public static LeadingKeys of(List<String> values) {
        return new LeadingKeys(Kind.KNOWN, values.stream().distinct().sorted().toList());
    }

    /** The request with this key in its context: a value set when known, marked undetermined when not, nothing when none. */
    IamRequest applyTo(IamRequest request) {
        return switch (kind) {
            case NONE -> request;
            case KNOWN -> request.withValues(CONDITION_KEY, values);
            case UNDETERMINED -> request.withUndetermined(CONDITION_KEY);
        };
    }
}
