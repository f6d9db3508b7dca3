package com.payments.reconciler.model;

import java.util.Optional;

/** The compile-time variants of {@code docs/model/lease.pml} and how each is searched. */
enum ModelVariant {
    /** The protocol as built: lease owner and epoch checked inside the transaction. */
    FENCED(Search.DEPTH_FIRST),
    /** Fenced, with the acquire condition as the original design contract worded it (docs/design.md §3): a lost-response retry may bump the epoch again. */
    REBUMP_ON_RETRY(Search.DEPTH_FIRST),
    /** Negative control: the lease check removed from the transaction. */
    UNFENCED(Search.BREADTH_FIRST),
    /** The incident review's alternative: a per-authorisation highest epoch instead of the lease check. */
    HIGHEST_EPOCH_SEEN(Search.BREADTH_FIRST),
    /** Sanity mutant: the Settlements ConditionCheck removed. */
    NO_SETTLEMENT_CHECK(Search.BREADTH_FIRST),
    /** Sanity mutant: the version/state condition and the outbox put-if-absent removed. */
    UNGUARDED_COMMAND(Search.BREADTH_FIRST),
    /** Sanity mutant: releasing the lease deletes its item, restarting the epoch counter. */
    DELETE_ON_RELEASE(Search.BREADTH_FIRST);

    /**
     * Depth-first search gets the most from partial-order reduction, for the exhaustive run; breadth-first
     * stops at the shortest counterexample, which keeps a trail short enough to read.
     */
    enum Search {
        DEPTH_FIRST(null), BREADTH_FIRST("-DBFS");

        private final String flag;

        Search(String flag) {
            this.flag = flag;
        }

        Optional<String> compilerFlag() {
            return Optional.ofNullable(flag);
        }
    }

    private final Search search;

    ModelVariant(Search search) {
        this.search = search;
    }

    String define() {
        return "-D" + name();
    }

    Search search() {
        return search;
    }
}
