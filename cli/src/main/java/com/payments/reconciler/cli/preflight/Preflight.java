package com.payments.reconciler.cli.preflight;

import com.fasterxml.jackson.databind.JsonNode;
import com.payments.reconciler.workflow.DeployTarget;
import com.payments.reconciler.workflow.EnvVars;
import com.payments.reconciler.workflow.Json;
import com.payments.reconciler.workflow.ReservedConcurrency;
import java.util.ArrayList;
import java.util.List;

/**
 * The pre-flight's judgement, apart from the calls that gather its facts ({@link AccountProbe}): each rule turns facts
 * into findings that name the fix. Pure, so its rules are tested as a table of cases.
 */
public final class Preflight {

    /** Lambda keeps this much of an account's concurrency unreserved, and refuses a reservation that would leave less. */
    public static final int LAMBDA_MINIMUM_UNRESERVED = 100;

    /**
     * @param prefix the stack's {@code namePrefix}
     * @param reserveConcurrency whether the deploy will reserve concurrency ({@code reserveConcurrency})
     */
    public record Settings(String prefix, boolean reserveConcurrency, int webhookReservedConcurrency) {

        /** A stack without the Adyen webhook receiver (provider generic-http or stripe). */
        public Settings(String prefix, boolean reserveConcurrency) {
            this(prefix, reserveConcurrency, 0);
        }

        /**
         * @param webhookReservedConcurrency what the Adyen webhook receiver reserves (the stack context
         *                                   {@code webhookReservedConcurrency}) when the stack's provider is adyen, else 0
         */
        public Settings {
            if (webhookReservedConcurrency < 0 || webhookReservedConcurrency > ReservedConcurrency.WEBHOOK_MAX) {
                throw new IllegalArgumentException("webhookReservedConcurrency must be 0 to " + ReservedConcurrency.WEBHOOK_MAX
                        + ", was " + webhookReservedConcurrency);
            }
        }
    }

    private Preflight() {
    }

    public static List<Finding> judge(Settings settings, AccountFacts facts) {
        List<Finding> findings = new ArrayList<>();
        DeployTarget.snapStartRefusal(facts.region()).ifPresent(why -> findings.add(new Finding(Check.REGION, why,
                "deploy to a region that offers SnapStart for Java (docs/deploy.md, \"Regions\")")));
        concurrency(settings, facts, findings);
        if (facts.bootstrapStatus().isEmpty()) {
            findings.add(new Finding(Check.BOOTSTRAP, "no CDKToolkit stack in " + facts.region(), "npx cdk bootstrap (once per account and region)"));
        } else if (!StackState.of(facts.bootstrapStatus()).deployed()) {
            findings.add(new Finding(Check.BOOTSTRAP, "CDKToolkit is " + facts.bootstrapStatus().get(),
                    "see its events (aws cloudformation describe-stack-events --stack-name CDKToolkit), then npx cdk bootstrap again"));
        }
        stack(com.payments.reconciler.workflow.FixedNames.stackName(settings.prefix()), facts, findings);
        facts.leftovers().forEach((kind, names) -> names.forEach(name -> findings.add(new Finding(Check.LEFTOVERS,
                kind + " " + name + " exists, and the new stack creates one under that name (the create would fail: already exists)",
                leftoverFix(kind, name, facts.secretDeletionScheduled().contains(name))))));
        facts.secret().ifPresent(secret -> secret(secret, findings));
        if (StackState.of(facts.stackStatus()).deployed()) {
            providerUrl(facts, findings);
            facts.unprotectedTables().forEach(table -> findings.add(new Finding(Check.TABLE_PROTECTION,
                    "business table " + table + " has no deletion protection",
                    "set \"tableDeletionProtection\": true in cdk.json and deploy (an update in place; off only for the first create)")));
        }
        return findings;
    }

    private static void concurrency(Settings settings, AccountFacts facts, List<Finding> findings) {
        // The Adyen webhook receiver reserves its own on top of the nightly functions' (an Adyen stack only).
        int reserved = ReservedConcurrency.total() + settings.webhookReservedConcurrency();
        if (settings.reserveConcurrency()) {
            // What the deployed functions reserve now (read, not assumed) is already outside the unreserved pool.
            int needed = Math.max(0, reserved - facts.reservedByStack());
            if (facts.unreservedConcurrency() - needed < LAMBDA_MINIMUM_UNRESERVED) {
                boolean exists = StackState.of(facts.stackStatus()).deployed();
                findings.add(new Finding(Check.CONCURRENCY, "reserveConcurrency=true reserves " + reserved + webhookPart(settings)
                        + (exists ? " (the deployed functions reserve " + facts.reservedByStack() + " now)" : "") + ", but the account has "
                        + facts.unreservedConcurrency() + " unreserved of " + facts.concurrencyLimit() + " and Lambda keeps "
                        + LAMBDA_MINIMUM_UNRESERVED + " unreserved: " + (exists ? "the deploy's reservations would be refused"
                        : "the first function create would fail"),
                        "deploy with reserveConcurrency=false (the default), or raise the account's Lambda concurrent executions quota "
                                + "(Service Quotas) to at least " + (LAMBDA_MINIMUM_UNRESERVED + reserved) + " plus what other stacks reserve"));
            }
        } else if (facts.concurrencyLimit() < reserved) {
            findings.add(new Finding(Check.CONCURRENCY, "the account's Lambda concurrency limit is " + facts.concurrencyLimit()
                    + ", below the " + reserved + " the stack's functions can run at once (a night beside ingestion would be throttled)",
                    "raise the account's Lambda concurrent executions quota (Service Quotas); new accounts start low"));
        }
    }

    private static String webhookPart(Settings settings) {
        return settings.webhookReservedConcurrency() == 0 ? ""
                : " (the Adyen webhook receiver's webhookReservedConcurrency " + settings.webhookReservedConcurrency() + " included)";
    }

    private static void stack(String stack, AccountFacts facts, List<Finding> findings) {
        StackState state = StackState.of(facts.stackStatus());
        if (state == StackState.ABSENT || state == StackState.DEPLOYED || facts.stackStatus().get().equals("REVIEW_IN_PROGRESS")) {
            return;
        }
        String status = facts.stackStatus().get();
        String events = "find the cause in aws cloudformation describe-stack-events --stack-name " + stack;
        String fix = switch (status) {
            case "ROLLBACK_COMPLETE" -> events + "; a stack in ROLLBACK_COMPLETE cannot be updated, only deleted: npx cdk deploy deletes "
                    + "it before creating it again (or aws cloudformation delete-stack first)";
            case "CREATE_FAILED", "UPDATE_FAILED" -> events + "; then aws cloudformation rollback-stack (it was created or updated with "
                    + "rollback disabled), or fix the cause and deploy again";
            case "ROLLBACK_FAILED" -> events + "; then aws cloudformation delete-stack, and if that ends DELETE_FAILED, delete-stack again "
                    + "with --retain-resources naming what could not be deleted, and remove those resources (they collide with the next create)";
            case "DELETE_FAILED" -> events + "; fix what blocked the delete, or aws cloudformation delete-stack --retain-resources naming "
                    + "the resources that could not be deleted, then remove or import them (they collide with the next create)";
            case "UPDATE_ROLLBACK_FAILED" -> events + "; fix it, then aws cloudformation continue-update-rollback (with "
                    + "--resources-to-skip for resources that cannot be rolled back), which returns it to UPDATE_ROLLBACK_COMPLETE";
            default -> state == StackState.IN_PROGRESS
                    ? "wait until the operation ends (aws cloudformation describe-stacks), then run preflight again"
                    : events + "; then delete or roll back the stack (CloudFormation user guide, \"Troubleshooting\")";
        };
        String problem = switch (state) {
            case NOT_CREATED -> "stack " + stack + " is ROLLBACK_COMPLETE: its first create failed and rolled back";
            case IN_PROGRESS -> "stack " + stack + " is " + status + ": an operation is still running";
            default -> "stack " + stack + " is " + status + ": CloudFormation refuses a deploy until it is repaired";
        };
        findings.add(new Finding(Check.STACK, problem, fix));
    }

    private static String leftoverFix(String kind, String name, boolean deletionScheduled) {
        return switch (kind) {
            case AccountProbe.TABLE -> "keep its data: npx cdk import it into the new stack; or, only if the data may go, turn off its "
                    + "deletion protection and delete it (docs/deploy.md, \"Deleting the stack and deploying it again\")";
            case AccountProbe.SECRET -> deletionScheduled
                    ? "it is scheduled for deletion but still holds the name: aws secretsmanager restore-secret --secret-id " + name
                    + " and import it, or delete it now with --force-delete-without-recovery"
                    : "import it (npx cdk import), or delete it with aws secretsmanager delete-secret --force-delete-without-recovery";
            case AccountProbe.LOG_GROUP -> "export what you must keep, then aws logs delete-log-group --log-group-name " + name
                    + " (or import it)";
            default -> "read or copy its messages, then aws sqs delete-queue (SQS frees the name 60 seconds later)";
        };
    }

    private static void secret(AccountFacts.SecretFacts secret, List<Finding> findings) {
        if (secret.versions() < 2) {
            findings.add(new Finding(Check.PROVIDER_SECRET, "secret " + secret.name() + " still holds only the generated placeholder",
                    "put the provider's key in it: {\"apiKey\": \"...\"} (docs/deploy.md, \"Putting the provider's API key in the secret\")"));
        }
        secret.readable().ifPresent(value -> {
            findings.add(new Finding(Check.PROVIDER_SECRET, "the operator's credentials can read " + secret.name()
                    + ": its resource policy should deny everyone but DeliverCommands' role",
                    "deploy the stack again to restore the secret's policy; check no other policy grants GetSecretValue"));
            if (!hasApiKey(value)) {
                findings.add(new Finding(Check.PROVIDER_SECRET, "secret " + secret.name() + " is not {\"apiKey\": \"...\"}",
                        "put the key as JSON with a non-empty apiKey (docs/deploy.md)"));
            }
        });
    }

    static boolean hasApiKey(String value) {
        try {
            JsonNode node = Json.mapper().readTree(value);
            return node != null && node.path("apiKey").isTextual() && !node.path("apiKey").asText().isBlank();
        } catch (java.io.IOException e) {
            return false;
        }
    }

    private static void providerUrl(AccountFacts facts, List<Finding> findings) {
        String url = facts.deliverEnvironment().get(EnvVars.PROVIDER_BASE_URL);
        boolean live = "false".equals(facts.startWindowEnvironment().get(EnvVars.DRY_RUN));
        if (url == null) {
            findings.add(new Finding(Check.PROVIDER_URL, "DeliverCommands has no " + EnvVars.PROVIDER_BASE_URL,
                    "deploy the stack again from this repository (npx cdk deploy)"));
        } else if (live && url.equals(DeployTarget.PLACEHOLDER_PROVIDER_BASE_URL)) {
            findings.add(new Finding(Check.PROVIDER_URL, "nights are live (dryRun=false) but DeliverCommands calls the placeholder " + url,
                    "set providerBaseUrl in cdk.json to the provider's URL and deploy"));
        }
    }
}
