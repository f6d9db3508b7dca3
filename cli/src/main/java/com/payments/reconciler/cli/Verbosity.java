package com.payments.reconciler.cli;

import picocli.CommandLine.Option;

/** {@code --verbose}: the operator's commands print what they did for a person; their JSON logs only when asked. */
public final class Verbosity {

    static final String FLAG = "--verbose";

    @Option(names = FLAG, description = "Also print the JSON log lines (what CloudWatch would hold) on stderr.")
    boolean verbose;
}
