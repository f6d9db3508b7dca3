package com.payments.reconciler.cli;

import com.payments.reconciler.cli.deployment.StackName;
import com.payments.reconciler.cli.operator.ParkedCommands;
import com.payments.reconciler.store.Tables.ReleaseCommands;
import java.io.PrintWriter;
import java.net.URI;
import java.time.Clock;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;

/** {@code commands list|requeue|resolve}: the release commands waiting for a person (QUARANTINED, ESCALATED). */
@Command(name = "commands", mixinStandardHelpOptions = true,
        description = "List the release commands parked for a person (QUARANTINED: the provider answered outside its contract; "
                + "ESCALATED: older than automatic delivery, or first attempted longer ago than the provider keeps keys with no status "
                + "lookup to ask), and requeue or resolve one once the provider was asked.",
        subcommands = {CommandsCommand.ListParked.class, CommandsCommand.RequeueParked.class, CommandsCommand.ResolveParked.class})
final class CommandsCommand {

    /** Where the ReleaseCommands table is: the stack's output ReleaseCommandsTableName (or a named table), the operator's credentials or a local moto. */
    static final class TableOptions {
        @Option(names = "--stack-name", paramLabel = "NAME",
                description = "The deployed reconciler stack whose ReleaseCommandsTableName output names the table (default: $" + StackName.ENV
                        + ", else cdk.json's namePrefix + HoldReleaseReconciler).")
        String stackName;

        @Option(names = "--commands-table", paramLabel = "NAME",
                description = "The ReleaseCommands table by name, instead of the stack's output (e.g. a table the stack imported).")
        String table;

        @Option(names = "--region", paramLabel = "REGION", description = "AWS region (default: the SDK's chain, e.g. AWS_REGION).")
        String region;

        @Option(names = "--endpoint-url", paramLabel = "URL", description = "Another endpoint for CloudFormation and DynamoDB, e.g. a local moto (dummy credentials).")
        URI endpointUrl;

        ParkedCommands parked() {
            String name = OperatorTable.name("--commands-table", table, ReleaseCommands.SCHEMA, stackName, region, endpointUrl);
            return new ParkedCommands(OperatorClients.build(DynamoDbClient.builder(), region, endpointUrl), name);
        }
    }

    @Command(name = "list", mixinStandardHelpOptions = true,
            description = "List parked commands, oldest first, then those ACKNOWLEDGED (sent, the provider's outcome awaited).",
            exitCodeListHeading = "%nExit codes:%n",
            exitCodeList = {"0:listed", "2:bad usage or input: a flag's value", "3:AWS error: no credentials, permissions, throttling, endpoint, table"})
    static final class ListParked implements Callable<Integer> {
        @Spec
        CommandSpec spec;

        @Option(names = "--status", paramLabel = "STATUS", description = "QUARANTINED, ESCALATED or ACKNOWLEDGED (default: all three).")
        String status;

        @Mixin
        TableOptions table;

        @Mixin
        Verbosity verbosity;

        @Override
        public Integer call() {
            boolean acknowledged = status == null || ReleaseCommands.STATUS_ACKNOWLEDGED.equals(status);
            java.util.List<String> statuses = status == null ? ReleaseCommands.PARKED
                    : acknowledged ? java.util.List.of() : java.util.List.of(status);
            if (status != null && !acknowledged && !ReleaseCommands.PARKED.contains(status)) {
                throw new IllegalArgumentException("--status must be one of QUARANTINED, ESCALATED, ACKNOWLEDGED, was " + status);
            }
            ParkedCommands parked = table.parked();
            PrintWriter out = spec.commandLine().getOut();
            int count = 0;
            for (String s : statuses) {
                for (ParkedCommands.Parked p : parked.list(s)) {
                    count++;
                    out.printf("%-12s %s (authorisation %s, window %s) since %s, epoch %d, %d provider requests%n  %s%n", p.status(),
                            p.operationId(), p.authorisationId(), p.windowId(), p.endedAt(), p.endedEpoch(), p.attempts(), p.reason());
                }
            }
            if (!statuses.isEmpty()) {
                out.println(count + " parked command" + (count == 1 ? "" : "s") + " (" + String.join(", ", statuses) + ")");
            }
            if (acknowledged) {
                java.util.List<ParkedCommands.Awaiting> awaiting = parked.awaiting();
                for (ParkedCommands.Awaiting a : awaiting) {
                    out.printf("%-12s %s (authorisation %s, window %s) since %s, epoch %d, %d provider requests%n"
                                    + "  outcome awaited for the provider's request %s%n", ReleaseCommands.STATUS_ACKNOWLEDGED,
                            a.operationId(), a.authorisationId(), a.windowId(), a.acknowledgedAt(), a.acknowledgedEpoch(),
                            a.attempts(), a.requestReference());
                }
                out.println(awaiting.size() + " acknowledged command" + (awaiting.size() == 1 ? "" : "s")
                        + " (the provider's outcome awaited; escalated once older than providerOutcomeTimeout)");
            }
            return ExitCodes.OK;
        }
    }

    @Command(name = "requeue", mixinStandardHelpOptions = true,
            description = "Put a parked command back to PENDING; the next night's (or a rerun's) delivery sends it again under the same Idempotency-Key.",
            exitCodeListHeading = "%nExit codes:%n",
            exitCodeList = {"0:requeued", "1:refused: the command is not parked (nothing written)",
                    "2:bad usage or input: a flag's value, or no command with that operation id",
                    "3:AWS error: no credentials, permissions, throttling, endpoint, table"})
    static final class RequeueParked implements Callable<Integer> {
        @Spec
        CommandSpec spec;

        @Option(names = "--operation-id", required = true, paramLabel = "ID", description = "release-hold:{authorisationId}, as `commands list` shows it.")
        String operationId;

        @Option(names = "--note", required = true, paramLabel = "TEXT",
                description = "Why it is requeued (what the provider said), kept on the command. Never card data.")
        String note;

        @Mixin
        TableOptions table;

        @Mixin
        Verbosity verbosity;

        @Override
        public Integer call() {
            requireOperationId(operationId);
            requireNote(note, "why the command is requeued");
            PrintWriter out = spec.commandLine().getOut();
            return switch (table.parked().requeue(operationId, note.strip(), Clock.systemUTC().instant())) {
                case ParkedCommands.Requeue.Requeued r -> {
                    out.println("requeued " + r.operationId() + " to PENDING in shard " + r.shard()
                            + ": the next delivery of that shard (the next night, or bin/reconciler rerun) sends it");
                    yield ExitCodes.OK;
                }
                case ParkedCommands.Requeue.NotParked n -> {
                    spec.commandLine().getErr().println("error: " + n.operationId() + " is not parked (" + n.status()
                            + "): only QUARANTINED or ESCALATED commands are requeued; nothing was written");
                    yield ExitCodes.RUN_FAILED;
                }
            };
        }
    }

    @Command(name = "resolve", mixinStandardHelpOptions = true,
            description = {"Close a parked (QUARANTINED or ESCALATED) command as the provider says its hold is, through a write "
                    + "conditioned on the command still being parked as read; it is never sent again.",
                    "  --as released      the provider confirms the hold is released (by this job's request or otherwise): the "
                    + "command ends DELIVERED. Give the provider's id for the release with --provider-reference when it shows one.",
                    "  --as not-released  the provider says the hold is not released: it was captured, or it is still held and this job "
                    + "is not to release it. The command ends REJECTED without a release. (To have a hold that is still active "
                    + "released, use `commands requeue` instead.)",
                    "Recorded on the command: the status, resolvedBy (the caller ARN from STS GetCallerIdentity, else the resolved "
                    + "AWS profile), resolvedAt, resolutionNote (--note, never a card number) and, in providerReference (released: "
                    + "--provider-reference when given) or rejectionReason (not-released), who resolved it, as what, from which parked "
                    + "status, and the note. The parked "
                    + "reason and the first-attempt time stay. Run twice the same way, it says so and writes nothing."},
            exitCodeListHeading = "%nExit codes:%n",
            exitCodeList = {"0:resolved", "1:refused: the command is not parked (nothing written)",
                    "2:bad usage or input: a flag's value, or no command with that operation id",
                    "3:AWS error: no credentials, permissions, throttling, endpoint, table"})
    static final class ResolveParked implements Callable<Integer> {
        @Spec
        CommandSpec spec;

        @Option(names = "--operation-id", required = true, paramLabel = "ID", description = "release-hold:{authorisationId}, as `commands list` shows it.")
        String operationId;

        @Option(names = "--as", required = true, paramLabel = "released|not-released",
                description = "What the provider said about the hold: released (DELIVERED), or not-released (REJECTED).")
        String as;

        @Option(names = "--note", required = true, paramLabel = "TEXT",
                description = "What the provider said and where. Kept on the command. Never card data.")
        String note;

        @Option(names = "--provider-reference", paramLabel = "REF",
                description = "With --as released: the provider's id for the release (" + ProviderReferences.FORM
                        + "), stored as the command's providerReference, where a delivered command keeps the provider's answer.")
        String providerReference;

        @Mixin
        TableOptions table;

        @Mixin
        Verbosity verbosity;

        @Override
        public Integer call() {
            requireOperationId(operationId);
            ParkedCommands.Resolution resolution = ParkedCommands.Resolution.of(as);
            requireNote(note, "what the provider said about the hold");
            java.util.Optional<String> reference = ProviderReferences.optional(providerReference);
            if (reference.isPresent() && resolution != ParkedCommands.Resolution.RELEASED) {
                throw new IllegalArgumentException("--provider-reference goes with --as released only (a hold not released has no "
                        + "release reference); nothing was written");
            }
            PrintWriter out = spec.commandLine().getOut();
            return switch (table.parked().resolve(operationId, resolution, note.strip(), reference,
                    CallerIdentity.describe(table.region, table.endpointUrl), Clock.systemUTC().instant())) {
                case ParkedCommands.Resolve.Resolved r -> {
                    out.println("resolved " + r.operationId() + " as " + resolution.flag() + ": " + r.status() + ", not sent again");
                    yield ExitCodes.OK;
                }
                case ParkedCommands.Resolve.AlreadyResolved r -> {
                    out.println(r.operationId() + " was already resolved as " + resolution.flag() + " with this note (" + r.status()
                            + "): nothing written");
                    yield ExitCodes.OK;
                }
                case ParkedCommands.Resolve.NotParked n -> {
                    spec.commandLine().getErr().println("error: " + n.operationId() + " is not parked (" + n.status()
                            + "): only QUARANTINED or ESCALATED commands are resolved; nothing was written");
                    yield ExitCodes.RUN_FAILED;
                }
            };
        }
    }

    static void requireOperationId(String operationId) {
        if (operationId == null || !operationId.matches("release-hold:[A-Za-z0-9_.:-]{1,200}")) {
            throw new IllegalArgumentException("--operation-id must be release-hold:{authorisationId}, was " + operationId);
        }
    }

    /** A note is stored and shown: 1 to 500 characters, never a card number (the screen IngestEvents applies to events). */
    static void requireNote(String note, String saying) {
        if (note == null || note.isBlank() || note.length() > 500) {
            throw new IllegalArgumentException("--note must be 1 to 500 characters saying " + saying);
        }
        if (com.payments.reconciler.ingest.CardDataScreen.containsCardNumber(note)) {
            throw new IllegalArgumentException("--note must not hold a card number (it holds a Luhn-valid run of 12-19 digits); "
                    + "say what the provider said without it; nothing was written");
        }
    }
}
