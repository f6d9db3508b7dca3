package com.payments.reconciler.cli.preflight;

/** The pre-flight checks, in the order they run and are documented ({@code bin/reconciler preflight --help}). */
public enum Check {
    REGION("region", "the region offers Lambda SnapStart for Java (every function uses it)"),
    CONCURRENCY("concurrency", "the account's Lambda concurrency (GetAccountSettings) leaves room for what the stack reserves "
            + "(--reserve-concurrency) and for what a night runs at once"),
    BOOTSTRAP("bootstrap", "the CDK bootstrap stack CDKToolkit exists and is complete (npx cdk bootstrap)"),
    STACK("stack", "the reconciler stack, if it exists, is in a state a deploy can create or update: not a failed or "
            + "running operation, and a rolled-back first create is named (cdk deploy deletes it before creating again)"),
    LEFTOVERS("leftovers", "before a first create: no table, secret, log group or queue already holds a name the new stack "
            + "creates (left by a deleted stack or a failed create)"),
    PROVIDER_SECRET("provider-secret", "once deployed: the provider's key was put in the secret, and only DeliverCommands may read it "
            + "(where the operator can read it, its shape {\"apiKey\": \"...\"} is checked)"),
    PROVIDER_URL("provider-url", "once deployed: DeliverCommands calls a real provider URL, not the placeholder, when nights are live"),
    TABLE_PROTECTION("table-protection", "once deployed: the business tables are deletion-protected (tableDeletionProtection=true)");

    private final String title;
    private final String description;

    Check(String title, String description) {
        this.title = title;
        this.description = description;
    }

    public String title() {
        return title;
    }

    public String description() {
        return description;
    }
}
