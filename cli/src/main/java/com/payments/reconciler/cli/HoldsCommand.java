package com.payments.reconciler.cli;

import com.payments.reconciler.cli.deployment.StackName;
import com.payments.reconciler.cli.operator.FeedHolds;
import com.payments.reconciler.ingest.EventDecoder;
import com.payments.reconciler.store.Tables.Settlements;
import java.io.PrintWriter;
import java.net.URI;
import java.time.Clock;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;

/** {@code holds list|clear}: the holds for feed a refused settlement left in the Settlements table (docs/operating.md). */
@Command(name = "holds", mixinStandardHelpOptions = true,
        description = "List the holds for feed (IngestEvents refused a settlement: held#<authorisationId> keeps that authorisation "
                + "from release, held#* every one), and clear one once its refused settlement is accounted for.",
        subcommands = {HoldsCommand.ListHolds.class, HoldsCommand.ClearHold.class})
final class HoldsCommand {

    /** Where the Settlements table is: the stack's output SettlementsTableName (or a named table). */
    static final class TableOptions {
        @Option(names = "--stack-name", paramLabel = "NAME",
                description = "The deployed reconciler stack whose SettlementsTableName output names the table (default: $" + StackName.ENV
                        + ", else cdk.json's namePrefix + HoldReleaseReconciler).")
        String stackName;

        @Option(names = "--settlements-table", paramLabel = "NAME",
                description = "The Settlements table by name, instead of the stack's output (e.g. the platform's own table the stack imported).")
        String table;

        @Option(names = "--region", paramLabel = "REGION", description = "AWS region (default: the SDK's chain, e.g. AWS_REGION).")
        String region;

        @Option(names = "--endpoint-url", paramLabel = "URL", description = "Another endpoint for CloudFormation, DynamoDB and STS, e.g. a local moto (dummy credentials).")
        URI endpointUrl;

        FeedHolds holds() {
            String name = OperatorTable.name("--settlements-table", table, Settlements.SCHEMA, stackName, region, endpointUrl);
            return new FeedHolds(OperatorClients.build(DynamoDbClient.builder(), region, endpointUrl), name);
        }
    }

    @Command(name = "list", mixinStandardHelpOptions = true,
            description = "List the holds for feed, the night-wide one first, then oldest first, with when and why each was recorded "
                    + "(the refusal's reason and field, never a value). Scans the Settlements table.",
            exitCodeListHeading = "%nExit codes:%n",
            exitCodeList = {"0:listed", "2:bad usage or input: a flag's value", "3:AWS error: no credentials, permissions, throttling, endpoint, table"})
    static final class ListHolds implements Callable<Integer> {
        @Spec
        CommandSpec spec;

        @Mixin
        TableOptions table;

        @Mixin
        Verbosity verbosity;

        @Override
        public Integer call() {
            List<FeedHolds.Hold> holds = table.holds().list();
            PrintWriter out = spec.commandLine().getOut();
            for (FeedHolds.Hold h : holds) {
                out.printf("%-40s %s since %s: %s%n", h.key(), h.key().equals(Settlements.NIGHT_WIDE_HOLD_KEY)
                        ? "every due authorisation (night-wide)" : "authorisation " + h.authorisationId(), h.heldAt(), h.reason());
            }
            out.println(holds.size() + " hold" + (holds.size() == 1 ? "" : "s") + " for feed");
            return ExitCodes.OK;
        }
    }

    @Command(name = "clear", mixinStandardHelpOptions = true,
            description = {"Delete one hold for feed, recording who (the caller ARN from STS GetCallerIdentity, else the resolved "
                    + "AWS profile, and the local user), when and --note on a cleared-hold# record in the same table.",
                    "Clear a hold only once its refused settlement is accounted for: published again and ingested (the authorisation "
                    + "is then settled and never released), or known not to exist. The next night may release what the hold kept back."},
            exitCodeListHeading = "%nExit codes:%n",
            exitCodeList = {"0:cleared", "1:refused: the hold was recorded again while being cleared (nothing written)",
                    "2:bad usage or input: a flag's value, or no such hold (nothing written)",
                    "3:AWS error: no credentials, permissions, throttling, endpoint, table"})
    static final class ClearHold implements Callable<Integer> {
        @Spec
        CommandSpec spec;

        @Option(names = "--authorisation", paramLabel = "ID", description = "The authorisation whose hold to clear (held#<ID>).")
        String authorisation;

        @Option(names = "--night-wide", description = "Clear the night-wide hold (held#*), once every refused message in the dead-letter queue is accounted for.")
        boolean nightWide;

        @Option(names = "--note", required = true, paramLabel = "TEXT",
                description = "Why the hold may go (e.g. which corrected settlement was ingested), kept on the record. Never card data.")
        String note;

        @Mixin
        TableOptions table;

        @Mixin
        Verbosity verbosity;

        @Override
        public Integer call() {
            String key = key(authorisation, nightWide);
            CommandsCommand.requireNote(note, "why the hold may be cleared");
            PrintWriter out = spec.commandLine().getOut();
            return switch (table.holds().clear(key, note.strip(), CallerIdentity.describe(table.region, table.endpointUrl), Clock.systemUTC().instant())) {
                case FeedHolds.Clear.Cleared c -> {
                    out.println("cleared " + c.key() + " (record " + c.recordKey() + "): the next night may release what it held");
                    yield ExitCodes.OK;
                }
                case FeedHolds.Clear.NoHold n -> throw new IllegalArgumentException((nightWide ? "--night-wide" : "--authorisation")
                        + ": no hold " + n.key() + " (never recorded, or cleared already; bin/reconciler holds list); nothing was written");
                case FeedHolds.Clear.Changed c -> {
                    spec.commandLine().getErr().println("error: " + c.key() + " was recorded again while being cleared (a new refusal): "
                            + "nothing was written; list the holds and clear it again once that refusal is accounted for");
                    yield ExitCodes.RUN_FAILED;
                }
            };
        }

        /** Exactly one of the two flags; the id in the contract's form. */
        static String key(String authorisation, boolean nightWide) {
            if (nightWide == (authorisation != null)) {
                throw new IllegalArgumentException("--authorisation ID or --night-wide: give exactly one (which hold to clear)");
            }
            if (nightWide) {
                return Settlements.NIGHT_WIDE_HOLD_KEY;
            }
            // A card number is never an authorisation id (IngestEvents refuses the event that carries one), and never echoed.
            if (com.payments.reconciler.ingest.CardDataScreen.containsCardNumber(authorisation)) {
                throw new IllegalArgumentException("--authorisation must be an authorisation id, not a card number; nothing was written");
            }
            if (!EventDecoder.ID.matcher(authorisation).matches()) {
                throw new IllegalArgumentException("--authorisation must be an authorisation id as the contract has it ("
                        + EventDecoder.ID_FORM + "), was '" + authorisation + "'");
            }
            return Settlements.heldKey(authorisation);
        }
    }
}
