package com.payments.reconciler.harness.nights;

import static org.assertj.core.api.Assertions.assertThat;

import com.payments.reconciler.cli.ExitCodes;
import com.payments.reconciler.harness.HarnessCli;
import java.io.PrintWriter;
import java.io.StringWriter;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** {@code local --nights N}: a bad value or a flag that means one night only is exit 2 naming it, before anything starts. */
class NightsBadInputTest {

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
            "--nights 0|--nights",
            "--nights 367|--nights",
            "--nights 3 --engine lambda-sandboxes|--engine",
            "--nights 3 --scenario failover|--scenario",
            "--nights 3 --dry-run|--dry-run",
            "--nights 3 --faults provider-5xx=0.1|--faults",
            "--nights 3 --events missing.jsonl|--events",
            "--nights 3 --settled-fraction 0.5|--settled-fraction",
    })
    void exitsTwoNamingTheFlag(String args, String named) {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        String[] argv = ("local " + args).split(" ");
        int exit = HarnessCli.execute(argv, new PrintWriter(out), new PrintWriter(err));
        assertThat(exit).as(err.toString()).isEqualTo(ExitCodes.BAD_INPUT);
        assertThat(err.toString()).contains(named);
        assertThat(out.toString()).isEmpty();
    }
}
