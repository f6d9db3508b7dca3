package com.payments.reconciler.testing;

import com.payments.reconciler.local.LocalClients;
import com.payments.reconciler.audit.AppliedWrite;
import com.payments.reconciler.audit.StoreSnapshot;
import com.payments.reconciler.local.faults.ImmediateRetries;
import com.payments.reconciler.local.moto.MotoServer;
import com.payments.reconciler.local.moto.WriteLog;
import com.payments.reconciler.store.AwsClients;
import com.payments.reconciler.store.TableCreator;
import com.payments.reconciler.store.TableNames;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.ParameterContext;
import org.junit.jupiter.api.extension.ParameterResolver;
import software.amazon.awssdk.core.interceptor.ExecutionInterceptor;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * The local DynamoDB for tests: one moto process per test JVM (closed when the JVM's tests end), a
 * clean engine and freshly created tables for every test. Inject it as a test-method parameter.
 */
public final class LocalDynamo implements BeforeEachCallback, AfterEachCallback, ParameterResolver {

    private static final ExtensionContext.Namespace NS = ExtensionContext.Namespace.create(LocalDynamo.class);

    /** What a test sees: clients, the tables, the write log and a state snapshot. */
    public record Engine(MotoServer moto, TableNames tables, List<DynamoDbClient> opened) {

        public DynamoDbClient client(ExecutionInterceptor... interceptors) {
            DynamoDbClient client = new LocalAwsClients(moto.endpoint(), List.of(interceptors)).dynamo();
            opened.add(client);
            return client;
        }

        /**
         * A client with the SDK's standard retry decisions (attempts, retryable errors, quota) but no backoff
         * pauses: for tests that inject many throttles and lost responses and must not wait for them.
         */
        public DynamoDbClient clientWithoutBackoff(ExecutionInterceptor... interceptors) {
            DynamoDbClient client = LocalClients.dynamo(moto.endpoint())
                    .overrideConfiguration(o -> o.retryStrategy(ImmediateRetries.standard()).executionInterceptors(List.of(interceptors)))
                    .build();
            opened.add(client);
            return client;
        }

        public void reset() {
            moto.reset();
            new TableCreator(client()).createAll(tables);
        }

        public List<AppliedWrite> writes() {
            return new WriteLog(moto.endpoint()).entries().stream()
                    .map(e -> AppliedWrite.fromLog(e.seq(), e.operation(), e.request(), e.response(), e.items())).toList();
        }

        public StoreSnapshot snapshot() {
            return StoreSnapshot.scan(client(), tables);
        }
    }

    @Override
    public void beforeEach(ExtensionContext context) {
        Engine engine = new Engine(moto(context), TableNames.withPrefix("test-"), new ArrayList<>());
        engine.reset();
        context.getStore(NS).put(Engine.class, engine);
    }

    @Override
    public void afterEach(ExtensionContext context) {
        Engine engine = context.getStore(NS).get(Engine.class, Engine.class);
        if (engine != null) {
            engine.opened().forEach(DynamoDbClient::close);
        }
    }

    @Override
    public boolean supportsParameter(ParameterContext parameter, ExtensionContext context) {
        return parameter.getParameter().getType() == Engine.class;
    }

    @Override
    public Object resolveParameter(ParameterContext parameter, ExtensionContext context) {
        return context.getStore(NS).get(Engine.class, Engine.class);
    }

    /** One moto per test JVM, in the root store so JUnit closes it after the last test. */
    public static MotoServer moto(ExtensionContext context) {
        return context.getRoot().getStore(NS).computeIfAbsent(MotoServer.class,
                key -> MotoServer.start(buildDir().resolve("moto")), MotoServer.class);
    }

    public static Path buildDir() {
        return Path.of(System.getProperty("reconciler.target", "target"));
    }
}
