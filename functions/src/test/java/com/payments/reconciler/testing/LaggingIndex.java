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
        if (!(ctx.response() instanceof QueryResponse page)) {
            return ctx.response();
        }
        first.compareAndSet(null, page);
        return first.get();
    }
}
