package com.payments.reconciler.local.faults;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The value of the CLI's {@code --faults} flag: per-request probabilities of each injected fault, e.g.
 * {@code ddb-conflict=0.05,ddb-throttle=0.02,ddb-lost-response=0.02,provider-drop=0.1,provider-5xx=0.05,provider-slow=0.05}.
 * Keys left out are 0. The DynamoDB ones build {@link DynamoFaults} ({@link DynamoFaults#from}); the
 * provider ones are plain probabilities the caller hands to the simulated provider's own fault settings.
 *
 * @param ddbConflict a TransactWriteItems attempt is cancelled with {@code TransactionConflict}
 * @param ddbThrottle a DynamoDB attempt is throttled (half {@code ProvisionedThroughputExceeded}, half {@code ThrottlingException})
 * @param ddbLostResponse a DynamoDB attempt is applied and its answer lost
 * @param providerDrop the provider performs a release and drops the connection
 * @param provider5xx the provider answers 503 without performing
 * @param providerSlow the provider answers late
 * @param ddbItemConflict a PutItem/UpdateItem/DeleteItem sent while a TransactWriteItems in flight names its item is
 *                        refused with {@code TransactionConflictException} (conditional on that overlap, so not part of
 *                        the one-fault-per-attempt sum)
 * @param providerMalformed the provider performs, then answers outside its contract (a 200 with an HTML page)
 */
public record FaultSpec(double ddbConflict, double ddbThrottle, double ddbLostResponse,
                        double providerDrop, double provider5xx, double providerSlow, double ddbItemConflict,
                        double providerMalformed) {

    public static final String DDB_CONFLICT = "ddb-conflict";
    public static final String DDB_THROTTLE = "ddb-throttle";
    public static final String DDB_LOST_RESPONSE = "ddb-lost-response";
    public static final String PROVIDER_DROP = "provider-drop";
    public static final String PROVIDER_5XX = "provider-5xx";
    public static final String PROVIDER_SLOW = "provider-slow";
    public static final String DDB_ITEM_CONFLICT = "ddb-item-conflict";
    public static final String PROVIDER_MALFORMED = "provider-malformed";
    public static final List<String> KEYS = List.of(DDB_CONFLICT, DDB_THROTTLE, DDB_LOST_RESPONSE, PROVIDER_DROP, PROVIDER_5XX, PROVIDER_SLOW,
            DDB_ITEM_CONFLICT, PROVIDER_MALFORMED);

    public static final FaultSpec NONE = new FaultSpec(0, 0, 0, 0, 0, 0, 0, 0);

    /** The rates before item conflicts and malformed answers; both off. */
    public FaultSpec(double ddbConflict, double ddbThrottle, double ddbLostResponse, double providerDrop, double provider5xx, double providerSlow) {
        this(ddbConflict, ddbThrottle, ddbLostResponse, providerDrop, provider5xx, providerSlow, 0, 0);
    }

    /** The rates before malformed answers; those off. */
    public FaultSpec(double ddbConflict, double ddbThrottle, double ddbLostResponse, double providerDrop, double provider5xx, double providerSlow,
                     double ddbItemConflict) {
        this(ddbConflict, ddbThrottle, ddbLostResponse, providerDrop, provider5xx, providerSlow, ddbItemConflict, 0);
    }

    private static final String FORM = "accepted form: key=probability[,key=probability...] with each probability a number from 0 to 1 "
            + "and each key at most once; accepted keys: " + String.join(", ", KEYS)
            + " (e.g. ddb-conflict=0.05,ddb-throttle=0.02,provider-drop=0.1)";

    public FaultSpec {
        check(DDB_CONFLICT, ddbConflict);
        check(DDB_THROTTLE, ddbThrottle);
        check(DDB_LOST_RESPONSE, ddbLostResponse);
        check(PROVIDER_DROP, providerDrop);
        check(PROVIDER_5XX, provider5xx);
        check(PROVIDER_SLOW, providerSlow);
        check(DDB_ITEM_CONFLICT, ddbItemConflict);
        check(PROVIDER_MALFORMED, providerMalformed);
        // One DynamoDB attempt meets at most one fault (a TransactWriteItems attempt can meet any of the three).
        if (ddbConflict + ddbThrottle + ddbLostResponse > 1 + 1e-9) {
            throw new IllegalArgumentException("--faults: " + DDB_CONFLICT + " + " + DDB_THROTTLE + " + " + DDB_LOST_RESPONSE
                    + " must not exceed 1 (one request meets at most one DynamoDB fault), was "
                    + (ddbConflict + ddbThrottle + ddbLostResponse) + "; " + FORM);
        }
    }

    /** Parses {@code text}; blank means no faults. */
    public static FaultSpec parse(String text) {
        if (text == null) {
            throw new IllegalArgumentException("--faults: missing value; " + FORM);
        }
        Map<String, Double> values = new LinkedHashMap<>();
        if (!text.isBlank()) {
            for (String part : text.split(",", -1)) {
                String entry = part.strip();
                int eq = entry.indexOf('=');
                if (eq <= 0) {
                    throw new IllegalArgumentException("--faults: '" + entry + "' is not key=probability; " + FORM);
                }
                String key = entry.substring(0, eq).strip();
                String value = entry.substring(eq + 1).strip();
                if (!KEYS.contains(key)) {
                    throw new IllegalArgumentException("--faults: unknown key '" + key + "'; " + FORM);
                }
                if (values.containsKey(key)) {
                    throw new IllegalArgumentException("--faults: key '" + key + "' given twice; " + FORM);
                }
                double probability;
                try {
                    probability = Double.parseDouble(value);
                } catch (NumberFormatException e) {
                    throw new IllegalArgumentException("--faults: " + key + " must be a number from 0 to 1, was '" + value + "'; " + FORM);
                }
                check(key, probability);
                values.put(key, probability);
            }
        }
        return new FaultSpec(values.getOrDefault(DDB_CONFLICT, 0.0), values.getOrDefault(DDB_THROTTLE, 0.0),
                values.getOrDefault(DDB_LOST_RESPONSE, 0.0), values.getOrDefault(PROVIDER_DROP, 0.0),
                values.getOrDefault(PROVIDER_5XX, 0.0), values.getOrDefault(PROVIDER_SLOW, 0.0), values.getOrDefault(DDB_ITEM_CONFLICT, 0.0),
                values.getOrDefault(PROVIDER_MALFORMED, 0.0));
    }

    public boolean anyDynamoFaults() {
        return ddbConflict > 0 || ddbThrottle > 0 || ddbLostResponse > 0 || ddbItemConflict > 0;
    }

    /** The canonical text of this specification (every key, in the accepted order). */
    @Override
    public String toString() {
        return DDB_CONFLICT + "=" + ddbConflict + "," + DDB_THROTTLE + "=" + ddbThrottle + "," + DDB_LOST_RESPONSE + "=" + ddbLostResponse
                + "," + PROVIDER_DROP + "=" + providerDrop + "," + PROVIDER_5XX + "=" + provider5xx + "," + PROVIDER_SLOW + "=" + providerSlow
                + "," + DDB_ITEM_CONFLICT + "=" + ddbItemConflict + "," + PROVIDER_MALFORMED + "=" + providerMalformed;
    }

    private static void check(String key, double probability) {
        if (!(probability >= 0 && probability <= 1)) {
            throw new IllegalArgumentException("--faults: " + key + " must be from 0 to 1, was " + probability + "; " + FORM);
        }
    }
}
