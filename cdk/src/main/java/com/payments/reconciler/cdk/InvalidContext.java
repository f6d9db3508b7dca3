package com.payments.reconciler.cdk;

/** A context value the stack cannot be built from: names the key, the accepted form and what was given. */
public final class InvalidContext extends IllegalArgumentException {

    private final String key;

    public InvalidContext(String key, String problem) {
        super("context key '" + key + "' " + problem + " (set it in cdk.json's \"context\" or with -c " + key + "=...)");
        this.key = key;
    }

    public String key() {
        return key;
    }
}
