package com.payments.reconciler.store;

import com.payments.reconciler.local.LocalClients;
import com.payments.reconciler.testing.LocalAwsClients;
import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.core.importer.Location;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.AwsSessionCredentials;
import software.amazon.awssdk.auth.credentials.EnvironmentVariableCredentialsProvider;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.auth.credentials.SystemPropertyCredentialsProvider;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Deployed code takes credentials, region and endpoint from the SDK's own chains, as Lambda provides
 * them (SnapStart: container credentials, not key variables). A class in functions' production code that
 * names a credential type, sets a region or overrides an endpoint is a local branch in deployed code.
 */
class DeployedClientsArchitectureTest {

    private static final Set<Class<?>> FORBIDDEN_TYPES = Set.of(StaticCredentialsProvider.class, AwsBasicCredentials.class,
            AwsSessionCredentials.class, EnvironmentVariableCredentialsProvider.class, SystemPropertyCredentialsProvider.class);
    /** Builder methods that pin what the SDK's chains would otherwise find. */
    private static final Set<String> FORBIDDEN_CALLS = Set.of("endpointOverride", "credentialsProvider", "region");

    private static JavaClasses production;
    private static JavaClasses harness;

    @BeforeAll
    static void importClasses() {
        production = importFrom(SdkDefaultClients.class);
        // The in-process clients and the local-engines factory they are built with, which pins all three.
        harness = importFrom(LocalAwsClients.class, LocalClients.class);
    }

    private static JavaClasses importFrom(Class<?>... anchors) {
        return new ClassFileImporter().importLocations(java.util.Arrays.stream(anchors)
                .map(anchor -> Location.of(anchor.getProtectionDomain().getCodeSource().getLocation())).collect(java.util.stream.Collectors.toSet()));
    }

    static List<String> violations(JavaClasses classes) {
        var types = classes.stream().flatMap(c -> c.getDirectDependenciesFromSelf().stream())
                .filter(d -> FORBIDDEN_TYPES.stream().anyMatch(t -> d.getTargetClass().isEquivalentTo(t)))
                .map(d -> d.getDescription());
        var calls = classes.stream().flatMap(c -> c.getMethodCallsFromSelf().stream())
                .filter(call -> FORBIDDEN_CALLS.contains(call.getName()))
                .filter(call -> call.getTargetOwner().getPackageName().startsWith("software.amazon.awssdk"))
                .map(call -> call.getDescription());
        return java.util.stream.Stream.concat(types, calls).distinct().toList();
    }

    @Test
    void deployedCodeNamesNoCredentialRegionOrEndpoint() {
        assertThat(violations(production)).as("credential types, region or endpoint pinned in functions/src/main").isEmpty();
    }

    @Test
    void theCheckFindsWhatTheInProcessHarnessDoes() {
        // The harness pins all three on purpose: if the scan missed them there, an empty production result would mean nothing.
        assertThat(violations(harness)).anyMatch(v -> v.contains("StaticCredentialsProvider"))
                .anyMatch(v -> v.contains("endpointOverride")).anyMatch(v -> v.contains("region"));
    }

    @Test
    void theDeployedFactoryIsTheOneHandlersGet() {
        assertThat(com.payments.reconciler.workflow.HandlerEnvironment.fromSystem().aws()).isInstanceOf(SdkDefaultClients.class);
    }
}
