package com.payments.reconciler.cli;

import com.payments.reconciler.window.WindowConfig;
import com.payments.reconciler.window.WindowId;
import com.payments.reconciler.workflow.InvalidInput;
import java.time.Instant;

/**
 * The window checks of a manual start, against the deployed settings the stack's outputs carry (no flag sets a grace,
 * shards, zone or schedule time: the functions take them from their own environment). Each refusal names {@code --window}.
 */
public final class WindowOptions {

    private WindowOptions() {
    }

    /** {@link WindowConfig#requireStartable}, naming {@code --window} (the horizon is the deployment's WindowHorizonDays). */
    public static void requireStartable(WindowConfig config, WindowId window, Instant now) {
        try {
            config.requireStartable(window, now, "the stack's windowHorizonDays");
        } catch (InvalidInput refused) {
            String prefix = refused.field() + ": ";
            String problem = refused.getMessage().startsWith(prefix) ? refused.getMessage().substring(prefix.length()) : refused.getMessage();
            throw new IllegalArgumentException("--window: " + problem, refused);
        }
    }
}
