package com.payments.reconciler.store;

import java.util.Map;
import java.util.Objects;

/**
 * The physical table names of one deployment. In Lambda they arrive as environment variables set
 * by the CDK stack ({@link #ENV_VARS}); locally they are the logical names with a prefix.
 */
public record TableNames(String leases, String authorisations, String settlements, String releaseCommands,
                         String idempotency) {

    public static final String ENV_LEASES = "LEASES_TABLE";
    public static final String ENV_AUTHORISATIONS = "AUTHORISATIONS_TABLE";
    public static final String ENV_SETTLEMENTS = "SETTLEMENTS_TABLE";
    public static final String ENV_RELEASE_COMMANDS = "RELEASE_COMMANDS_TABLE";
    public static final String ENV_IDEMPOTENCY = "IDEMPOTENCY_TABLE";

    /** Environment variable per table schema, as the stack sets them. */
    public static final Map<TableSchema, String> ENV_VARS = Map.of(
            Tables.Leases.SCHEMA, ENV_LEASES,
            Tables.Authorisations.SCHEMA, ENV_AUTHORISATIONS,
            Tables.Settlements.SCHEMA, ENV_SETTLEMENTS,
            Tables.ReleaseCommands.SCHEMA, ENV_RELEASE_COMMANDS,
            Tables.Idempotency.SCHEMA, ENV_IDEMPOTENCY);

    public TableNames {
        Objects.requireNonNull(leases, "leases");
        Objects.requireNonNull(authorisations, "authorisations");
        Objects.requireNonNull(settlements, "settlements");
        Objects.requireNonNull(releaseCommands, "releaseCommands");
        Objects.requireNonNull(idempotency, "idempotency");
    }

    public static TableNames withPrefix(String prefix) {
        return new TableNames(prefix + Tables.Leases.SCHEMA.logicalName(),
                prefix + Tables.Authorisations.SCHEMA.logicalName(),
                prefix + Tables.Settlements.SCHEMA.logicalName(),
                prefix + Tables.ReleaseCommands.SCHEMA.logicalName(),
                prefix + Tables.Idempotency.SCHEMA.logicalName());
    }

    public static TableNames fromEnvironment(Map<String, String> env) {
        return new TableNames(required(env, ENV_LEASES), required(env, ENV_AUTHORISATIONS),
                required(env, ENV_SETTLEMENTS), required(env, ENV_RELEASE_COMMANDS), required(env, ENV_IDEMPOTENCY));
    }

    public String nameOf(TableSchema schema) {
        if (schema == Tables.Leases.SCHEMA) return leases;
        if (schema == Tables.Authorisations.SCHEMA) return authorisations;
        if (schema == Tables.Settlements.SCHEMA) return settlements;
        if (schema == Tables.ReleaseCommands.SCHEMA) return releaseCommands;
        if (schema == Tables.Idempotency.SCHEMA) return idempotency;
        throw new IllegalArgumentException("unknown table schema " + schema.logicalName());
    }

    private static String required(Map<String, String> env, String name) {
        String value = env.get(name);
        if (value == null || value.isBlank()) {
            throw new IllegalStateException("environment variable " + name + " must name a DynamoDB table");
        }
        return value;
    }
}
