package com.payments.reconciler.cli;

import com.payments.reconciler.window.WindowStarter;
import com.payments.reconciler.workflow.InvalidInput;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.util.List;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import software.amazon.awssdk.core.exception.SdkException;

/**
 * {@code bin/reconciler}: the operator's commands against AWS. The local harness ({@code local}, {@code chaos},
 * {@code bench}) is another module and jar; it adds its commands to this same command line through
 * {@link #run(String[], PrintStream, PrintStream, List)}, so both read as one tool.
 */
@Command(name = "reconciler", mixinStandardHelpOptions = true, version = "hold-release-reconciler 1.0.0",
        description = "Nightly hold-release reconciler: start, rerun, redrive and inspect windows on AWS.",
        subcommands = {StartCommand.class, RerunCommand.class, RedriveCommand.class,
                StatusCommand.class, HistoryCommand.class, CommandsCommand.class, HoldsCommand.class, ApproveCommand.class, PreflightCommand.class},
        footer = {"%nbin/reconciler also runs the local harness (its own jar): local (one night on local engines), "
                + "chaos (fault campaigns), bench (throughput and cost figures)."},
        exitCodeListHeading = "%nExit codes:%n",
        exitCodeList = {"0:success (local, chaos: the run SUCCEEDED with I1-I5 true)", "1:a rerun or redrive refused; local, chaos, bench: a run failed, was superseded or broke an invariant",
                "2:bad usage or input (nothing was started or written)", "3:AWS error (no credentials, permissions, throttling, endpoint)"})
public final class ReconcilerCli {

    public static void main(String[] args) {
        System.exit(run(args, System.out, System.err));
    }

    /**
     * Runs one command line as the process does: the command's own output (a report, {@code --json}) is the
     * only thing written to {@code stdout}. Everything else that writes to {@code System.out} while it runs
     * (the hosted handlers' JSON logs and EMF metric lines, as on Lambda) goes to {@code stderr}, so
     * {@code --json} output can be piped to {@code jq} as it is.
     */
    public static int run(String[] args, PrintStream stdout, PrintStream stderr) {
        return run(args, stdout, stderr, List.of());
    }

    /** As {@link #run(String[], PrintStream, PrintStream)}, with more subcommands (the harness's). */
    public static int run(String[] args, PrintStream stdout, PrintStream stderr, List<Class<?>> moreCommands) {
        PrintStream previous = System.out;
        System.setOut(stderr);
        try {
            return execute(args, new PrintWriter(stdout, true), new PrintWriter(stderr, true), moreCommands);
        } finally {
            System.setOut(previous);
        }
    }

    /** Runs one command line; what tests call. */
    public static int execute(String[] args, PrintWriter out, PrintWriter err) {
        return execute(args, out, err, List.of());
    }

    public static int execute(String[] args, PrintWriter out, PrintWriter err, List<Class<?>> moreCommands) {
        CommandLine cli = new CommandLine(new ReconcilerCli());
        // Every check, one line each, from the one list the command runs (Check).
        CommandLine preflight = cli.getSubcommands().get("preflight");
        preflight.getCommandSpec().usageMessage().description(preflight.getCommandSpec().usageMessage().description()[0],
                String.format(PreflightCommand.checksHelp()));
        moreCommands.forEach(cli::addSubcommand);
        FlagValues.register(cli);
        cli.setOut(out);
        cli.setErr(err);
        cli.setParameterExceptionHandler((e, a) -> {
            err.println("error: " + describe(e));
            if (showsUsage(e)) {
                e.getCommandLine().usage(err);
            }
            return ExitCodes.BAD_INPUT;
        });
        cli.setExecutionExceptionHandler((e, commandLine, parsed) -> {
            err.println("error: " + describe(e));
            return exitCodeOf(e);
        });
        cli.setExecutionStrategy(OperatorLogs::execute);
        return cli.execute(args);
    }

    /**
     * The usage text helps with an unknown flag or a missing argument; after a bad value it would bury the one line
     * that says what to change.
     */
    static boolean showsUsage(CommandLine.ParameterException e) {
        return e instanceof CommandLine.UnmatchedArgumentException || e instanceof CommandLine.MissingParameterException;
    }

    /** A flag's value that did not convert: the flag, the accepted form and the value given, on one line. */
    static String describe(CommandLine.ParameterException e) {
        if (e.getCause() instanceof CommandLine.TypeConversionException refused && e.getArgSpec() instanceof CommandLine.Model.OptionSpec option) {
            return option.longestName() + ": " + refused.getMessage();
        }
        return e.getMessage();
    }

    public static int exitCodeOf(Throwable e) {
        if (e instanceof InvalidInput || e instanceof IllegalArgumentException || e instanceof CommandLine.ParameterException) {
            return ExitCodes.BAD_INPUT;
        }
        if (MissingCredentials.isRegion(e)) {
            return ExitCodes.BAD_INPUT;
        }
        if (e instanceof SdkException) {
            // Missing credentials included: where they are looked for is the operator's machine, not a flag.
            return ExitCodes.AWS_ERROR;
        }
        if (e instanceof WindowStarter.WindowBusy) {
            return ExitCodes.RUN_FAILED;
        }
        return ExitCodes.RUN_FAILED;
    }

    public static String describe(Throwable e) {
        if (e instanceof software.amazon.awssdk.awscore.exception.AwsServiceException aws) {
            String code = aws.awsErrorDetails() == null ? "" : aws.awsErrorDetails().errorCode();
            String hint = switch (code == null ? "" : code) {
                case "AccessDeniedException", "AccessDenied", "UnrecognizedClientException" ->
                        " — the credentials in use may not call this; check the role/profile (AWS_PROFILE) and the region";
                case "ThrottlingException", "TooManyRequestsException" -> " — AWS is throttling these calls; retry in a moment";
                case "StateMachineDoesNotExist", "ResourceNotFoundException" -> " — check --stack-name (or --commands-table) and --region";
                default -> "";
            };
            return "AWS " + code + ": " + aws.awsErrorDetails().errorMessage() + hint;
        }
        if (MissingCredentials.is(e)) {
            return MissingCredentials.MESSAGE;
        }
        if (MissingCredentials.isRegion(e)) {
            return MissingCredentials.NO_REGION;
        }
        if (e instanceof SdkException sdk) {
            return "could not reach AWS: " + sdk.getMessage() + " — check --endpoint-url, --region and network access";
        }
        if (e instanceof CommandLine.ParameterException parameter) {
            return describe(parameter);
        }
        return e.getMessage() == null ? e.toString() : e.getMessage();
    }
}
