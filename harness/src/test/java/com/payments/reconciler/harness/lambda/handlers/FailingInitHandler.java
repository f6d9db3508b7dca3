package com.payments.reconciler.harness.lambda.handlers;

import com.amazonaws.services.lambda.runtime.Context;
import com.amazonaws.services.lambda.runtime.RequestStreamHandler;
import java.io.InputStream;
import java.io.OutputStream;

/** A test function whose constructor throws: the runtime reports an init error and the process ends. */
public final class FailingInitHandler implements RequestStreamHandler {

    public FailingInitHandler() {
        throw new IllegalStateException("environment variable TABLE_NAME must be set");
    }

    @Override
    public void handleRequest(InputStream input, OutputStream output, Context context) {
        throw new AssertionError("never constructed");
    }
}
