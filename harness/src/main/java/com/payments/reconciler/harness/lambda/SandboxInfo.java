package com.payments.reconciler.harness.lambda;

import java.time.Duration;
import java.util.Optional;

/**
 * What can be seen of one sandbox from outside.
 *
 * @param coldStart from starting its process to its runtime's first {@code next} (JVM start, runtime
 *                  client and handler init); empty while it is still initialising
 */
public record SandboxInfo(String id, long pid, Optional<Duration> coldStart, int invocations, boolean alive) {
}
