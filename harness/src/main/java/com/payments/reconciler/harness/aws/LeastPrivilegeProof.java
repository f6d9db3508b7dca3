package com.payments.reconciler.harness.aws;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * The proof, as pure code: every recorded call of a function, evaluated against that function's role in the
 * synthesised template (and the resource's own policy), must be allowed; and every action of every Allow
 * statement of every function role must be exercised by some call, or be covered by an {@link Allowance}
 * saying why a night does not exercise it.
 */
public final class LeastPrivilegeProof {

    /**
     * An allowed action a night is not expected to exercise, and why (the Lambda runtime writes the logs,
     * DynamoDB calls KMS on the role's behalf, a failure path, ...).
     *
     * @param action the action as the statement writes it
     * @param sid the statement's Sid, or empty for any statement granting the action
     * @param reason why no recorded call exercises it
     */
    public record Allowance(String action, Optional<String> sid, String reason) {
        boolean covers(PolicyStatement statement, String pattern) {
            return pattern.equalsIgnoreCase(action) && sid.map(s -> statement.sid().equals(Optional.of(s))).orElse(true);
        }
    }

    /** One authorisation question of one recorded call and its answer. */
    public record Verdict(String function, RecordedCall call, AuthorizedAction action, IamDecision decision) {
    }

    /** An Allow statement's action that no call exercised and no allowance covers. */
    public record Gap(String function, String statement, String action) {
    }

    /**
     * @param verdicts every question asked, in call order
     * @param unattributed calls no function could be found for
     * @param unmapped calls that could not be turned into IAM questions
     * @param gaps allowed actions nothing exercised and no allowance explains
     * @param allowancesUsed which allowance explained which function's statement action
     */
    public record Report(List<Verdict> verdicts, List<RecordedCall> unattributed, List<RecordedCall> unmapped, List<Gap> gaps,
                         Map<String, Allowance> allowancesUsed) {
        public List<Verdict> denied() {
            return verdicts.stream().filter(v -> !v.decision().allowed()).toList();
        }

        public boolean proven() {
            return denied().isEmpty() && unattributed.isEmpty() && unmapped.isEmpty() && gaps.isEmpty();
        }
    }

    private final SynthesizedTemplate template;
    private final IntrinsicResolver resolver;
    private final IamPolicyEvaluator evaluator = new IamPolicyEvaluator();
    private final Map<String, String> roleByFunction = new LinkedHashMap<>();
    private final Map<String, List<PolicyStatement>> statements = new java.util.concurrent.ConcurrentHashMap<>();

    public LeastPrivilegeProof(SynthesizedTemplate template, IntrinsicResolver resolver) {
        this.template = template;
        this.resolver = resolver;
        template.functions().forEach(f -> roleByFunction.put(f.function().logicalName(), f.roleLogicalId()));
    }

    /** The role ARN a function's calls are made with, as the local resource map names it. */
    public String roleArn(String function) {
        String role = roleByFunction.get(function);
        if (role == null) {
            throw new IllegalArgumentException("no function " + function + " in " + template.name());
        }
        return resolver.string(getAtt(role));
    }

    /** The function role's statements, resolved once (a night asks thousands of questions of five roles). */
    public List<PolicyStatement> statements(String function) {
        return statements.computeIfAbsent(function, f -> template.statementsOfRole(roleByFunction.get(f), resolver));
    }

    /** One question, as a role would be asked it on AWS: identity policies, and the resource's own policy for a secret. */
    public IamDecision decide(String function, AuthorizedAction action) {
        List<PolicyStatement> resourcePolicy = action.action().toLowerCase(java.util.Locale.ROOT).startsWith("secretsmanager:")
                ? template.secretWithArn(action.resource(), resolver).map(id -> template.resourcePolicyOf(id, resolver)).orElse(List.of())
                : List.of();
        return evaluator.evaluate(statements(function), resourcePolicy, IamRequest.of(action, roleArn(function)));
    }

    /**
     * The proof as the recorder's gate (ENFORCE mode): a call proceeds only if its function's role allows every
     * action it is authorised as; otherwise it is answered as AWS answers, naming the role, action and resource.
     */
    public AwsCallRecorder.Authorizer authorizer(CallerAttribution attribution) {
        return (caller, actions, unmapped) -> {
            Optional<String> function = attribution.functionOf(caller).filter(roleByFunction::containsKey);
            if (function.isEmpty()) {
                return Optional.of("The caller " + caller + " is none of the stack's functions");
            }
            if (unmapped.isPresent()) {
                return Optional.of("Not authorised locally: " + unmapped.get());
            }
            for (AuthorizedAction action : actions) {
                IamDecision decision = decide(function.get(), action);
                if (!decision.allowed()) {
                    return Optional.of("User: " + roleArn(function.get()) + " is not authorized to perform: " + action.action()
                            + " on resource: " + action.resource() + (decision.verdict() == IamDecision.Verdict.EXPLICIT_DENY
                            ? " with an explicit deny (" + decision.decidedBy().map(PolicyStatement::label).orElse("?") + ")"
                            : " because no identity-based policy allows the " + action.action() + " action"));
                }
            }
            return Optional.empty();
        };
    }

    public Report check(List<RecordedCall> calls, CallerAttribution attribution, List<Allowance> allowances) {
        List<Verdict> verdicts = new ArrayList<>();
        List<RecordedCall> unattributed = new ArrayList<>();
        List<RecordedCall> unmapped = new ArrayList<>();
        Set<String> exercised = new HashSet<>();
        for (RecordedCall call : calls) {
            Optional<String> function = attribution.functionOf(call.caller()).filter(roleByFunction::containsKey);
            if (function.isEmpty()) {
                unattributed.add(call);
                continue;
            }
            if (call.unmapped().isPresent()) {
                unmapped.add(call);
                continue;
            }
            for (AuthorizedAction action : call.authorizes()) {
                IamDecision decision = decide(function.get(), action);
                verdicts.add(new Verdict(function.get(), call, action, decision));
                for (PolicyStatement allow : decision.allows()) {
                    allow.actions().stream().filter(p -> IamPatterns.action(p, action.action()))
                            .forEach(p -> exercised.add(key(function.get(), allow.origin(), p)));
                }
            }
        }
        List<Gap> gaps = new ArrayList<>();
        Map<String, Allowance> used = new LinkedHashMap<>();
        for (String function : roleByFunction.keySet()) {
            for (PolicyStatement statement : statements(function)) {
                if (statement.effect() != PolicyStatement.Effect.ALLOW || statement.notAction()) {
                    continue;
                }
                for (String pattern : statement.actions()) {
                    if (exercised.contains(key(function, statement.origin(), pattern))) {
                        continue;
                    }
                    Optional<Allowance> allowance = allowances.stream().filter(a -> a.covers(statement, pattern)).findFirst();
                    if (allowance.isPresent()) {
                        used.put(function + " " + statement.label() + " " + pattern, allowance.get());
                    } else {
                        gaps.add(new Gap(function, statement.label(), pattern));
                    }
                }
            }
        }
        return new Report(verdicts, unattributed, unmapped, gaps, used);
    }

    private static String key(String function, String origin, String pattern) {
        return function + "|" + origin + "|" + pattern.toLowerCase(java.util.Locale.ROOT);
    }

    private static com.fasterxml.jackson.databind.JsonNode getAtt(String logicalId) {
        var node = JsonNodeFactory.instance.objectNode();
        node.putArray("Fn::GetAtt").add(logicalId).add("Arn");
        return node;
    }
}
