package com.payments.reconciler.harness.aws;

/** The template asks for something the local resource map cannot answer, or an intrinsic this resolver does not know. */
public final class UnresolvableTemplate extends RuntimeException {
    public UnresolvableTemplate(String message) {
        super(message);
    }
}
