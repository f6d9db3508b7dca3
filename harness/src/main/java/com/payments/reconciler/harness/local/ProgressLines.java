package com.payments.reconciler.harness.local;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Objects;
import java.util.function.Consumer;
import java.util.function.Supplier;

/**
 * Progress of a long phase on the console: at most one line per {@link #EVERY} of the clock it is given, from the
 * phase's start, and never the same line twice (each fact once). The callers offer a line whenever something changed
 * or a tick came; the clock decides whether it is printed, so tests drive it with a clock they move.
 */
public final class ProgressLines {

    /** A phase shorter than this prints no progress line; a longer one prints one at least this often while it changes. */
    public static final Duration EVERY = Duration.ofSeconds(5);

    private final Clock clock;
    private final Consumer<String> console;
    private Instant next;
    private String last;

    public ProgressLines(Clock clock, Consumer<String> console) {
        this.clock = clock;
        this.console = console;
        this.next = clock.instant().plus(EVERY);
    }

    /** Prints the line when {@link #EVERY} has passed since the phase started or the last line was printed, unless it says nothing new. */
    public synchronized void offer(Supplier<String> line) {
        Instant now = clock.instant();
        if (now.isBefore(next)) {
            return;
        }
        String text = line.get();
        if (text == null || Objects.equals(text, last)) {
            return;
        }
        console.accept(text);
        last = text;
        next = now.plus(EVERY);
    }
}
