package com.payments.reconciler.harness.local;

import com.payments.reconciler.audit.AppliedWrite;
import com.payments.reconciler.audit.InvariantAudit;
import com.payments.reconciler.audit.ProviderEffect;
import com.payments.reconciler.audit.ProviderRelease;
import com.payments.reconciler.audit.StoreSnapshot;
import com.payments.reconciler.store.TableNames;
import java.util.List;

/**
 * What the auditor judges a local pipeline by, gathered in one place: the stored tables, the engine's log of applied
 * writes and the provider's own record of what it performed — never the workers' reports. The one "audit the
 * pipeline" entry point of the local run, chaos and the end-to-end tests. It lives beside {@link LocalPipeline}, not in
 * local-engines: the auditor and the table schemas are the functions module's, which depends on local-engines.
 */
public record PipelineEvidence(TableNames tables, StoreSnapshot snapshot, List<AppliedWrite> writes,
                               List<ProviderRelease> releases, List<ProviderEffect> effects) {

    public PipelineEvidence {
        writes = List.copyOf(writes);
        releases = List.copyOf(releases);
        effects = List.copyOf(effects);
    }

    /** The pipeline as it stands: the tables first, then the write log and the provider's record. */
    public static PipelineEvidence of(LocalPipeline pipeline) {
        StoreSnapshot snapshot = StoreSnapshot.scan(pipeline.dynamo(), pipeline.tables());
        List<AppliedWrite> writes = pipeline.appliedWrites();
        return new PipelineEvidence(pipeline.tables(), snapshot, writes, pipeline.providerReleases(), pipeline.providerEffects());
    }

    /** @param completion what a finished run must also have done, or null for a run that did not complete */
    public InvariantAudit.Report audit(InvariantAudit.Completion completion) {
        return new InvariantAudit(tables).audit(snapshot, writes, releases, completion);
    }

    /** The same evidence with another provider record (a known-bad one, to show a check can fail). */
    public PipelineEvidence withReleases(List<ProviderRelease> otherReleases) {
        return new PipelineEvidence(tables, snapshot, writes, otherReleases, effects);
    }
}
