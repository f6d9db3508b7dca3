package com.payments.reconciler.cli;

/** {@code bin/reconciler}'s exit codes, as docs/operating.md documents them. */
public final class ExitCodes {

    private ExitCodes() {
    }

    /** The command did what was asked (a run: SUCCEEDED with I1–I5 true). */
    public static final int OK = 0;
    /** A rerun or redrive was refused; or (the harness's local, chaos, bench) a run failed, was superseded or broke an invariant. */
    public static final int RUN_FAILED = 1;
    /** Bad usage or input: a flag, a window, a fault spec. Nothing was started or written. */
    public static final int BAD_INPUT = 2;
    /** AWS refused or could not be reached: permissions, throttling, endpoint, missing resources. */
    public static final int AWS_ERROR = 3;
}
