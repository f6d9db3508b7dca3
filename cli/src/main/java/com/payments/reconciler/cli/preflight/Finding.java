package com.payments.reconciler.cli.preflight;

/**
 * One thing that would make a deploy, or the first night after it, fail: which check found it, what it found, and
 * the fix, so an operator can act on each line without reading the docs first.
 */
public record Finding(Check check, String problem, String fix) {

    @Override
    public String toString() {
        return check.title() + ": " + problem + "\n    fix: " + fix;
    }
}
