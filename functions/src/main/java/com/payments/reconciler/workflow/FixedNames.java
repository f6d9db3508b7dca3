package com.payments.reconciler.workflow;

import com.payments.reconciler.store.TableSchema;
import com.payments.reconciler.store.Tables;
import java.util.ArrayList;
import java.util.List;

/**
 * The physical names the stack gives the resources it keeps or that a new stack would collide with, as
 * {@code {namePrefix}{suffix}}: one definition for the CDK stack that creates them and for the operator's
 * pre-flight, which looks for leftovers under exactly these names before a deploy.
 */
public final class FixedNames {

    private FixedNames() {
    }

    public static final String STACK_SUFFIX = "HoldReleaseReconciler";
    public static final String STATE_MACHINE_SUFFIX = "hold-release-reconciler";
    public static final String PROVIDER_SECRET_SUFFIX = "provider-api-key";
    public static final String INGEST_QUEUE_SUFFIX = "ingest-events";
    public static final String INGEST_DEAD_LETTER_QUEUE_SUFFIX = "ingest-events-dlq";
    /** The events IngestEvents refused, sent there by the function itself (the dead-letter queue holds only SQS's moves). */
    public static final String INGEST_REFUSED_QUEUE_SUFFIX = "ingest-events-refused";
    public static final String SCHEDULE_DEAD_LETTER_QUEUE_SUFFIX = "schedule-dlq";
    public static final String START_WINDOW_FAILURES_SUFFIX = "start-window-failures";

    /** The queues a new stack creates under fixed names (SQS refuses a second queue of a name with other attributes). */
    public static final List<String> QUEUE_SUFFIXES = List.of(INGEST_QUEUE_SUFFIX, INGEST_DEAD_LETTER_QUEUE_SUFFIX,
            INGEST_REFUSED_QUEUE_SUFFIX, SCHEDULE_DEAD_LETTER_QUEUE_SUFFIX, START_WINDOW_FAILURES_SUFFIX);

    public static String stackName(String prefix) {
        return prefix + STACK_SUFFIX;
    }

    public static String tableName(String prefix, TableSchema schema) {
        return prefix + schema.logicalName();
    }

    /** Every table the stack creates under a fixed name (the business tables and the idempotency table). */
    public static List<String> tableNames(String prefix) {
        return Tables.ALL.stream().map(s -> tableName(prefix, s)).toList();
    }

    public static String functionName(String prefix, LambdaFunction function) {
        return prefix + function.logicalName();
    }

    /** The Adyen webhook receiver's logical name: not a nightly function, present only in an Adyen stack. */
    public static final String ADYEN_WEBHOOK = "AdyenWebhook";

    /** The Adyen webhook receiver's function name, as the stack names it and preflight reads it. */
    public static String adyenWebhookFunctionName(String prefix) {
        return prefix + ADYEN_WEBHOOK;
    }

    /** The log groups the stack creates and keeps: one per function, and the state machine's. */
    public static List<String> logGroupNames(String prefix) {
        List<String> names = new ArrayList<>();
        for (LambdaFunction function : LambdaFunction.values()) {
            names.add("/aws/lambda/" + functionName(prefix, function));
        }
        names.add(stateMachineLogGroupName(prefix));
        return names;
    }

    public static String stateMachineLogGroupName(String prefix) {
        return "/aws/vendedlogs/states/" + prefix + STATE_MACHINE_SUFFIX;
    }

    public static String defaultProviderSecretName(String prefix) {
        return prefix + PROVIDER_SECRET_SUFFIX;
    }
}
