package com.payments.reconciler.cdk;

/** A context value the stack cannot be built from: names the key, the accepted form and what was given. */
public final class InvalidContext extends IllegalArgumentException {

    private final String key;

    public InvalidContext(String key, String problem) {
        super("context key '" + key + "' " + problem + " (set it in cdk.json's \"context\" or with -c " + key + "=...)");
        this.key = key;
    }

    private InvalidContext(String key, String message, boolean whole) {
        super(message);
        this.key = key;
    }

    /** The deploy region is not a context key: it comes from the deploying credentials' region (CDK_DEFAULT_REGION). */
    public static InvalidContext region(String region, String problem) {
        return new InvalidContext("region", "deploy region '" + region + "': " + problem, true);
    }

    public String key() {
        return key;
    }
}
