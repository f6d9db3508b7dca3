package com.payments.reconciler.cli;

import com.payments.reconciler.store.Tables.Leases;
import com.payments.reconciler.surge.NightRecords;
import com.payments.reconciler.window.StartResult;
import com.payments.reconciler.window.WindowConfig;
import com.payments.reconciler.window.WindowId;
import com.payments.reconciler.window.WindowStarter;
import java.io.PrintWriter;
import java.net.URI;
import java.time.Clock;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;
import picocli.CommandLine.Model.CommandSpec;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;

/**
 * {@code approve --window W --note TEXT}: an operator's approval of a night the release-surge guard held, recorded on
 * the night's record (who: the caller ARN from STS GetCallerIdentity, as {@code commands resolve} records it; when; the
 * note), then a rerun of the window, which sees the approval, passes the guard and delivers the held commands.
 */
@Command(name = "approve", mixinStandardHelpOptions = true,
        description = "Approve a night the release-surge guard held (it ended ReleaseSurge): records who (the caller ARN from STS "
                + "GetCallerIdentity), when and --note on the night's record, then starts a rerun (reconcile-W-rerun-N), which "
                + "delivers the held commands. Check first what docs/operating.md lists under ReleaseSurge.",
        exitCodeListHeading = "%nExit codes:%n",
        exitCodeList = {"0:approved (or already approved) and the rerun started",
                "1:refused: the window was not held (nothing written), or an execution of the window is running",
                "2:bad usage or input: a flag's value, a window the guard never judged",
                "3:AWS error: no credentials, permissions, throttling, endpoint, table"})
final class ApproveCommand implements Callable<Integer> {

    @Spec
    CommandSpec spec;

    @Option(names = "--window", required = true, paramLabel = "YYYY-MM-DD", description = "The held window (the date of the night).")
    String window;

    @Option(names = "--note", required = true, paramLabel = "TEXT",
            description = "Why the surge is real (what was checked: the feed, the platform's volume). Kept on the night's record. Never card data.")
    String note;

    @Option(names = "--leases-table", paramLabel = "NAME",
            description = "The Leases table, which holds the nights' records, by name instead of the stack's output LeasesTableName.")
    String leasesTable;

    @Mixin
    AwsOptions aws;

    @Mixin
    Verbosity verbosity;

    @Override
    public Integer call() {
        WindowId id = WindowId.parse(window, "--window");
        CommandsCommand.requireNote(note, "why the surge is real");
        if (leasesTable != null) {
            OperatorTable.requireName("--leases-table", leasesTable);
        }
        // The held night's commands were decided under the deployed configuration; the rerun runs under it too.
        WindowConfig config = aws.deployment().window();
        WindowOptions.requireStartable(config, id, Clock.systemUTC().instant());
        String table = leasesTable != null ? leasesTable : aws.deployment().tableName(Leases.SCHEMA);
        PrintWriter out = spec.commandLine().getOut();
        PrintWriter err = spec.commandLine().getErr();
        String region = aws.effectiveRegion();
        URI endpoint = aws.endpointUrl;
        NightRecords records = new NightRecords(OperatorClients.build(DynamoDbClient.builder(), region, endpoint), table);
        String who = CallerIdentity.describe(region, endpoint);
        switch (records.approve(id, who, note.strip(), Clock.systemUTC().instant())) {
            case APPROVED -> out.println("approved " + id + " as " + who);
            case ALREADY_APPROVED -> out.println(id + " was already approved (" + records.read(id).flatMap(NightRecords.Night::approvedBy)
                    .orElse("unknown") + "); starting the rerun again");
            case NOT_HELD -> {
                err.println("refused: " + id + " was not held by the release-surge guard (its night record says "
                        + records.read(id).map(NightRecords.Night::status).orElse("nothing") + "); nothing written");
                return ExitCodes.RUN_FAILED;
            }
            case NO_RECORD -> throw new IllegalArgumentException("--window: the release-surge guard never judged " + id
                    + " (no night record in " + table + "); `status --window " + id + "` shows how its executions ended");
        }
        WindowStarter starter = aws.windowStarter();
        try {
            StartResult result = starter.startRerun(id, config.inputFor(id), false);
            StartCommand.print(out, result, aws);
            return ExitCodes.OK;
        } catch (WindowStarter.WindowBusy busy) {
            err.println("approved, but the rerun was refused: " + busy.getMessage() + "; run `rerun --window " + id + "` once it ended");
            return ExitCodes.RUN_FAILED;
        }
    }
}
