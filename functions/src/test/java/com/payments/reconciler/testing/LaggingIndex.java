package com.payments.reconciler.testing;

import java.util.concurrent.atomic.AtomicReference;
import software.amazon.awssdk.core.SdkResponse;
import software.amazon.awssdk.core.interceptor.Context;
import software.amazon.awssdk.core.interceptor.ExecutionAttributes;
import software.amazon.awssdk.core.interceptor.ExecutionInterceptor;
import software.amazon.awssdk.services.dynamodb.model.QueryResponse;

/** An index as an eventually consistent read may show it: every query answers the first image it returned. */
public final class LaggingIndex implements ExecutionInterceptor {
    private final AtomicReference<QueryResponse> first = new AtomicReference<>();

    @Override
    public SdkResponse modifyResponse(Context.ModifyResponse ctx, ExecutionAttributes attributes) {
        // The awaiting-outcome sweep's queries pass through: the lag is the pages of the index under test.
        if (!(ctx.response() instanceof QueryResponse page)
                || !(ctx.request() instanceof software.amazon.awssdk.services.dynamodb.model.QueryRequest query)
                || com.payments.reconciler.store.Tables.ReleaseCommands.AWAITING_OUTCOME_INDEX.equals(query.indexName())) {
            return ctx.response();
        }
        first.compareAndSet(null, page);
        return first.get();
    }
}
