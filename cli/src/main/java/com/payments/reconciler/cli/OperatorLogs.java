package com.payments.reconciler.cli;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.LoggerContext;
import java.util.LinkedHashMap;
import java.util.Map;
import org.slf4j.LoggerFactory;
import picocli.CommandLine;

/**
 * Runs a command with the shared code's JSON logs off unless it takes {@link Verbosity} and was given it. The code an
 * operator command shares with the Lambda functions (WindowStarter and the rest) logs as a function logs, one JSON
 * object a line for CloudWatch; at a terminal those lines repeat the human line the command prints. Commands without
 * {@code --verbose} (the local harness's, whose logs are the hosted functions') keep their logs.
 */
final class OperatorLogs {

    private OperatorLogs() {
    }

    static int execute(CommandLine.ParseResult parsed) {
        CommandLine.ParseResult command = parsed;
        while (command.subcommand() != null) {
            command = command.subcommand();
        }
        boolean quiet = command.commandSpec().findOption(Verbosity.FLAG) != null && !command.hasMatchedOption(Verbosity.FLAG);
        if (!quiet || !(LoggerFactory.getILoggerFactory() instanceof LoggerContext context)) {
            return new CommandLine.RunLast().execute(parsed);
        }
        // Every logger given a level of its own (the root, and any a configuration names) is turned off, then back.
        Map<Logger, Level> before = new LinkedHashMap<>();
        context.getLoggerList().stream().filter(l -> l.getLevel() != null).forEach(l -> before.put(l, l.getLevel()));
        before.keySet().forEach(l -> l.setLevel(Level.OFF));
        try {
            return new CommandLine.RunLast().execute(parsed);
        } finally {
            before.forEach(Logger::setLevel);
        }
    }
}
