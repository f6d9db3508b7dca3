package com.payments.reconciler.reconcile;

import com.payments.reconciler.store.Tables.Settlements;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;

/**
 * Held for feed (docs/design.md, "Held for feed"): a settlement IngestEvents refused never reached Settlements, and a
 * missing settlement looks exactly like none. So when it refuses a settlement-bearing event IngestEvents records a hold
 * in Settlements — {@code held#<authorisationId>} when the id is readable, {@code held#*} (night-wide) when it is not —
 * and ReconcilePage reads the batch's hold items in the same request as its settlements ({@link SettlementCheck#settledAndPresent})
 * and asks here before deciding it: a held candidate is not released
 * (nor counted as a dry run's {@code wouldRelease}), it is counted as {@code heldForFeed} and stays in the index for a
 * later night. A stored settlement still wins (settled, never released); the hold goes away when an operator deletes it
 * after the event was corrected and ingested (docs/operating.md).
 */
public final class HeldForFeed {

    private final DeadLetterDepth deadLetters;
    private final NightWideHold nightWide;

    /**
     * {@code deadLetters}: read once per {@link #forCall()}; while it holds anything, every candidate is held, and
     * {@code nightWide} records {@code held#*} so the hold outlives the depth ({@link NightWideHold}).
     */
    public HeldForFeed(DeadLetterDepth deadLetters, NightWideHold nightWide) {
        this.deadLetters = Objects.requireNonNull(deadLetters, "deadLetters");
        this.nightWide = Objects.requireNonNull(nightWide, "nightWide");
    }

    /** Records no night-wide hold ({@link NightWideHold#notRecorded()}): tests of other rules only. */
    public HeldForFeed(DeadLetterDepth deadLetters) {
        this(deadLetters, NightWideHold.notRecorded());
    }

    /** After {@code call}'s depth reading, before its first decision: the night-wide hold, recorded when the depth was non-zero. */
    public NightWideHold.Outcome record(ForCall call, FencedWriter attempt, com.payments.reconciler.lease.LeaseToken lease, java.time.Instant now) {
        return nightWide.record(call.deadLetters(), attempt, lease, now, "ReconcilePage");
    }

    /**
     * One ReconcilePage call's holds: the dead-letter queue read once, now (before the call's first decision); while it
     * holds anything, every candidate of the call is held, else the hold items decide per batch.
     */
    public ForCall forCall() {
        return new ForCall(deadLetters.read());
    }

    /** The holds of one call; {@link #deadLetters()} is what the queue said at its start. */
    public static final class ForCall {
        private final DeadLetterDepth.Reading deadLetters;

        private ForCall(DeadLetterDepth.Reading deadLetters) {
            this.deadLetters = deadLetters;
        }

        public DeadLetterDepth.Reading deadLetters() {
            return deadLetters;
        }

        /** The hold items to read beside a batch's settlements: none while the dead-letter queue holds every candidate. */
        public List<String> keysFor(List<String> authorisationIds) {
            return deadLetters.holds() ? List.of() : holdKeys(authorisationIds);
        }

        /** Of {@code authorisationIds}, those held, given the hold keys found: all of them while the dead-letter queue holds anything. */
        public Set<String> heldAmong(List<String> authorisationIds, Set<String> holdsFound) {
            if (deadLetters.holds()) {
                return new HashSet<>(authorisationIds);
            }
            return HeldForFeed.heldAmong(authorisationIds, holdsFound);
        }
    }

    /** The night-wide hold's key, then each candidate's own. */
    public static List<String> holdKeys(List<String> authorisationIds) {
        List<String> keys = new ArrayList<>(authorisationIds.size() + 1);
        keys.add(Settlements.NIGHT_WIDE_HOLD_KEY);
        authorisationIds.forEach(id -> keys.add(Settlements.heldKey(id)));
        return keys;
    }

    /**
     * The rule, pure: every candidate when the night-wide hold is present, else the candidates with their own hold.
     * {@code holds} are the hold keys found.
     */
    public static Set<String> heldAmong(List<String> authorisationIds, Set<String> holds) {
        if (holds.contains(Settlements.NIGHT_WIDE_HOLD_KEY)) {
            return new HashSet<>(authorisationIds);
        }
        Set<String> held = new HashSet<>();
        for (String id : authorisationIds) {
            if (holds.contains(Settlements.heldKey(id))) {
                held.add(id);
            }
        }
        return held;
    }
}
