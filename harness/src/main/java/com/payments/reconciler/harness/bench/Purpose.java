package com.payments.reconciler.harness.bench;

/**
 * What a DynamoDB request was for, so "requests per released hold" can be read by operation of the
 * design rather than by API name (a decision and a delivery mark are both TransactWriteItems).
 */
public enum Purpose {
    CANDIDATE_PAGES("candidate query pages", "Query pending-by-age"),
    SETTLEMENT_READS("settlement reads", "BatchGetItem Settlements, strongly consistent: one per release batch, its settlements "
            + "and hold items together; settled candidates left out"),
    FEED_WATERMARK_READS("feed watermark reads", "BatchGetItem of the settlement feed's watermark: once per ReconcilePage call "
            + "and once per DeliverCommands call (the feed gate)"),
    DELIVERY_FACT_READS("delivery fact reads",
            "BatchGetItem Settlements + Authorisations, strongly consistent: the facts and holds of up to 33 commands, read again when older than "
                    + "the limit at a provider request (I3 and ends at the call)"),
    RELEASE_TRANSACTIONS("release transactions", "TransactWriteItems: lease check + up to 33 x (authorisation + settlement + outbox)"),
    INDEX_CLEANUP("index cleanup", "TransactWriteItems: lease check + up to 33 x (REMOVE pendingShard + the settlement's check): settled "
            + "items still in the pending index (the bench loads its tables directly, as an older ingestion left them)"),
    IDEMPOTENCY_RECORDS("idempotency records", "Powertools records of the delivery guard"),
    DELIVERY_PAGES("delivery query pages", "Query pending-delivery"),
    DELIVERY_MARKS("delivery marks", "TransactWriteItems: lease check + up to 99 commands"),
    FIRST_ATTEMPT_STAMPS("first-attempt stamps",
            "TransactWriteItems: lease check + up to 99 commands' firstAttemptAt, before a delivery page's first requests"),
    LEASE("lease acquire/renew/release", "UpdateItem on the lease item"),
    NIGHT_RECORDS("night records", "the release-surge guard: its history of nights read (BatchGetItem) and the night recorded "
            + "(PutItem), once per ReconcilePage call that ends the decisions"),
    OTHER("other", "any other DynamoDB request");

    private final String label;
    private final String detail;

    Purpose(String label, String detail) {
        this.label = label;
        this.detail = detail;
    }

    public String label() {
        return label;
    }

    public String detail() {
        return detail;
    }
}
