package com.payments.reconciler.workflow;

import com.payments.reconciler.store.AwsClients;
import com.payments.reconciler.store.SdkDefaultClients;
import com.payments.reconciler.store.TableNames;
import java.time.Clock;
import java.util.Map;
import java.util.Objects;

/**
 * What a handler is built from: its environment variables (names, ARNs, settings; never secrets),
 * the SDK client factory and the clock. In Lambda it is {@link #fromSystem()}; harnesses that host
 * handlers in-process build one with their own client factory, so the same handler code runs in both.
 */
public record HandlerEnvironment(Map<String, String> env, AwsClients aws, Clock clock) {

    public HandlerEnvironment {
        env = Map.copyOf(env);
        Objects.requireNonNull(aws, "aws");
        Objects.requireNonNull(clock, "clock");
    }

    public static HandlerEnvironment fromSystem() {
        return new HandlerEnvironment(System.getenv(), new SdkDefaultClients(), Clock.systemUTC());
    }

    public TableNames tables() {
        return TableNames.fromEnvironment(env);
    }

    public String required(String name) {
        String value = env.get(name);
        if (value == null || value.isBlank()) {
            throw new IllegalStateException("environment variable " + name + " must be set");
        }
        return value;
    }

    public String optional(String name, String fallback) {
        String value = env.get(name);
        return value == null || value.isBlank() ? fallback : value;
    }

    public String leaseName() {
        return optional(EnvVars.LEASE_NAME, EnvVars.DEFAULT_LEASE_NAME);
    }
}
