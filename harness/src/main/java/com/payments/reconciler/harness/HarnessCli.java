package com.payments.reconciler.harness;

import com.payments.reconciler.cli.ReconcilerCli;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.util.List;

/**
 * The harness jar's entry point: the operator's command line with the local commands added, so
 * {@code bin/reconciler local|chaos|bench} and the operator's commands read as one tool while the operator's jar
 * carries none of the harness.
 */
public final class HarnessCli {

    /** The commands this module adds to the operator's command line. */
    public static final List<Class<?>> COMMANDS = List.of(LocalCommand.class, ChaosCommand.class, BenchCommand.class);

    private HarnessCli() {
    }

    public static void main(String[] args) {
        System.exit(run(args, System.out, System.err));
    }

    public static int run(String[] args, PrintStream stdout, PrintStream stderr) {
        return ReconcilerCli.run(args, stdout, stderr, COMMANDS);
    }

    public static int execute(String[] args, PrintWriter out, PrintWriter err) {
        return ReconcilerCli.execute(args, out, err, COMMANDS);
    }
}
