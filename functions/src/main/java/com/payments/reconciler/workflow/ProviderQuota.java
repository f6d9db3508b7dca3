package com.payments.reconciler.workflow;

/**
 * The card provider's quota for one night: requests per second and concurrent requests, shared by every
 * delivery call of the night. It is split statically and exactly: one execution runs at most
 * {@code min(shards, Timing.DELIVERY_MAP_CONCURRENCY)} DeliverCommands calls at once (the Map's
 * {@code MaxConcurrency}), and each gets that fraction of the rate and of the concurrency. A static split
 * needs no shared state between calls (no extra DynamoDB request per provider request) and cannot exceed
 * the quota however the calls interleave (beyond the {@link Timing#PACING_CATCH_UP} each call's bucket holds); its cost
 * is that a shard that finishes early leaves its share unused.
 */
public record ProviderQuota(double requestsPerSecond, int maxConcurrentRequests) {

    /** The stack's default (CDK context {@code providerRequestsPerSecond}, {@code providerMaxConcurrentRequests}). */
    public static final ProviderQuota DEFAULT = new ProviderQuota(40, 32);

    public static final double MAX_REQUESTS_PER_SECOND = 10_000;
    public static final int MAX_CONCURRENT_REQUESTS = 1_000;

    public ProviderQuota {
        if (!(requestsPerSecond > 0) || requestsPerSecond > MAX_REQUESTS_PER_SECOND) {
            throw new IllegalArgumentException("provider requests per second must be a number above 0 and at most "
                    + (long) MAX_REQUESTS_PER_SECOND + ", was " + requestsPerSecond);
        }
        if (maxConcurrentRequests < Timing.DELIVERY_MAP_CONCURRENCY || maxConcurrentRequests > MAX_CONCURRENT_REQUESTS) {
            throw new IllegalArgumentException("provider max concurrent requests must be an integer from "
                    + Timing.DELIVERY_MAP_CONCURRENCY + " (one per concurrent delivery call) to " + MAX_CONCURRENT_REQUESTS
                    + ", was " + maxConcurrentRequests);
        }
    }

    /** What one delivery call may use when {@code concurrentCalls} run at once (its rate may be fractional). */
    public Share share(int concurrentCalls) {
        if (concurrentCalls < 1 || concurrentCalls > Timing.DELIVERY_MAP_CONCURRENCY) {
            throw new IllegalArgumentException("concurrent delivery calls must be from 1 to "
                    + Timing.DELIVERY_MAP_CONCURRENCY + ", was " + concurrentCalls);
        }
        return new Share(requestsPerSecond / concurrentCalls,
                Math.min(Timing.DELIVERY_PARALLELISM, maxConcurrentRequests / concurrentCalls));
    }

    /** One delivery call's part of the quota. */
    public record Share(double requestsPerSecond, int maxConcurrentRequests) {
    }

    /** The environment DeliverCommands reads it from (the stack sets it; the local runs too). */
    public java.util.Map<String, String> environment() {
        String rps = requestsPerSecond == Math.rint(requestsPerSecond) ? Long.toString((long) requestsPerSecond)
                : Double.toString(requestsPerSecond);
        return java.util.Map.of(EnvVars.PROVIDER_REQUESTS_PER_SECOND, rps,
                EnvVars.PROVIDER_MAX_CONCURRENT_REQUESTS, Integer.toString(maxConcurrentRequests));
    }

    /** DeliverCommands: the quota the stack set (both variables required, so a night never runs unmetered). */
    public static ProviderQuota fromEnvironment(HandlerEnvironment env) {
        String rps = env.required(EnvVars.PROVIDER_REQUESTS_PER_SECOND);
        String concurrent = env.required(EnvVars.PROVIDER_MAX_CONCURRENT_REQUESTS);
        try {
            return new ProviderQuota(Double.parseDouble(rps), Integer.parseInt(concurrent));
        } catch (NumberFormatException e) {
            throw new IllegalStateException("environment variables " + EnvVars.PROVIDER_REQUESTS_PER_SECOND + " (a number) and "
                    + EnvVars.PROVIDER_MAX_CONCURRENT_REQUESTS + " (an integer) must be the provider's quota, were '"
                    + rps + "' and '" + concurrent + "'");
        } catch (IllegalArgumentException e) {
            throw new IllegalStateException("environment: " + e.getMessage());
        }
    }
}
