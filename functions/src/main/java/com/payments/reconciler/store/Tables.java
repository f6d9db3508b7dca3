package com.payments.reconciler.store;

import com.payments.reconciler.store.TableSchema.AttributeType;
import com.payments.reconciler.store.TableSchema.Index;
import com.payments.reconciler.store.TableSchema.KeyAttribute;

import java.util.List;
import java.util.Optional;

/**
 * The five tables of docs/design.md §2, and the attribute names each feature reads and writes.
 * Attribute names live here, beside the schema, so a rename is one edit.
 */
public final class Tables {

    private Tables() {
    }

    /** The lease with its fencing token. Items are never deleted: a deleted counter would restart at 1. */
    public static final class Leases {
        public static final String LEASE_NAME = "leaseName";
        public static final String OWNER = "owner";
        public static final String EPOCH = "epoch";
        public static final String EXPIRES_AT = "expiresAt";
        public static final String ACQUIRED_AT = "acquiredAt";
        public static final String RENEWED_AT = "renewedAt";
        /** On the {@code {leaseName}#shards} item (not a lease): every shards value a night ran with, a number set (LeaseStore.recordShards). */
        public static final String SHARDS_EVER = "shardsEver";

        /**
         * A night's record for the release-surge guard (surge.NightRecords), beside the lease in the same table: one small
         * item per window, key {@link #NIGHT_RECORD_PREFIX} + window id, read 14 at a time by one BatchGetItem, so the
         * next night reads its history without a scan or an index, and no table is added to the stack.
         */
        public static final String NIGHT_RECORD_PREFIX = "night#";
        public static final String NIGHT_WINDOW_ID = "windowId";
        /** Releases decided by the run that ended the window's decisions. */
        public static final String NIGHT_RELEASES = "releases";
        public static final String NIGHT_CANDIDATES_READ = "candidatesRead";
        /** {@link #NIGHT_DELIVERED} or {@link #NIGHT_HELD}; {@link #NIGHT_APPROVED} once an operator approved a held night. */
        public static final String NIGHT_STATUS = "nightStatus";
        public static final String NIGHT_MEDIAN = "historyMedian";
        public static final String NIGHT_DECIDED_AT = "decidedAt";
        public static final String NIGHT_APPROVED_BY = "approvedBy";
        public static final String NIGHT_APPROVED_AT = "approvedAt";
        public static final String NIGHT_APPROVAL_NOTE = "approvalNote";
        public static final String NIGHT_DELIVERED = "DELIVERED";
        public static final String NIGHT_HELD = "HELD";
        public static final String NIGHT_APPROVED = "APPROVED";

        public static final TableSchema SCHEMA = new TableSchema("Leases",
                new KeyAttribute(LEASE_NAME, AttributeType.S), List.of(), Optional.empty(), true);

        private Leases() {
        }
    }

    public static final class Authorisations {
        public static final String AUTHORISATION_ID = "authorisationId";
        public static final String STATE = "state";
        public static final String VERSION = "version";
        public static final String AMOUNT_MINOR = "amountMinor";
        public static final String CURRENCY = "currency";
        public static final String MERCHANT_ID = "merchantId";
        public static final String AUTHORISED_AT = "authorisedAt";
        /** Present only while AUTHORISED, which makes {@link #PENDING_BY_AGE} sparse. */
        public static final String PENDING_SHARD = "pendingShard";

        public static final String STATE_AUTHORISED = "AUTHORISED";
        public static final String STATE_RELEASE_REQUESTED = "RELEASE_REQUESTED";
        public static final String STATE_SETTLED = "SETTLED";
        /** Voided or expired at the card platform (ingestion, docs/integration.md): no hold left to release. */
        public static final String STATE_VOIDED = "VOIDED";

        /** Ingestion's records (docs/integration.md): the event that created the item, and its end if any. */
        public static final String CREATED_EVENT_ID = "createdEventId";
        public static final String END_EVENT_ID = "endEventId";
        /** {@code VOIDED}, {@code EXPIRED} or {@code REVERSED} (a full reversal): which platform event ended the authorisation. */
        public static final String END_KIND = "endKind";
        public static final String ENDED_AT = "endedAt";
        /**
         * The event id of the authorisation's settlement, set by ingestion once the settlement is stored: the item left
         * {@link #PENDING_BY_AGE} then (a settled hold is never released), and on a stub a settlement made before its
         * create arrived it tells the create not to enter the index.
         */
        public static final String SETTLEMENT_SEEN = "settlementSeen";
        /**
         * The provider's id of the authorisation (a Stripe PaymentIntent id, an Adyen pspReference), when the platform sent
         * one (contract version 2): opaque, 1-64 characters of A-Z a-z 0-9 _ -. The night copies it onto the release
         * command under the same name, so the provider adapter can address the hold by the provider's own id.
         */
        public static final String PROVIDER_REFERENCE = "providerReference";
        /**
         * The validity the network gave the hold (epoch ms; contract version 2, on a create or an increment): the night
         * does not release it before this instant, whatever the grace period says (docs/design.md, "Holds valid longer").
         */
        public static final String HOLD_UNTIL = "holdUntil";
        /** The platform's time of the latest increment or partial reversal applied (epoch ms): an older increment is superseded. */
        public static final String LAST_CHANGED_AT = "lastChangedAt";
        /** The event ids of the increments and partial reversals applied (a string set): a redelivery is recognised, never applied twice. */
        public static final String LIFECYCLE_EVENT_IDS = "lifecycleEventIds";

        public static final String PENDING_BY_AGE = "pending-by-age";

        public static final TableSchema SCHEMA = new TableSchema("Authorisations",
                new KeyAttribute(AUTHORISATION_ID, AttributeType.S),
                List.of(new Index(PENDING_BY_AGE, new KeyAttribute(PENDING_SHARD, AttributeType.S),
                        new KeyAttribute(AUTHORISED_AT, AttributeType.N))),
                Optional.empty(), true);

        private Authorisations() {
        }
    }

    /** Written by ingestion ({@code IngestEvents}), outside the leader; the reconciler only ever checks for absence. */
    public static final class Settlements {
        public static final String AUTHORISATION_ID = "authorisationId";
        public static final String SETTLED_AT = "settledAt";
        /** Ingestion's records (docs/integration.md): the settlement event stored, its amount and currency. */
        public static final String SETTLEMENT_EVENT_ID = "settlementEventId";
        public static final String AMOUNT_MINOR = "amountMinor";
        public static final String CURRENCY = "currency";
        /**
         * Version 2's captures: a map from captureSequence (as a string) to its amount (minor units); {@link #AMOUNT_MINOR}
         * is their sum, the settled amount. Absent on a version 1 settlement (one per authorisation, no sequence).
         */
        public static final String CAPTURES = "captures";
        /** True once a capture said no more follow. */
        public static final String FINAL_CAPTURE = "finalCapture";
        /** The settledAt of the latest capture added (epoch ms); {@link #SETTLED_AT} stays the first one's. */
        public static final String LAST_SETTLED_AT = "lastSettledAt";

        /**
         * The key prefix of a feed's watermark item ({@code feed#settlements}): it lives beside the settlements it vouches
         * for, under a key no authorisation can have ({@code #} is outside the event contract's id form), so the tables,
         * roles and reads that exist already carry it.
         */
        public static final String FEED_KEY_PREFIX = "feed#";
        /** The watermark item: "every settlement posted at or before this instant has been published" (epoch ms). */
        public static final String WATERMARK = "watermark";
        public static final String WATERMARK_EVENT_ID = "watermarkEventId";
        /** The feed a watermark item is for, e.g. {@code settlements}. */
        public static final String FEED = "feed";
        /** The feed whose watermark gates releases. */
        public static final String SETTLEMENTS_FEED = "settlements";

        /** The key of {@code feed}'s watermark item. */
        public static String feedKey(String feed) {
            return FEED_KEY_PREFIX + feed;
        }

        /**
         * The key prefix of a "held for feed" item ({@code held#<authorisationId>}): IngestEvents writes one when it refuses
         * a settlement-bearing event, so the settlement the reconciler could not store still stops that authorisation's
         * release (docs/design.md, "Held for feed"). {@code #} is outside the contract's id form, as for {@link #FEED_KEY_PREFIX}.
         */
        public static final String HELD_KEY_PREFIX = "held#";
        /** The night-wide hold's key: a refused message whose authorisation id could not be read may concern any hold. */
        public static final String NIGHT_WIDE_HOLD_KEY = HELD_KEY_PREFIX + "*";
        /** When the hold was recorded (epoch ms) and why (a refusal's reason and field, never a value). */
        public static final String HELD_AT = "heldAt";
        public static final String HELD_REASON = "heldReason";

        /** The key of the "held for feed" item of one authorisation. */
        public static String heldKey(String authorisationId) {
            return HELD_KEY_PREFIX + authorisationId;
        }

        /**
         * The key prefix of the record an operator's {@code holds clear} leaves in place of a hold it deleted
         * ({@code cleared-hold#<hold key>#<clearedAt epoch ms>}): who, when and why, with the hold's own attributes. Never
         * read by a night (its key is neither an authorisation id nor a {@code held#} key).
         */
        public static final String CLEARED_HOLD_KEY_PREFIX = "cleared-hold#";
        /** Who cleared the hold (the caller ARN from STS, and the local user), when (epoch ms) and the operator's note. */
        public static final String CLEARED_BY = "clearedBy";
        public static final String CLEARED_AT = "clearedAt";
        public static final String CLEAR_NOTE = "clearNote";

        /** The key of the record of {@code holdKey}'s clearing at {@code clearedAtMillis}. */
        public static String clearedHoldKey(String holdKey, long clearedAtMillis) {
            return CLEARED_HOLD_KEY_PREFIX + holdKey + "#" + clearedAtMillis;
        }

        public static final TableSchema SCHEMA = new TableSchema("Settlements",
                new KeyAttribute(AUTHORISATION_ID, AttributeType.S), List.of(), Optional.empty(), true);

        private Settlements() {
        }
    }

    /** The outbox: one command per business operation, created in the same transaction as the decision. */
    public static final class ReleaseCommands {
        public static final String OPERATION_ID = "operationId";
        public static final String AUTHORISATION_ID = "authorisationId";
        public static final String STATUS = "status";
        public static final String EPOCH = "epoch";
        public static final String WINDOW_ID = "windowId";
        public static final String CREATED_AT = "createdAt";
        public static final String ATTEMPTS = "attempts";
        /**
         * The authorisation's {@link Authorisations#PROVIDER_REFERENCE}, copied when the night decides (absent when the
         * platform sent none); once DELIVERED, the reference the provider answered for the release (the authorisation
         * item keeps the original). One attribute name on both tables.
         */
        public static final String PROVIDER_REFERENCE = Authorisations.PROVIDER_REFERENCE;
        public static final String REJECTION_REASON = "rejectionReason";
        public static final String DELIVERED_AT = "deliveredAt";
        public static final String DELIVERED_EPOCH = "deliveredEpoch";
        public static final String AMOUNT_MINOR = "amountMinor";
        public static final String CURRENCY = "currency";
        /** Present only while PENDING, which makes {@link #PENDING_DELIVERY} sparse. */
        public static final String DELIVERY_SHARD = "deliveryShard";
        /** The owner id (acquisition attempt) that issued the command, so a retry recognises its own. */
        public static final String ISSUED_BY = "issuedBy";

        /** Why a command ended without delivery, for a person (never card data: ids, codes, a bounded excerpt). */
        public static final String END_REASON = "endReason";
        /** When and under which epoch a command ended CANCELLED_SETTLED, CANCELLED_ENDED, QUARANTINED or ESCALATED. */
        public static final String ENDED_AT = "endedAt";
        public static final String ENDED_EPOCH = "endedEpoch";
        /** The settlement's time a cancellation saw (epoch ms). */
        public static final String SETTLED_AT = "settledAt";
        /** The end a CANCELLED_ENDED command saw on its authorisation: its kind (VOIDED, EXPIRED) and the platform's time (epoch ms). */
        public static final String AUTHORISATION_END_KIND = "authorisationEndKind";
        public static final String AUTHORISATION_ENDED_AT = "authorisationEndedAt";
        /** The delivery shard of a parked (QUARANTINED or ESCALATED) command, so a requeue restores it. */
        public static final String PARKED_SHARD = "parkedShard";
        /** The status, present only while QUARANTINED or ESCALATED, which makes {@link #PARKED_INDEX} sparse. */
        public static final String PARKED_STATUS = "parkedStatus";
        /** When an operator put a parked command back to PENDING (epoch ms); its delivery age counts from here. */
        public static final String REQUEUED_AT = "requeuedAt";
        public static final String REQUEUE_NOTE = "requeueNote";
        /**
         * When its first provider request was about to leave (epoch ms; written once, before the request, and kept by a
         * requeue): the provider may forget the idempotency key some time after it, so past that a delivery asks the
         * provider's status lookup before sending again. Absent: never attempted.
         */
        public static final String FIRST_ATTEMPT_AT = "firstAttemptAt";
        /**
         * Written (true) when the command is created, by releases that stamp {@link #FIRST_ATTEMPT_AT} before any request.
         * A command without it was created by an earlier release, which sent requests without stamping: without a stamp it
         * is read as first attempted at its {@link #CREATED_AT} (docs/decisions.md, "Commands from before the stamps").
         */
        public static final String STAMPS_FIRST_ATTEMPT = "stampsFirstAttempt";
        /** An operator's closing of a parked command ({@code commands resolve}): who (caller identity), when (epoch ms), why. */
        public static final String RESOLVED_BY = "resolvedBy";
        public static final String RESOLVED_AT = "resolvedAt";
        public static final String RESOLUTION_NOTE = "resolutionNote";

        public static final String STATUS_PENDING = "PENDING";
        /**
         * Sent, outcome awaited: the provider took the request and reports its outcome later (Adyen's CANCELLATION
         * webhook, ingested as {@code provider.outcome}). Out of the delivery index; not an end state: the outcome ends it
         * DELIVERED or REJECTED, or, none arriving within {@code providerOutcomeTimeout}, a person does (ESCALATED).
         */
        public static final String STATUS_ACKNOWLEDGED = "ACKNOWLEDGED";
        /** When and under which epoch a command became ACKNOWLEDGED (epoch ms), and the provider's id for the request. */
        public static final String ACKNOWLEDGED_AT = "acknowledgedAt";
        public static final String ACKNOWLEDGED_EPOCH = "acknowledgedEpoch";
        public static final String REQUEST_REFERENCE = "requestReference";
        /**
         * An acknowledgement with no request to name: the provider's error stored under the key as the request's final
         * result (Adyen's IOEXCEPTION_RECEIVED). No requestReference is written, so the outcome notification, if one
         * comes, is accepted with the cancel's own reference.
         */
        public static final String STORED_ERROR = "storedError";
        /** The delivery shard, present only while ACKNOWLEDGED, which makes {@link #AWAITING_OUTCOME_INDEX} sparse. */
        public static final String AWAITING_SHARD = "awaitingShard";
        /** The provider outcome event that ended an ACKNOWLEDGED (or still PENDING) command, and the outcome's time (epoch ms). */
        public static final String OUTCOME_EVENT_ID = "outcomeEventId";
        public static final String OUTCOME_AT = "outcomeAt";
        public static final String STATUS_DELIVERED = "DELIVERED";
        public static final String STATUS_REJECTED = "REJECTED";
        /** Its authorisation settled before the provider was called: the hold is the settlement's, not ours. */
        public static final String STATUS_CANCELLED_SETTLED = "CANCELLED_SETTLED";
        /**
         * Its authorisation ended at the card platform (voided or expired, recorded by ingestion) before the provider was
         * called: there is no hold left for us to release.
         */
        public static final String STATUS_CANCELLED_ENDED = "CANCELLED_ENDED";
        /** The provider answered outside its contract: parked for a person, who may requeue it. */
        public static final String STATUS_QUARANTINED = "QUARANTINED";
        /** Older than automatic delivery may be (our idempotency records may have expired): parked for a person. */
        public static final String STATUS_ESCALATED = "ESCALATED";
        /** Every status a command can end in; a command is PENDING until it reaches one, and never leaves it but by an operator's requeue of a parked one. */
        public static final List<String> END_STATES = List.of(STATUS_DELIVERED, STATUS_REJECTED, STATUS_CANCELLED_SETTLED,
                STATUS_CANCELLED_ENDED, STATUS_QUARANTINED, STATUS_ESCALATED);
        /** Statuses a command passes through between PENDING and its end. */
        public static final List<String> AWAITING_OUTCOME = List.of(STATUS_ACKNOWLEDGED);
        /** Statuses that wait for an operator ({@code bin/reconciler commands}). */
        public static final List<String> PARKED = List.of(STATUS_QUARANTINED, STATUS_ESCALATED);

        public static final String PENDING_DELIVERY = "pending-delivery";
        /** The commands waiting for an operator, by status, oldest first ({@code bin/reconciler commands list}). */
        public static final String PARKED_INDEX = "parked";
        /**
         * The ACKNOWLEDGED commands of a shard, oldest acknowledgement first: where the next delivery finds those whose
         * outcome is overdue ({@code providerOutcomeTimeout}) and escalates them.
         */
        public static final String AWAITING_OUTCOME_INDEX = "awaiting-outcome";

        public static final TableSchema SCHEMA = new TableSchema("ReleaseCommands",
                new KeyAttribute(OPERATION_ID, AttributeType.S),
                List.of(new Index(PENDING_DELIVERY, new KeyAttribute(DELIVERY_SHARD, AttributeType.S),
                                new KeyAttribute(CREATED_AT, AttributeType.N)),
                        new Index(PARKED_INDEX, new KeyAttribute(PARKED_STATUS, AttributeType.S),
                                new KeyAttribute(ENDED_AT, AttributeType.N)),
                        new Index(AWAITING_OUTCOME_INDEX, new KeyAttribute(AWAITING_SHARD, AttributeType.S),
                                new KeyAttribute(ACKNOWLEDGED_AT, AttributeType.N))),
                Optional.empty(), true);

        private ReleaseCommands() {
        }
    }

    /** Powertools idempotency records; expendable (the outbox is the business record of delivery). */
    public static final class Idempotency {
        public static final String ID = "id";
        public static final String EXPIRATION = "expiration";

        public static final TableSchema SCHEMA = new TableSchema("Idempotency",
                new KeyAttribute(ID, AttributeType.S), List.of(), Optional.of(EXPIRATION), false);

        private Idempotency() {
        }
    }

    public static final List<TableSchema> ALL = List.of(Leases.SCHEMA, Authorisations.SCHEMA, Settlements.SCHEMA,
            ReleaseCommands.SCHEMA, Idempotency.SCHEMA);
}
