package com.payments.reconciler.store;

import com.payments.reconciler.workflow.InvalidInput;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;

import java.util.Map;

/** Small conversions between DynamoDB attribute values and Java values, with errors naming the attribute. */
public final class Attr {

    private Attr() {
    }

    public static AttributeValue s(String value) {
        return AttributeValue.fromS(value);
    }

    public static AttributeValue n(long value) {
        return AttributeValue.fromN(Long.toString(value));
    }

    /** A required string attribute of a stored item; {@code what} names the item for the error. */
    public static String string(Map<String, AttributeValue> item, String name, String what) {
        AttributeValue value = item.get(name);
        if (value == null || value.s() == null || value.s().isEmpty()) {
            throw new InvalidInput(what + "." + name, "required, a non-empty string attribute (S)");
        }
        return value.s();
    }

    /** A required integer attribute of a stored item. */
    public static long number(Map<String, AttributeValue> item, String name, String what) {
        AttributeValue value = item.get(name);
        if (value == null || value.n() == null) {
            throw new InvalidInput(what + "." + name, "required, an integer number attribute (N)");
        }
        try {
            return Long.parseLong(value.n());
        } catch (NumberFormatException e) {
            throw new InvalidInput(what + "." + name, "must be an integer, was " + value.n());
        }
    }

    public static long numberOr(Map<String, AttributeValue> item, String name, long fallback) {
        AttributeValue value = item == null ? null : item.get(name);
        return value == null || value.n() == null ? fallback : Long.parseLong(value.n());
    }

    public static String stringOr(Map<String, AttributeValue> item, String name, String fallback) {
        AttributeValue value = item == null ? null : item.get(name);
        return value == null || value.s() == null ? fallback : value.s();
    }
}
