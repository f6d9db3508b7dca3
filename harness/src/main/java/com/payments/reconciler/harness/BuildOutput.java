package com.payments.reconciler.harness;

import picocli.CommandLine.Option;

/**
 * {@code --verbose}, read by bin/reconciler before the jar runs (it decides whether the jar's build prints as it goes);
 * declared here so every harness command accepts it rather than refusing it as an unknown flag.
 */
final class BuildOutput {

    @Option(names = "--verbose", description = "bin/reconciler shows the output of the jar's build (first use or sources changed) "
            + "as it runs, instead of keeping it in a log shown only when the build fails.")
    boolean verbose;
}
