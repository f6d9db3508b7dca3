package com.payments.reconciler.harness;

import static org.assertj.core.api.Assertions.assertThat;

import com.payments.reconciler.harness.report.NightPhases;
import com.payments.reconciler.harness.report.RunReport;
import org.junit.jupiter.api.Test;

class PhasesLineTest {

    @Test
    void eachPhaseTheRunReachedIsPrintedOnce() {
        assertThat(LocalCommand.phasesLine(new RunReport.Phases(18.24, 61.0, new NightPhases(172.8, 28.9, 141.6))))
                .isEqualTo("time: start-up 18.2 s, ingestion 61.0 s, night 172.8 s (reconcile 28.9 s, delivery 141.6 s)");
        assertThat(LocalCommand.phasesLine(new RunReport.Phases(18.2, 0.4, new NightPhases(1.5, 0.5, null))))
                .isEqualTo("time: start-up 18.2 s, ingestion 0.4 s, night 1.5 s (reconcile 0.5 s)");
        assertThat(LocalCommand.phasesLine(new RunReport.Phases(18.2, 0.4, new NightPhases(null, null, null))))
                .isEqualTo("time: start-up 18.2 s, ingestion 0.4 s");
    }
}
