package com.payments.reconciler.harness.aws;

import java.util.Optional;

/**
 * The evaluator's answer and the statement that decided it: the matching Deny for EXPLICIT_DENY, the first
 * matching Allow for ALLOW, none for IMPLICIT_DENY.
 *
 * @param allows every Allow statement that matched (for coverage: each is exercised by this request)
 */
public record IamDecision(Verdict verdict, Optional<PolicyStatement> decidedBy, java.util.List<PolicyStatement> allows) {

    public IamDecision {
        allows = java.util.List.copyOf(allows);
    }

    public enum Verdict { ALLOW, IMPLICIT_DENY, EXPLICIT_DENY }

    public boolean allowed() {
        return verdict == Verdict.ALLOW;
    }

    @Override
    public String toString() {
        return verdict + decidedBy.map(s -> " by " + s.label()).orElse("");
    }
}
