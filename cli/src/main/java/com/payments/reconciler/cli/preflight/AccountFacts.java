package com.payments.reconciler.cli.preflight;

import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * What the read-only calls found in the target account, before any judgement ({@link Preflight} judges).
 *
 * @param region the region the calls went to
 * @param concurrencyLimit the account's {@code ConcurrentExecutions}
 * @param unreservedConcurrency the account's {@code UnreservedConcurrentExecutions}
 * @param bootstrapStatus CDKToolkit's stack status, empty when there is no such stack
 * @param stackStatus the reconciler stack's status, empty when it does not exist (or was deleted)
 * @param leftovers every resource found under a name the stack creates: kind (table, secret, log group, queue) → names
 * @param secretDeletionScheduled names of secrets found that are scheduled for deletion (they still hold the name)
 * @param secret the deployed provider secret, when the stack exists
 * @param deliverEnvironment DeliverCommands' environment variables, when the stack exists
 * @param startWindowEnvironment StartWindow's environment variables, when the stack exists
 * @param unprotectedTables business tables of the deployed stack without deletion protection
 * @param reservedByStack the concurrency the stack's functions reserve now (GetFunctionConcurrency, summed), when it exists
 */
public record AccountFacts(String region, int concurrencyLimit, int unreservedConcurrency, Optional<String> bootstrapStatus,
                           Optional<String> stackStatus, Map<String, List<String>> leftovers, List<String> secretDeletionScheduled,
                           Optional<SecretFacts> secret, Map<String, String> deliverEnvironment,
                           Map<String, String> startWindowEnvironment, List<String> unprotectedTables,
                           int reservedByStack) {

    /**
     * @param name the secret's name
     * @param versions how many versions it has: the stack creates one (a generated placeholder), putting the key adds one
     * @param readable what {@code GetSecretValue} answered the operator, when it answered at all (the secret's policy
     *                 denies every principal but DeliverCommands' role, so on AWS it is empty)
     */
    public record SecretFacts(String name, int versions, Optional<String> readable) {
    }
}
