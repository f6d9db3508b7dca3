package com.payments.reconciler.testing;

import com.payments.reconciler.local.LocalClients;
import com.payments.reconciler.local.moto.MotoServer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;
import software.amazon.awssdk.retries.DefaultRetryStrategy;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;

/**
 * The reference engine of a launcher-patch test: a second moto started with one of our patches switched off, so each
 * request can go to the tests' (patched) engine and to moto's own code, and their answers be compared. Registered as a
 * static extension; started once per class.
 */
public final class PatchReference implements BeforeAllCallback, AfterAllCallback {

    private final String directory;
    private final String switchVariable;
    private MotoServer engine;
    private DynamoDbClient dynamo;

    /**
     * @param directory the reference engine's directory under the build directory (its log lands there)
     * @param switchVariable the launcher's environment switch of the patch under test, set to {@code off}
     */
    public PatchReference(String directory, String switchVariable) {
        this.directory = directory;
        this.switchVariable = switchVariable;
    }

    @Override
    public void beforeAll(ExtensionContext context) {
        engine = MotoServer.start(LocalDynamo.buildDir().resolve(directory), Optional.empty(), Map.of(switchVariable, "off"));
        dynamo = unretried(engine);
    }

    @Override
    public void afterAll(ExtensionContext context) {
        if (dynamo != null) {
            dynamo.close();
        }
        if (engine != null) {
            engine.close();
        }
    }

    /** moto without the patch, emptied. */
    public DynamoDbClient reset() {
        engine.reset();
        return dynamo;
    }

    /** Where the reference engine listens, for a test that sends raw HTTP requests. */
    public java.net.URI endpoint() {
        return engine.endpoint();
    }

    public DynamoDbClient dynamo() {
        return dynamo;
    }

    /** A client that never retries: a retried write would be applied, and compared, twice. */
    public static DynamoDbClient unretried(MotoServer engine) {
        return LocalClients.dynamo(engine.endpoint())
                .overrideConfiguration(o -> o.retryStrategy(DefaultRetryStrategy.doNotRetry()))
                .build();
    }

    /** This reference engine's log. */
    public Path ownLog() {
        return log(engine);
    }

    /** The log of an engine: the tests' shared one, or this reference's. */
    public Path log(MotoServer of) {
        String name = "moto-" + of.port() + ".log";
        Path shared = LocalDynamo.buildDir().resolve("moto").resolve(name);
        return Files.exists(shared) ? shared : LocalDynamo.buildDir().resolve(directory).resolve(name);
    }
}
