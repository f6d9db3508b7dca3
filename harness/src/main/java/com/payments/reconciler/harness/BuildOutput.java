package com.payments.reconciler.harness;

import picocli.CommandLine.Option;

/**
 * {@code --verbose}, read by bin/reconciler before the jar runs (it decides whether the jar's build prints as it goes),
 * and by the commands for the hosted functions' own output ({@link HostedOutput}).
 */
final class BuildOutput {

    @Option(names = "--verbose", description = "bin/reconciler shows the output of the jar's build (first use or sources changed) "
            + "as it runs, instead of keeping it in a log shown only when the build fails; and the functions hosted in this "
            + "process print their log and metric lines on stderr, instead of in " + HostedOutput.FILE + " in the work directory.")
    boolean verbose;
}
