package com.payments.reconciler.harness.nights;

import static org.assertj.core.api.Assertions.assertThat;

import com.payments.reconciler.cli.ExitCodes;
import com.payments.reconciler.harness.HarnessCli;
import java.io.PrintWriter;
import java.io.StringWriter;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** {@code local --nights N} and {@code chaos --nights N}: a bad value or a flag that means one night only is exit 2 naming it, before anything starts. */
class NightsBadInputTest {

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
            "--nights 0|--nights",
            "--nights 367|--nights",
            "--nights 3 --engine lambda-sandboxes|--engine",
            "--nights 3 --scenario failover|--scenario",
            "--nights 3 --scenario ended-after-decision|--scenario",
            "--nights 3 --scenario provider-lost-response --provider-key-retention 24h|--provider-key-retention",
            "--nights 3 --dry-run|--dry-run",
            "--nights 3 --faults provider-5xx=0.1|--faults",
            "--nights 3 --events missing.jsonl|--events",
            "--nights 3 --settled-fraction 0.5|--settled-fraction",
    })
    void localExitsTwoNamingTheFlag(String args, String named) {
        exitsTwoNamingTheFlag("local " + args, named);
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
            "--nights 1|--nights",
            "--nights 3 --mutant no-lease-check|--mutant",
            "--nights 3 --nights-authorisations 5|--nights-authorisations",
            "--nights 3 --faults ddb-conflict=2|--faults",
    })
    void chaosExitsTwoNamingTheFlag(String args, String named) {
        exitsTwoNamingTheFlag("chaos " + args, named);
    }
    private static void exitsTwoNamingTheFlag(String args, String named) {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        String[] argv = args.split(" ");
        int exit = HarnessCli.execute(argv, new PrintWriter(out), new PrintWriter(err));
        assertThat(exit).as(err.toString()).isEqualTo(ExitCodes.BAD_INPUT);
        assertThat(err.toString()).contains(named);
        assertThat(out.toString()).isEmpty();
    }
}
