package com.payments.reconciler.harness.aws;

/** A policy element or condition operator the local evaluator does not implement: never treated as allowing. */
public final class UnsupportedPolicy extends RuntimeException {
    public UnsupportedPolicy(String message) {
        super(message);
    }
}
