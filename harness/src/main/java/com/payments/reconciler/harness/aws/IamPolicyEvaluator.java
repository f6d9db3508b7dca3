package com.payments.reconciler.harness.aws;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * IAM's evaluation for one principal of this account, as far as this stack needs it (IAM User Guide, "Policy
 * evaluation logic"): every applicable statement of the identity policies and of the resource's own
 * policy is considered; an explicit Deny in either wins; otherwise an Allow in either allows (same
 * account); otherwise the request is implicitly denied. Not modelled because the stack has none:
 * SCPs/RCPs, permission boundaries, session policies, cross-account access.
 */
public final class IamPolicyEvaluator {

    /** Identity policies only (services without resource policies here: DynamoDB, Step Functions). */
    public IamDecision evaluate(List<PolicyStatement> identity, IamRequest request) {
        return evaluate(identity, List.of(), request);
    }

    /**
     * @param identity the role's statements
     * @param resourcePolicy the resource's own policy statements (e.g. the secret's), with principals
     */
    public IamDecision evaluate(List<PolicyStatement> identity, List<PolicyStatement> resourcePolicy, IamRequest request) {
        List<PolicyStatement> applicable = new ArrayList<>();
        identity.stream().filter(s -> applies(s, request)).forEach(applicable::add);
        resourcePolicy.stream().filter(s -> principalMatches(s, request) && applies(s, request)).forEach(applicable::add);
        Optional<PolicyStatement> deny = applicable.stream().filter(s -> s.effect() == PolicyStatement.Effect.DENY).findFirst();
        List<PolicyStatement> allows = applicable.stream().filter(s -> s.effect() == PolicyStatement.Effect.ALLOW).toList();
        if (deny.isPresent()) {
            return new IamDecision(IamDecision.Verdict.EXPLICIT_DENY, deny, allows);
        }
        if (!allows.isEmpty()) {
            return new IamDecision(IamDecision.Verdict.ALLOW, Optional.of(allows.getFirst()), allows);
        }
        return new IamDecision(IamDecision.Verdict.IMPLICIT_DENY, Optional.empty(), List.of());
    }

    static boolean applies(PolicyStatement s, IamRequest request) {
        boolean action = s.actions().stream().anyMatch(p -> IamPatterns.action(p, request.action()));
        boolean resource = s.resources().stream().anyMatch(p -> IamPatterns.arn(p, request.resource()));
        return action != s.notAction() && resource != s.notResource() && IamConditions.hold(s.conditions(), request, s.effect() == PolicyStatement.Effect.DENY);
    }

    /** A resource policy's statement applies to everyone ("*") or to the principal it names (the role, for its sessions). */
    private static boolean principalMatches(PolicyStatement s, IamRequest request) {
        return s.principals().stream().anyMatch(p -> p.equals("*") || p.equals(request.principalArn()));
    }
}
