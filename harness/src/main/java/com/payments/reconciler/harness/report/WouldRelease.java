package com.payments.reconciler.harness.report;

import com.payments.reconciler.audit.StoreSnapshot;
import com.payments.reconciler.reconcile.Candidate;
import com.payments.reconciler.reconcile.HeldForFeed;
import com.payments.reconciler.store.Tables.Authorisations;
import com.payments.reconciler.store.Tables.Settlements;
import com.payments.reconciler.workflow.InvalidInput;
import com.payments.reconciler.workflow.Json;
import java.io.BufferedWriter;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;

/**
 * {@code --dry-run}'s list: each authorisation the night would have released, derived from the tables a dry run left
 * unchanged, not from the workers' reports (they log a line per decision and count them). The rule is the decision's:
 * an item of the pending index ({@code pendingShard} set) authorised before the cutoff, well formed as the finder reads
 * it, with no settlement stored, not held for feed. The run compares its size with the night's own count.
 */
public final class WouldRelease {

    public static final String FILE = "would-release.jsonl";

    /** One authorisation a dry run would release. */
    public record Entry(String authorisationId, Instant authorisedAt, long amountMinor, String currency) {
    }

    private WouldRelease() {
    }

    /**
     * {@code heldWhole}: the ingestion dead-letter queue held the night (the night's own rule, read after it), so it would
     * release nothing; otherwise the hold items held for feed are left out as the night leaves them out.
     */
    public static List<Entry> from(StoreSnapshot snapshot, Instant cutoff, boolean heldWhole) {
        if (heldWhole) {
            return List.of();
        }
        Set<String> stored = new HashSet<>();
        for (Map<String, AttributeValue> s : snapshot.of(Settlements.SCHEMA)) {
            stored.add(s.get(Settlements.AUTHORISATION_ID).s());
        }
        List<Candidate> due = snapshot.of(Authorisations.SCHEMA).stream()
                .filter(item -> item.containsKey(Authorisations.PENDING_SHARD))
                .map(WouldRelease::candidate)
                .filter(c -> c != null && c.authorisedAt().isBefore(cutoff) && !stored.contains(c.authorisationId()))
                .toList();
        Set<String> held = HeldForFeed.heldAmong(due.stream().map(Candidate::authorisationId).toList(), stored);
        return due.stream()
                .filter(c -> !held.contains(c.authorisationId()))
                .map(c -> new Entry(c.authorisationId(), c.authorisedAt(), c.amountMinor(), c.currency()))
                .sorted(Comparator.comparing(Entry::authorisedAt).thenComparing(Entry::authorisationId))
                .toList();
    }

    /** The item as the finder reads it; a malformed one is skipped by the night, so it is not in the list either. */
    private static Candidate candidate(Map<String, AttributeValue> item) {
        try {
            return Candidate.fromItem(item);
        } catch (InvalidInput malformed) {
            return null;
        }
    }

    public static void write(Path dir, List<Entry> entries) {
        try (BufferedWriter out = Files.newBufferedWriter(dir.resolve(FILE), StandardCharsets.UTF_8)) {
            for (Entry e : entries) {
                out.write(Json.mapper().writeValueAsString(Json.mapper().createObjectNode().put("authorisationId", e.authorisationId())
                        .put("authorisedAt", e.authorisedAt().toString()).put("amountMinor", e.amountMinor()).put("currency", e.currency())));
                out.newLine();
            }
        } catch (IOException e) {
            throw new UncheckedIOException("could not write " + dir.resolve(FILE), e);
        }
    }
}
