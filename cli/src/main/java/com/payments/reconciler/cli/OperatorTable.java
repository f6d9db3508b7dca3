package com.payments.reconciler.cli;

import com.payments.reconciler.cli.deployment.StackLookup;
import com.payments.reconciler.cli.deployment.StackName;
import com.payments.reconciler.store.TableSchema;
import java.net.URI;
import java.nio.file.Path;
import software.amazon.awssdk.services.cloudformation.CloudFormationClient;

/** The table an operator command works on: named by its flag, or read from the deployed stack's outputs. */
final class OperatorTable {

    private OperatorTable() {
    }

    /**
     * @param flag the command's table flag, for the error (e.g. {@code --commands-table})
     * @param named the flag's value, or null to read the stack's output for {@code schema}
     */
    static String name(String flag, String named, TableSchema schema, String stackName, String region, URI endpointUrl) {
        return requireName(flag, named != null ? named : fromStack(schema, stackName, region, endpointUrl));
    }

    /** {@code name} if it is a DynamoDB table name; otherwise bad input naming {@code flag}. */
    static String requireName(String flag, String name) {
        if (name == null || !name.matches("[A-Za-z0-9_.-]{3,255}")) {
            throw new IllegalArgumentException(flag + " must be a DynamoDB table name (3-255 of A-Z a-z 0-9 _ . -), was " + name);
        }
        return name;
    }

    private static String fromStack(TableSchema schema, String stackName, String region, URI endpointUrl) {
        String stack = StackName.resolve(stackName, System.getenv(), Path.of(""));
        String r = region != null ? region : endpointUrl != null ? OperatorClients.LOCAL_DEFAULT_REGION.id() : null;
        StackLookup lookup = new StackLookup(OperatorClients.build(CloudFormationClient.builder(), r, endpointUrl));
        return lookup.find(stack, r != null ? r : "the configured region").tableName(schema);
    }
}
