package com.payments.reconciler.harness.chaos;

import java.io.InputStream;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicReference;
import software.amazon.awssdk.core.SdkRequest;
import software.amazon.awssdk.core.SdkResponse;
import software.amazon.awssdk.core.async.AsyncRequestBody;
import software.amazon.awssdk.core.interceptor.Context;
import software.amazon.awssdk.core.interceptor.ExecutionAttributes;
import software.amazon.awssdk.core.interceptor.ExecutionInterceptor;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.http.SdkHttpRequest;
import software.amazon.awssdk.http.SdkHttpResponse;

/**
 * A place in the handlers' (fixed) interceptor chain whose occupant the campaign changes between
 * schedules: a fault layer switched on or off, a new pause. Empty, it does nothing. Switched only
 * while no request is in flight (between schedules), so a request never sees two occupants.
 */
final class InterceptorSlot implements ExecutionInterceptor {

    private static final ExecutionInterceptor EMPTY = new ExecutionInterceptor() {
    };
    private final AtomicReference<ExecutionInterceptor> occupant = new AtomicReference<>(EMPTY);

    void set(ExecutionInterceptor interceptor) {
        occupant.set(interceptor == null ? EMPTY : interceptor);
    }

    void clear() {
        set(null);
    }

    private ExecutionInterceptor o() {
        return occupant.get();
    }

    @Override
    public void beforeExecution(Context.BeforeExecution c, ExecutionAttributes a) {
        o().beforeExecution(c, a);
    }

    @Override
    public SdkRequest modifyRequest(Context.ModifyRequest c, ExecutionAttributes a) {
        return o().modifyRequest(c, a);
    }

    @Override
    public void beforeMarshalling(Context.BeforeMarshalling c, ExecutionAttributes a) {
        o().beforeMarshalling(c, a);
    }

    @Override
    public void afterMarshalling(Context.AfterMarshalling c, ExecutionAttributes a) {
        o().afterMarshalling(c, a);
    }

    @Override
    public SdkHttpRequest modifyHttpRequest(Context.ModifyHttpRequest c, ExecutionAttributes a) {
        return o().modifyHttpRequest(c, a);
    }

    @Override
    public Optional<RequestBody> modifyHttpContent(Context.ModifyHttpRequest c, ExecutionAttributes a) {
        return o().modifyHttpContent(c, a);
    }

    @Override
    public Optional<AsyncRequestBody> modifyAsyncHttpContent(Context.ModifyHttpRequest c, ExecutionAttributes a) {
        return o().modifyAsyncHttpContent(c, a);
    }

    @Override
    public void beforeTransmission(Context.BeforeTransmission c, ExecutionAttributes a) {
        o().beforeTransmission(c, a);
    }

    @Override
    public void afterTransmission(Context.AfterTransmission c, ExecutionAttributes a) {
        o().afterTransmission(c, a);
    }

    @Override
    public SdkHttpResponse modifyHttpResponse(Context.ModifyHttpResponse c, ExecutionAttributes a) {
        return o().modifyHttpResponse(c, a);
    }

    @Override
    public Optional<InputStream> modifyHttpResponseContent(Context.ModifyHttpResponse c, ExecutionAttributes a) {
        return o().modifyHttpResponseContent(c, a);
    }

    @Override
    public void beforeUnmarshalling(Context.BeforeUnmarshalling c, ExecutionAttributes a) {
        o().beforeUnmarshalling(c, a);
    }

    @Override
    public void afterUnmarshalling(Context.AfterUnmarshalling c, ExecutionAttributes a) {
        o().afterUnmarshalling(c, a);
    }

    @Override
    public SdkResponse modifyResponse(Context.ModifyResponse c, ExecutionAttributes a) {
        return o().modifyResponse(c, a);
    }

    @Override
    public void afterExecution(Context.AfterExecution c, ExecutionAttributes a) {
        o().afterExecution(c, a);
    }

    @Override
    public Throwable modifyException(Context.FailedExecution c, ExecutionAttributes a) {
        return o().modifyException(c, a);
    }

    @Override
    public void onExecutionFailure(Context.FailedExecution c, ExecutionAttributes a) {
        o().onExecutionFailure(c, a);
    }
}
