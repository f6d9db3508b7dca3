package com.payments.reconciler.workflow;

import com.payments.reconciler.store.TableSchema;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The CloudFormation output keys of the deployed stack: one definition for the CDK stack that exports them and for the
 * operator's commands, which find the state machine, the tables and the deployed window settings with
 * {@code DescribeStacks} instead of flags (a flag could name another deployment's values; the stack cannot).
 * Stack-level outputs keep exactly these keys across deploys.
 */
public final class StackOutputs {

    private StackOutputs() {
    }

    public static final String STATE_MACHINE_ARN = "StateMachineArn";
    public static final String STATE_MACHINE_CONSOLE_URL = "StateMachineConsoleUrl";
    public static final String DASHBOARD_NAME = "DashboardName";

    /**
     * The window settings the functions are deployed with (their environment variables), one output each, so an operator's
     * command checks a window against the deployed schedule and shows the deployed grace without being told either.
     * Keys in a fixed order: environment variable → output key.
     */
    public static final Map<String, String> WINDOW_SETTINGS = windowSettings();

    private static Map<String, String> windowSettings() {
        Map<String, String> keys = new LinkedHashMap<>();
        keys.put(EnvVars.SCHEDULE_TIME_ZONE, "ScheduleTimeZone");
        keys.put(EnvVars.SCHEDULE_LOCAL_TIME, "ScheduleLocalTime");
        keys.put(EnvVars.GRACE_PERIOD, "GracePeriod");
        keys.put(EnvVars.SHARDS, "Shards");
        keys.put(EnvVars.DRY_RUN, "DryRun");
        keys.put(EnvVars.WINDOW_HORIZON_DAYS, "WindowHorizonDays");
        return java.util.Collections.unmodifiableMap(keys);
    }

    /** The output key of a table's physical name, e.g. {@code ReleaseCommandsTableName}. */
    public static String tableName(TableSchema schema) {
        return schema.logicalName() + "TableName";
    }
}
