package com.payments.reconciler.cli.preflight;

import static org.assertj.core.api.Assertions.assertThat;

import com.payments.reconciler.workflow.DeployTarget;
import com.payments.reconciler.workflow.EnvVars;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** The pre-flight's rules as a table: each fact that blocks a deploy, or a night after it, is one finding naming its fix. */
class PreflightTest {

    private static final Preflight.Settings DEFAULTS = new Preflight.Settings("reconciler-prod-", false);
    private static final Preflight.Settings RESERVING = new Preflight.Settings("reconciler-prod-", true);
    /** An Adyen stack reserving concurrency: the webhook receiver's default reservation on top. */
    private static final Preflight.Settings RESERVING_ADYEN = new Preflight.Settings("reconciler-prod-", true,
            com.payments.reconciler.workflow.ReservedConcurrency.WEBHOOK_DEFAULT);

    /** A bootstrapped account with room, no stack yet and nothing left behind. */
    private static AccountFacts clean() {
        return new AccountFacts("eu-west-1", 1000, 1000, Optional.of("CREATE_COMPLETE"), Optional.empty(), Map.of(), List.of(),
                Optional.empty(), Map.of(), Map.of(), List.of(), 0);
    }

    /** The stack deployed and set up: the key put, a real URL, live nights, protected tables. */
    private static AccountFacts deployed() {
        return new AccountFacts("eu-west-1", 1000, 979, Optional.of("UPDATE_COMPLETE"), Optional.of("CREATE_COMPLETE"), Map.of(), List.of(),
                Optional.of(new AccountFacts.SecretFacts("reconciler-prod-provider-api-key", 2, Optional.empty())),
                Map.of(EnvVars.PROVIDER_BASE_URL, "https://api.card-provider.example/v2"), Map.of(EnvVars.DRY_RUN, "false"), List.of(), 21);
    }

    record Case(String name, Preflight.Settings settings, AccountFacts facts, Check check, String problem, String fix) {
    }

    private static final List<Case> CASES = List.of(
            new Case("SnapStart not offered", DEFAULTS, withRegion(clean(), "ap-southeast-6"), Check.REGION, "not offered in ap-southeast-6", "a region that offers SnapStart"),
            new Case("non-commercial partition", DEFAULTS, withRegion(clean(), "cn-north-1"), Check.REGION, "outside the commercial partition", "offers SnapStart for Java"),
            new Case("limit below what the stack runs", DEFAULTS, withConcurrency(clean(), 10, 10), Check.CONCURRENCY, "limit is 10", "Service Quotas"),
            new Case("reservation leaves under 100", RESERVING, withConcurrency(clean(), 120, 120), Check.CONCURRENCY, "reserves 21", "reserveConcurrency=false"),
            new Case("no bootstrap", DEFAULTS, withBootstrap(clean(), Optional.empty()), Check.BOOTSTRAP, "no CDKToolkit", "npx cdk bootstrap"),
            new Case("bootstrap rolled back", DEFAULTS, withBootstrap(clean(), Optional.of("ROLLBACK_COMPLETE")), Check.BOOTSTRAP, "ROLLBACK_COMPLETE", "describe-stack-events"),
            new Case("leftover table", DEFAULTS, withLeftover(clean(), AccountProbe.TABLE, "reconciler-prod-Leases", false), Check.LEFTOVERS,
                    "table reconciler-prod-Leases exists", "npx cdk import"),
            new Case("secret scheduled for deletion", DEFAULTS, withLeftover(clean(), AccountProbe.SECRET, "reconciler-prod-provider-api-key", true),
                    Check.LEFTOVERS, "secret reconciler-prod-provider-api-key exists", "restore-secret"),
            new Case("leftover log group", DEFAULTS, withLeftover(clean(), AccountProbe.LOG_GROUP, "/aws/lambda/reconciler-prod-IngestEvents", false),
                    Check.LEFTOVERS, "log group /aws/lambda/reconciler-prod-IngestEvents exists", "delete-log-group"),
            new Case("leftover queue", DEFAULTS, withLeftover(clean(), AccountProbe.QUEUE, "reconciler-prod-ingest-events-dlq", false),
                    Check.LEFTOVERS, "queue reconciler-prod-ingest-events-dlq exists", "delete-queue"),
            new Case("key never put", DEFAULTS, withSecret(deployed(), 1, Optional.empty()), Check.PROVIDER_SECRET, "only the generated placeholder", "apiKey"),
            new Case("operator can read the key", DEFAULTS, withSecret(deployed(), 2, Optional.of("{\"apiKey\":\"k\"}")), Check.PROVIDER_SECRET,
                    "can read", "restore the secret's policy"),
            new Case("placeholder URL on a live night", DEFAULTS, withUrl(deployed(), DeployTarget.PLACEHOLDER_PROVIDER_BASE_URL), Check.PROVIDER_URL,
                    "calls the placeholder", "providerBaseUrl"),
            new Case("unprotected table once deployed", DEFAULTS, withUnprotected(deployed(), "reconciler-prod-Leases"), Check.TABLE_PROTECTION,
                    "reconciler-prod-Leases has no deletion protection", "tableDeletionProtection"),
            // A stack that exists is not necessarily deployed: each state below once passed as deployed, and the
            // missing deployed facts read as "DeliverCommands has no PROVIDER_BASE_URL".
            new Case("first create rolled back", DEFAULTS, withStack(clean(), "ROLLBACK_COMPLETE"), Check.STACK,
                    "ROLLBACK_COMPLETE: its first create failed", "npx cdk deploy deletes it before creating it again"),
            new Case("create failed, rollback disabled", DEFAULTS, withStack(clean(), "CREATE_FAILED"), Check.STACK, "is CREATE_FAILED",
                    "rollback-stack"),
            new Case("rollback of a create failed", DEFAULTS, withStack(clean(), "ROLLBACK_FAILED"), Check.STACK, "is ROLLBACK_FAILED",
                    "delete-stack"),
            new Case("delete failed", DEFAULTS, withStack(clean(), "DELETE_FAILED"), Check.STACK, "is DELETE_FAILED", "--retain-resources"),
            new Case("update rollback failed", DEFAULTS, withStack(clean(), "UPDATE_ROLLBACK_FAILED"), Check.STACK, "is UPDATE_ROLLBACK_FAILED",
                    "continue-update-rollback"),
            new Case("update failed, rollback disabled", DEFAULTS, withStack(clean(), "UPDATE_FAILED"), Check.STACK, "is UPDATE_FAILED",
                    "rollback-stack"),
            new Case("import rollback failed", DEFAULTS, withStack(clean(), "IMPORT_ROLLBACK_FAILED"), Check.STACK, "is IMPORT_ROLLBACK_FAILED",
                    "describe-stack-events"),
            new Case("create running", DEFAULTS, withStack(clean(), "CREATE_IN_PROGRESS"), Check.STACK, "still running", "wait"),
            new Case("update rolling back", DEFAULTS, withStack(clean(), "UPDATE_ROLLBACK_IN_PROGRESS"), Check.STACK, "still running", "wait"),
            new Case("delete running", DEFAULTS, withStack(clean(), "DELETE_IN_PROGRESS"), Check.STACK, "still running", "wait"),
            // Room for the nightly functions' 21 and 100 unreserved, not for the receiver's 5 more (the known-bad twin below:
            // the same account passes without the receiver).
            new Case("adyen receiver's reservation leaves under 100", RESERVING_ADYEN, withConcurrency(clean(), 123, 123), Check.CONCURRENCY,
                    "reserves 26 (the Adyen webhook receiver's webhookReservedConcurrency 5 included)", "reserveConcurrency=false"),
            new Case("reservations not in place on a deployed stack", RESERVING, withReservedByStack(withConcurrency(deployed(), 120, 120), 0),
                    Check.CONCURRENCY, "reserves 21", "reserveConcurrency=false"));

    /**
     * The known-bad twin of the Adyen row: a pre-flight that leaves the webhook receiver out (a generic-http stack's count)
     * passes the account that cannot hold an Adyen stack's reservations; and with room for all 26 the Adyen stack passes.
     */
    @Test
    void theWebhookReceiversReservationIsWhatTipsTheAccount() {
        assertThat(Preflight.judge(RESERVING, withConcurrency(clean(), 123, 123))).isEmpty();
        assertThat(Preflight.judge(RESERVING_ADYEN, withConcurrency(clean(), 126, 126))).isEmpty();
        assertThat(Preflight.judge(RESERVING_ADYEN, withConcurrency(clean(), 125, 125))).extracting(Finding::check).containsExactly(Check.CONCURRENCY);
    }

    /** A bootstrap stack back from a failed update (UPDATE_ROLLBACK_COMPLETE) is in service: judged as any stack is. */
    @Test
    void aBootstrapStackBackFromAFailedUpdateIsUsable() {
        assertThat(Preflight.judge(DEFAULTS, withBootstrap(clean(), Optional.of("UPDATE_ROLLBACK_COMPLETE")))).isEmpty();
        assertThat(Preflight.judge(DEFAULTS, withBootstrap(clean(), Optional.of("UPDATE_ROLLBACK_FAILED"))))
                .extracting(Finding::check).containsExactly(Check.BOOTSTRAP);
    }

    @Test
    void eachBlockerIsOneFindingNamingItsFix() {
        for (Case c : CASES) {
            List<Finding> findings = Preflight.judge(c.settings(), c.facts());
            assertThat(findings).as(c.name()).singleElement().satisfies(f -> {
                assertThat(f.check()).isEqualTo(c.check());
                assertThat(f.problem()).contains(c.problem());
                assertThat(f.fix()).contains(c.fix());
            });
        }
    }

    @Test
    void aCleanAccountAndAFullySetUpStackHaveNone() {
        assertThat(Preflight.judge(DEFAULTS, clean())).isEmpty();
        assertThat(Preflight.judge(RESERVING, clean())).as("1000 unreserved keeps 100 beside 21").isEmpty();
        assertThat(Preflight.judge(RESERVING, deployed())).as("a deployed stack's reservations are already taken").isEmpty();
        assertThat(Preflight.judge(DEFAULTS, deployed())).isEmpty();
        assertThat(Preflight.judge(DEFAULTS, withUrl(withDryRun(deployed(), "true"), DeployTarget.PLACEHOLDER_PROVIDER_BASE_URL)))
                .as("the placeholder on a dry run: what the committed settings deploy").isEmpty();
    }

    @Test
    void aStackThatWasNeverCreatedIsAFirstCreate() {
        assertThat(Preflight.judge(DEFAULTS, withStack(clean(), "REVIEW_IN_PROGRESS"))).as("a change set never executed").isEmpty();
        assertThat(Preflight.judge(DEFAULTS, withStack(withLeftover(clean(), AccountProbe.TABLE, "reconciler-prod-Leases", false),
                "ROLLBACK_COMPLETE"))).extracting(Finding::check).containsExactly(Check.STACK, Check.LEFTOVERS);
        assertThat(Preflight.judge(RESERVING, withConcurrency(withStack(clean(), "ROLLBACK_COMPLETE"), 120, 120)))
                .as("a rolled-back create reserves nothing yet").extracting(Finding::check).containsExactly(Check.CONCURRENCY, Check.STACK);
        assertThat(Preflight.judge(RESERVING, withReservedByStack(withConcurrency(deployed(), 121, 100), 21)))
                .as("the deployed reservations, read, are already outside the unreserved pool").isEmpty();
        assertThat(Preflight.judge(RESERVING, withReservedByStack(withConcurrency(deployed(), 121, 110), 11)))
                .as("10 more to reserve would leave 100: allowed").isEmpty();
        assertThat(Preflight.judge(RESERVING, withReservedByStack(withConcurrency(deployed(), 121, 109), 11)))
                .as("10 more to reserve would leave 99").extracting(Finding::check).containsExactly(Check.CONCURRENCY);
    }

    @Test
    void eachStackStatusHasItsMeaning() {
        record Row(String status, StackState state) {
        }
        for (Row row : List.of(new Row("CREATE_COMPLETE", StackState.DEPLOYED), new Row("UPDATE_COMPLETE", StackState.DEPLOYED),
                new Row("UPDATE_ROLLBACK_COMPLETE", StackState.DEPLOYED), new Row("IMPORT_COMPLETE", StackState.DEPLOYED),
                new Row("IMPORT_ROLLBACK_COMPLETE", StackState.DEPLOYED), new Row("DELETE_COMPLETE", StackState.ABSENT),
                new Row("ROLLBACK_COMPLETE", StackState.NOT_CREATED), new Row("REVIEW_IN_PROGRESS", StackState.NOT_CREATED),
                new Row("CREATE_FAILED", StackState.FAILED), new Row("ROLLBACK_FAILED", StackState.FAILED),
                new Row("DELETE_FAILED", StackState.FAILED), new Row("UPDATE_FAILED", StackState.FAILED),
                new Row("UPDATE_ROLLBACK_FAILED", StackState.FAILED), new Row("IMPORT_ROLLBACK_FAILED", StackState.FAILED),
                new Row("CREATE_IN_PROGRESS", StackState.IN_PROGRESS), new Row("ROLLBACK_IN_PROGRESS", StackState.IN_PROGRESS),
                new Row("UPDATE_COMPLETE_CLEANUP_IN_PROGRESS", StackState.IN_PROGRESS), new Row("DELETE_IN_PROGRESS", StackState.IN_PROGRESS))) {
            assertThat(StackState.of(Optional.of(row.status()))).as(row.status()).isEqualTo(row.state());
        }
        assertThat(StackState.of(Optional.empty())).isEqualTo(StackState.ABSENT);
    }

    @Test
    void theSecretsShapeIsJsonWithANonEmptyApiKey() {
        assertThat(Preflight.hasApiKey("{\"apiKey\":\"k-123\"}")).isTrue();
        assertThat(Preflight.hasApiKey("{\"apiKey\":\"\"}")).isFalse();
        assertThat(Preflight.hasApiKey("{\"key\":\"k\"}")).isFalse();
        assertThat(Preflight.hasApiKey("k-123")).isFalse();
    }

    private static AccountFacts withStack(AccountFacts f, String status) {
        return new AccountFacts(f.region(), f.concurrencyLimit(), f.unreservedConcurrency(), f.bootstrapStatus(), Optional.of(status),
                f.leftovers(), f.secretDeletionScheduled(), f.secret(), f.deliverEnvironment(), f.startWindowEnvironment(),
                f.unprotectedTables(), f.reservedByStack());
    }

    private static AccountFacts withReservedByStack(AccountFacts f, int reserved) {
        return new AccountFacts(f.region(), f.concurrencyLimit(), f.unreservedConcurrency(), f.bootstrapStatus(), f.stackStatus(),
                f.leftovers(), f.secretDeletionScheduled(), f.secret(), f.deliverEnvironment(), f.startWindowEnvironment(),
                f.unprotectedTables(), reserved);
    }

    private static AccountFacts withRegion(AccountFacts f, String region) {
        return new AccountFacts(region, f.concurrencyLimit(), f.unreservedConcurrency(), f.bootstrapStatus(), f.stackStatus(), f.leftovers(),
                f.secretDeletionScheduled(), f.secret(), f.deliverEnvironment(), f.startWindowEnvironment(), f.unprotectedTables(), f.reservedByStack());
    }

    private static AccountFacts withConcurrency(AccountFacts f, int limit, int unreserved) {
        return new AccountFacts(f.region(), limit, unreserved, f.bootstrapStatus(), f.stackStatus(), f.leftovers(),
                f.secretDeletionScheduled(), f.secret(), f.deliverEnvironment(), f.startWindowEnvironment(), f.unprotectedTables(), f.reservedByStack());
    }

    private static AccountFacts withBootstrap(AccountFacts f, Optional<String> status) {
        return new AccountFacts(f.region(), f.concurrencyLimit(), f.unreservedConcurrency(), status, f.stackStatus(), f.leftovers(),
                f.secretDeletionScheduled(), f.secret(), f.deliverEnvironment(), f.startWindowEnvironment(), f.unprotectedTables(), f.reservedByStack());
    }

    private static AccountFacts withLeftover(AccountFacts f, String kind, String name, boolean deletionScheduled) {
        return new AccountFacts(f.region(), f.concurrencyLimit(), f.unreservedConcurrency(), f.bootstrapStatus(), f.stackStatus(),
                Map.of(kind, List.of(name)), deletionScheduled ? List.of(name) : List.of(), f.secret(), f.deliverEnvironment(),
                f.startWindowEnvironment(), f.unprotectedTables(), f.reservedByStack());
    }

    private static AccountFacts withSecret(AccountFacts f, int versions, Optional<String> readable) {
        return new AccountFacts(f.region(), f.concurrencyLimit(), f.unreservedConcurrency(), f.bootstrapStatus(), f.stackStatus(), f.leftovers(),
                f.secretDeletionScheduled(), Optional.of(new AccountFacts.SecretFacts("reconciler-prod-provider-api-key", versions, readable)),
                f.deliverEnvironment(), f.startWindowEnvironment(), f.unprotectedTables(), f.reservedByStack());
    }

    private static AccountFacts withUrl(AccountFacts f, String url) {
        return new AccountFacts(f.region(), f.concurrencyLimit(), f.unreservedConcurrency(), f.bootstrapStatus(), f.stackStatus(), f.leftovers(),
                f.secretDeletionScheduled(), f.secret(), Map.of(EnvVars.PROVIDER_BASE_URL, url), f.startWindowEnvironment(), f.unprotectedTables(), f.reservedByStack());
    }

    private static AccountFacts withDryRun(AccountFacts f, String dryRun) {
        return new AccountFacts(f.region(), f.concurrencyLimit(), f.unreservedConcurrency(), f.bootstrapStatus(), f.stackStatus(), f.leftovers(),
                f.secretDeletionScheduled(), f.secret(), f.deliverEnvironment(), Map.of(EnvVars.DRY_RUN, dryRun), f.unprotectedTables(), f.reservedByStack());
    }

    private static AccountFacts withUnprotected(AccountFacts f, String table) {
        return new AccountFacts(f.region(), f.concurrencyLimit(), f.unreservedConcurrency(), f.bootstrapStatus(), f.stackStatus(), f.leftovers(),
                f.secretDeletionScheduled(), f.secret(), f.deliverEnvironment(), f.startWindowEnvironment(), List.of(table), f.reservedByStack());
    }
}
