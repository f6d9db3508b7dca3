package com.payments.reconciler.harness.lambda.handlers;

import com.amazonaws.services.lambda.runtime.Context;
import com.amazonaws.services.lambda.runtime.RequestStreamHandler;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.TreeMap;
import software.amazon.awssdk.auth.credentials.AwsCredentials;
import software.amazon.awssdk.auth.credentials.DefaultCredentialsProvider;
import software.amazon.awssdk.regions.providers.DefaultAwsRegionProviderChain;

/**
 * A test function that reports what its sandbox gives it: the whole environment, the JVM's options, and
 * what the SDK's default credential and region chains resolve to there.
 */
public final class EnvironmentHandler implements RequestStreamHandler {

    @Override
    public void handleRequest(InputStream input, OutputStream output, Context context) throws IOException {
        input.readAllBytes();
        Map<String, Object> answer = new LinkedHashMap<>();
        answer.put("env", new TreeMap<>(System.getenv()));
        answer.put("jvmArgs", ManagementFactory.getRuntimeMXBean().getInputArguments());
        try (DefaultCredentialsProvider provider = DefaultCredentialsProvider.builder().build()) {
            AwsCredentials credentials = provider.resolveCredentials();
            answer.put("accessKeyId", credentials.accessKeyId());
        }
        answer.put("region", new DefaultAwsRegionProviderChain().getRegion().id());
        answer.put("userDir", System.getProperty("user.dir"));
        output.write(TinyJson.object(answer).getBytes(StandardCharsets.UTF_8));
    }
}
