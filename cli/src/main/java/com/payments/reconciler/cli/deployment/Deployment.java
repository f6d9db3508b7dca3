package com.payments.reconciler.cli.deployment;

import com.payments.reconciler.store.TableSchema;
import com.payments.reconciler.window.WindowConfig;
import com.payments.reconciler.workflow.InvalidInput;
import com.payments.reconciler.workflow.StackOutputs;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The deployed reconciler an operator's command acts on, as its stack's outputs describe it: the state machine, the
 * tables and the window settings the functions run with. Read from the stack, never from flags, so a command cannot
 * aim at one deployment with another's settings.
 *
 * @param stackName the CloudFormation stack
 * @param outputs its outputs, output key → value
 */
public record Deployment(String stackName, Map<String, String> outputs) {

    public Deployment {
        outputs = Map.copyOf(outputs);
    }

    public String stateMachineArn() {
        return required(StackOutputs.STATE_MACHINE_ARN);
    }

    public String tableName(TableSchema schema) {
        return required(StackOutputs.tableName(schema));
    }

    /**
     * The deployed window settings (zone, schedule time, grace, shards, dry run, horizon), read back exactly as the functions
     * read their environment; a stack without them predates this version and must be redeployed first.
     */
    public WindowConfig window() {
        Map<String, String> env = new LinkedHashMap<>();
        StackOutputs.WINDOW_SETTINGS.forEach((envVar, key) -> env.put(envVar, required(key)));
        try {
            return WindowConfig.fromEnvironment(env);
        } catch (InvalidInput bad) {
            throw new IllegalArgumentException("--stack-name: stack " + stackName + " has an unreadable window setting: " + bad.getMessage(), bad);
        }
    }

    private String required(String key) {
        String value = outputs.get(key);
        if (value == null || value.isBlank()) {
            throw new IllegalArgumentException("--stack-name: stack " + stackName + " has no output " + key
                    + " (not a reconciler stack, or deployed by an older version: cdk deploy it again)");
        }
        return value;
    }
}
