package com.payments.reconciler.cdk;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.Collection;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.zip.ZipFile;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The jar the stack uploads carries what the functions run and nothing else: no harness, no unused SDK
 * client, no event model. Every class's package prefix must be on the allow-list; a new library or an
 * unused one creeping in fails here first, with its name.
 */
class LambdaJarContentsTest {

    /** Package prefixes of the deployed code and of the libraries it calls. */
    static final List<String> ALLOWED = List.of(
            "com/payments/reconciler/delivery/", "com/payments/reconciler/ingest/", "com/payments/reconciler/lease/", "com/payments/reconciler/reconcile/",
            "com/payments/reconciler/store/", "com/payments/reconciler/window/", "com/payments/reconciler/workflow/", "com/payments/reconciler/surge/",
            // The Adyen webhook receiver's handler, deployed from the same jar with provider=adyen.
            "com/payments/reconciler/webhook/",
            "software/amazon/awssdk/services/dynamodb/", "software/amazon/awssdk/services/sfn/",
            "software/amazon/awssdk/services/secretsmanager/", "software/amazon/awssdk/services/sqs/",
            "software/amazon/awssdk/auth/", "software/amazon/awssdk/awscore/", "software/amazon/awssdk/core/",
            "software/amazon/awssdk/http/", "software/amazon/awssdk/identity/", "software/amazon/awssdk/metrics/",
            "software/amazon/awssdk/profiles/", "software/amazon/awssdk/protocols/", "software/amazon/awssdk/regions/",
            "software/amazon/awssdk/retries/", "software/amazon/awssdk/utils/", "software/amazon/awssdk/endpoints/",
            "software/amazon/awssdk/checksums/", "software/amazon/awssdk/crt/", "software/amazon/awssdk/thirdparty/",
            "software/amazon/awssdk/annotations/", "software/amazon/awssdk/internal/", "software/amazon/awssdk/utilslite/",
            // The SDK core's own dependency (http-auth-aws-eventstream), not a client of ours.
            "software/amazon/awssdk/eventstream/",
            "software/amazon/lambda/powertools/",
            "com/amazonaws/services/lambda/runtime/",
            "com/fasterxml/jackson/", "io/burt/jmespath/", "ch/qos/logback/", "org/slf4j/", "org/aspectj/",
            "org/reactivestreams/");

    @Test
    void theShadedJarHoldsOnlyAllowListedPackages() {
        Set<String> classes = classesOf(new ZipFileEntries(LambdaJar.fromSystemProperty().path().toString()).names());

        assertThat(outsideAllowList(classes)).as("classes outside the allow-list (package prefix of each)").isEmpty();
        assertThat(classes).as("the functions' own code is there").contains("com/payments/reconciler/window/StartWindowHandler");
        assertThat(classes).as("the SDK clients the functions call are there")
                .anyMatch(c -> c.startsWith("software/amazon/awssdk/services/dynamodb/DynamoDbClient"));
    }

    /** The check can fail: the libraries removed from the jar, and harness code, are named. */
    @Test
    void anUnusedClientAnEventModelOrHarnessCodeIsNamed() {
        Set<String> bad = Set.of("software/amazon/awssdk/services/cloudwatch/CloudWatchClient",
                "com/amazonaws/services/lambda/runtime/events/ScheduledEvent", "org/joda/time/DateTime",
                "com/payments/reconciler/testing/LocalAwsClients", "com/payments/reconciler/audit/InvariantAudit",
                "com/payments/reconciler/window/StartWindowHandler");

        assertThat(outsideAllowList(bad)).containsExactlyInAnyOrder("software/amazon/awssdk/services/cloudwatch/",
                "com/amazonaws/services/lambda/runtime/events/", "org/joda/time/", "com/payments/reconciler/testing/", "com/payments/reconciler/audit/");
    }

    /** A build tool's record of its own run (AspectJ's builddef.lst lists every source by its absolute path) is not deployed code. */
    @Test
    void noEntryNamesAPathOfTheMachineThatBuiltIt() throws IOException {
        String root = java.nio.file.Path.of(System.getProperty("reconciler.repositoryRoot")).toRealPath().toString();
        try (ZipFile zip = new ZipFile(LambdaJar.fromSystemProperty().path().toString())) {
            java.util.Map<String, byte[]> resources = new java.util.TreeMap<>();
            for (var entry : java.util.Collections.list(zip.entries())) {
                if (!entry.isDirectory() && !entry.getName().endsWith(".class")) {
                    resources.put(entry.getName(), zip.getInputStream(entry).readAllBytes());
                }
            }
            assertThat(entriesNaming(resources, root)).isEmpty();
            assertThat(resources).as("AspectJ build records, ours or a woven library's").doesNotContainKey("builddef.lst");
        }
    }

    /** The check can fail: a resource holding the build directory's path is named. */
    @Test
    void anEntryHoldingTheBuildPathIsNamed() {
        // Another checkout's root, made absolute here rather than written out: no machine's path lives in the repository.
        String elsewhere = java.nio.file.Path.of("another-checkout").toAbsolutePath().toString();
        var resources = java.util.Map.of("builddef.lst", ("-sourceroots\n" + elsewhere + "/functions/src/main/java\n").getBytes(),
                "logback.xml", "<configuration/>".getBytes());
        assertThat(entriesNaming(resources, elsewhere)).containsExactly("builddef.lst");
    }

    static List<String> entriesNaming(java.util.Map<String, byte[]> resources, String path) {
        return resources.entrySet().stream()
                .filter(e -> new String(e.getValue(), java.nio.charset.StandardCharsets.ISO_8859_1).contains(path))
                .map(java.util.Map.Entry::getKey).sorted().toList();
    }

    /** The package (as a path prefix) of each class no allow-list entry covers; the event model is refused by name. */
    static Set<String> outsideAllowList(Collection<String> classes) {
        Set<String> outside = new TreeSet<>();
        for (String cls : classes) {
            boolean events = cls.startsWith("com/amazonaws/services/lambda/runtime/events/");
            if (events || ALLOWED.stream().noneMatch(cls::startsWith)) {
                outside.add(cls.substring(0, cls.lastIndexOf('/') + 1));
            }
        }
        return outside;
    }

    private static Set<String> classesOf(List<String> entries) {
        Set<String> classes = new TreeSet<>();
        for (String entry : entries) {
            if (entry.endsWith(".class") && !entry.startsWith("META-INF/")) {
                classes.add(entry.substring(0, entry.length() - ".class".length()));
            }
        }
        return classes;
    }

    private record ZipFileEntries(String path) {
        List<String> names() {
            try (ZipFile zip = new ZipFile(path)) {
                return zip.stream().map(e -> e.getName()).toList();
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
    }
}
