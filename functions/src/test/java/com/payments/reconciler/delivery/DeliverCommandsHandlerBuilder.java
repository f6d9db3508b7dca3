package com.payments.reconciler.delivery;

import com.payments.reconciler.lease.LeaseStore;
import com.payments.reconciler.reconcile.DeadLetterDepth;
import com.payments.reconciler.reconcile.FeedGate;
import com.payments.reconciler.reconcile.FencedWriter;
import com.payments.reconciler.store.Backoff;
import com.payments.reconciler.testing.CompleteFeed;
import com.payments.reconciler.workflow.EmfMetrics;
import com.payments.reconciler.workflow.ProviderKeyRetention;
import com.payments.reconciler.workflow.ProviderOutcomeTimeout;
import java.time.Clock;

/**
 * DeliverCommandsHandler as a test builds it, through its one constructor: {@link DeliveryWorld#handlerBuilder} sets
 * what comes from the world, a test replaces the parts it is about. Unless set: the stack's default key retention and
 * outcome timeout, a complete settlement feed and an empty ingestion dead-letter queue.
 */
final class DeliverCommandsHandlerBuilder {

    private PendingCommands commands;
    private FactsReader facts;
    private FencedWriter writer;
    private LeaseStore leases;
    private OperationGuard guard;
    private ProviderClient provider;
    private Backoff providerRetry;
    private EmfMetrics metrics;
    private Clock clock;
    private int parallelism;
    private DeliveryPacing pacing;
    private ProviderKeyRetention keyRetention = ProviderKeyRetention.DEFAULT;
    private ProviderOutcomeTimeout outcomeTimeout = ProviderOutcomeTimeout.DEFAULT;
    private FeedGate feed = CompleteFeed.gate();
    private DeadLetterDepth deadLetters = DeadLetterDepth.empty();
    private com.payments.reconciler.reconcile.NightWideHold nightWide = com.payments.reconciler.reconcile.NightWideHold.notRecorded();

    DeliverCommandsHandlerBuilder commands(PendingCommands commands) {
        this.commands = commands;
        return this;
    }

    DeliverCommandsHandlerBuilder facts(FactsReader facts) {
        this.facts = facts;
        return this;
    }

    DeliverCommandsHandlerBuilder writer(FencedWriter writer) {
        this.writer = writer;
        return this;
    }

    DeliverCommandsHandlerBuilder leases(LeaseStore leases) {
        this.leases = leases;
        return this;
    }

    DeliverCommandsHandlerBuilder guard(OperationGuard guard) {
        this.guard = guard;
        return this;
    }

    DeliverCommandsHandlerBuilder provider(ProviderClient provider) {
        this.provider = provider;
        return this;
    }

    DeliverCommandsHandlerBuilder providerRetry(Backoff providerRetry) {
        this.providerRetry = providerRetry;
        return this;
    }

    DeliverCommandsHandlerBuilder metrics(EmfMetrics metrics) {
        this.metrics = metrics;
        return this;
    }

    DeliverCommandsHandlerBuilder clock(Clock clock) {
        this.clock = clock;
        return this;
    }

    DeliverCommandsHandlerBuilder parallelism(int parallelism) {
        this.parallelism = parallelism;
        return this;
    }

    DeliverCommandsHandlerBuilder pacing(DeliveryPacing pacing) {
        this.pacing = pacing;
        return this;
    }

    DeliverCommandsHandlerBuilder keyRetention(ProviderKeyRetention keyRetention) {
        this.keyRetention = keyRetention;
        return this;
    }

    DeliverCommandsHandlerBuilder outcomeTimeout(ProviderOutcomeTimeout outcomeTimeout) {
        this.outcomeTimeout = outcomeTimeout;
        return this;
    }

    DeliverCommandsHandlerBuilder feed(FeedGate feed) {
        this.feed = feed;
        return this;
    }

    DeliverCommandsHandlerBuilder deadLetters(DeadLetterDepth deadLetters) {
        this.deadLetters = deadLetters;
        return this;
    }

    DeliverCommandsHandlerBuilder nightWide(com.payments.reconciler.reconcile.NightWideHold nightWide) {
        this.nightWide = nightWide;
        return this;
    }

    DeliverCommandsHandler build() {
        return new DeliverCommandsHandler(commands, facts, writer, leases, guard, provider, providerRetry, metrics, clock,
                parallelism, pacing, keyRetention, outcomeTimeout, feed, deadLetters, nightWide);
    }
}
