package com.payments.reconciler.harness;

import static org.assertj.core.api.Assertions.assertThat;

import com.payments.reconciler.cli.ReconcilerCli;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** The harness jar's command line (the operator's commands and local, chaos, bench): each --help describes every option and lists its exit codes. */
class HarnessHelpTest {

    static Stream<CommandLine> commands(CommandLine root) {
        return Stream.concat(Stream.of(root), root.getSubcommands().values().stream().flatMap(HarnessHelpTest::commands));
    }

    static List<String> helpProblems(CommandLine command) {
        List<String> problems = new ArrayList<>();
        for (CommandLine.Model.OptionSpec option : command.getCommandSpec().options()) {
            if (option.description().length == 0 || String.join("", option.description()).isBlank()) {
                problems.add(command.getCommandName() + " " + option.longestName() + ": no description");
            }
        }
        String usage = command.getUsageMessage(CommandLine.Help.Ansi.OFF);
        boolean runnable = command.getCommand() instanceof Callable<?> || command.getCommand() instanceof Runnable;
        if (runnable && !(usage.contains("Exit codes:") && usage.contains("  0 ") && usage.contains("  2 "))) {
            problems.add(command.getCommandName() + ": --help lists no exit codes");
        }
        return problems;
    }

    @Test
    void everyCommandsHelpDescribesEachOptionAndListsItsExitCodes() {
        CommandLine root = new CommandLine(new ReconcilerCli());
        HarnessCli.COMMANDS.forEach(root::addSubcommand);
        List<CommandLine> all = commands(root).toList();
        assertThat(all).extracting(CommandLine::getCommandName).contains("local", "chaos", "bench", "start", "redrive");
        assertThat(all.stream().flatMap(c -> helpProblems(c).stream())).isEmpty();
        String local = root.getSubcommands().get("local").getUsageMessage(CommandLine.Help.Ansi.OFF);
        assertThat(local).contains("--events=FILE").contains("--window=YYYY-MM-DD").contains("ingestion.jsonl").contains("would-release.jsonl");
    }

    /** bin/reconciler reads --verbose for the build; the jar must then accept it too, not refuse it as an unknown flag. */
    @Test
    void everyHarnessCommandAcceptsVerbose() {
        CommandLine root = new CommandLine(new ReconcilerCli());
        HarnessCli.COMMANDS.forEach(root::addSubcommand);
        for (String name : List.of("local", "chaos", "bench")) {
            assertThat(root.getSubcommands().get(name).getCommandSpec().findOption("--verbose")).as(name).isNotNull();
        }
    }

    /** The deployment's settings, which no operator command may take: they come from the stack (decisions.md). */
    static final List<String> DEPLOYED_SETTINGS = List.of("--grace-period", "--shards", "--time-zone", "--schedule-time");

    static List<String> deployedSettingsIn(CommandLine command) {
        String usage = command.getUsageMessage(CommandLine.Help.Ansi.OFF);
        return DEPLOYED_SETTINGS.stream().filter(usage::contains).toList();
    }

    /**
     * start and rerun take no grace, shards, zone or schedule time, and find the stack; the check can fail: local, which
     * sets the local deployment's environment, has all four.
     */
    @Test
    void startAndRerunTakeNoDeployedSettings() {
        CommandLine root = new CommandLine(new ReconcilerCli());
        HarnessCli.COMMANDS.forEach(root::addSubcommand);
        for (String name : List.of("start", "rerun")) {
            CommandLine command = root.getSubcommands().get(name);
            assertThat(deployedSettingsIn(command)).as(name + " --help").isEmpty();
            assertThat(command.getUsageMessage(CommandLine.Help.Ansi.OFF)).contains("--stack-name=NAME");
        }
        assertThat(deployedSettingsIn(root.getSubcommands().get("local"))).as("known bad").containsExactlyElementsOf(DEPLOYED_SETTINGS);
    }

    @Command(name = "undocumented")
    static final class Undocumented implements Callable<Integer> {
        @Option(names = "--events")
        String events;

        @Override
        public Integer call() {
            return 0;
        }
    }

    /** The check can fail: an undescribed option and a command without exit codes are named. */
    @Test
    void theCheckNamesWhatIsMissing() {
        assertThat(helpProblems(new CommandLine(new Undocumented())))
                .containsExactly("undocumented --events: no description", "undocumented: --help lists no exit codes");
    }
}
