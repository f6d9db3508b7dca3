package com.payments.reconciler.cli;

import com.payments.reconciler.window.WindowId;
import picocli.CommandLine.Option;

/** {@code --window W}, as start, rerun and status take it: the night a command acts on. */
final class WindowOption {

    @Option(names = "--window", required = true, paramLabel = "YYYY-MM-DD", description = "The window: the date of the night, YYYY-MM-DD (in the schedule's time zone); reconcile-YYYY-MM-DD is its execution.")
    String window;

    /** The window; a value that is no date is bad input naming {@code --window}. */
    WindowId id() {
        return WindowId.parse(window, "--window");
    }
}
