package com.payments.reconciler.delivery;

import com.payments.reconciler.workflow.StoreContention;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.ReentrantLock;

/**
 * One delivery call's facts about the commands it is sending (docs/design.md §6, decisions.md "Fresh facts at the
 * provider call"): each command's are at most {@code maxAge} old when asked for, read again when older. A read is
 * never for one command: it takes the ones asked for and fills up to {@link FactsReader#AUTHORISATIONS_PER_READ}
 * with the commands the call will send next (in the order it will send them) whose facts are missing or stale, so a
 * call at any pace reads about once per {@value FactsReader#AUTHORISATIONS_PER_READ} commands or once per
 * {@code maxAge}, whichever is more often. Shared by the coordinating thread (a round's first decisions) and the
 * delivery threads (every request); one read at a time.
 */
final class FreshFacts {

    /** A read slower than the age limit (a throttled BatchGetItem) is repeated at most this often before the call stops. */
    private static final int READS_PER_ASK = 3;

    private final Source reader;
    private final Clock clock;
    private final Duration maxAge;
    private final ReentrantLock lock = new ReentrantLock();
    /** The commands the call will send next, in order: authorisation id by operation id. */
    private final Map<String, String> upcoming = new LinkedHashMap<>();
    /** The latest facts read, by authorisation id. */
    private final Map<String, AuthorisationFacts> known = new HashMap<>();
    private final AtomicLong reads = new AtomicLong();

    /** Where facts come from: {@link FactsReader} (one strongly consistent BatchGetItem per call of {@link #read}). */
    interface Source {
        /** The facts of at most {@link FactsReader#AUTHORISATIONS_PER_READ} authorisations, stamped when the read began. */
        Map<String, AuthorisationFacts> read(List<String> authorisationIds);
    }

    FreshFacts(Source reader, Clock clock, Duration maxAge) {
        this.reader = reader;
        this.clock = clock;
        this.maxAge = maxAge;
    }

    /** The call will send these next (a page, in its order): their facts are read along with those asked for. */
    void expect(List<PendingCommand> commands) {
        lock.lock();
        try {
            commands.forEach(c -> upcoming.put(c.operationId(), c.authorisationId()));
        } finally {
            lock.unlock();
        }
    }

    /** The command was sent or ended: its facts are no longer needed. */
    void done(PendingCommand command) {
        lock.lock();
        try {
            upcoming.remove(command.operationId());
            known.remove(command.authorisationId());
        } finally {
            lock.unlock();
        }
    }

    /** The facts of one command, at most the age limit old now. */
    AuthorisationFacts of(PendingCommand command) {
        return of(List.of(command)).get(command.authorisationId());
    }

    /** The facts of {@code commands} (at most {@link FactsReader#AUTHORISATIONS_PER_READ}), each at most the age limit old now. */
    Map<String, AuthorisationFacts> of(List<PendingCommand> commands) {
        if (commands.size() > FactsReader.AUTHORISATIONS_PER_READ) {
            throw new IllegalArgumentException("facts are asked for at most " + FactsReader.AUTHORISATIONS_PER_READ
                    + " commands at once, was " + commands.size());
        }
        lock.lock();
        try {
            for (int read = 0; read <= READS_PER_ASK; read++) {
                Instant now = clock.instant();
                Set<String> stale = new LinkedHashSet<>();
                commands.forEach(c -> {
                    if (!fresh(known.get(c.authorisationId()), now)) {
                        stale.add(c.authorisationId());
                    }
                });
                if (stale.isEmpty()) {
                    Map<String, AuthorisationFacts> facts = new HashMap<>();
                    commands.forEach(c -> facts.put(c.authorisationId(), known.get(c.authorisationId())));
                    return facts;
                }
                if (read == READS_PER_ASK) {
                    break;
                }
                for (String next : upcoming.values()) {
                    if (stale.size() >= FactsReader.AUTHORISATIONS_PER_READ) {
                        break;
                    }
                    if (!fresh(known.get(next), now)) {
                        stale.add(next);
                    }
                }
                reads.incrementAndGet();
                known.putAll(reader.read(new ArrayList<>(stale)));
            }
            throw new StoreContention("the facts of " + commands.size() + " commands could not be read in under " + maxAge
                    + " in " + READS_PER_ASK + " reads");
        } finally {
            lock.unlock();
        }
    }

    /** Reads made so far (each one BatchGetItem, its unprocessed keys aside). */
    long reads() {
        return reads.get();
    }

    private boolean fresh(AuthorisationFacts facts, Instant now) {
        return facts != null && Duration.between(facts.readAt(), now).compareTo(maxAge) <= 0;
    }
}
