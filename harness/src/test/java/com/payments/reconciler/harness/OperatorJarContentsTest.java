package com.payments.reconciler.harness;

import static org.assertj.core.api.Assertions.assertThat;

import com.payments.reconciler.local.moto.MotoServer;
import com.payments.reconciler.testing.LocalAwsClients;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.stream.Stream;
import java.util.zip.ZipFile;
import org.junit.jupiter.api.Test;

/**
 * The jar operators run against AWS ({@code cli/target/reconciler.jar}, built before this module) holds no class of
 * the harness, the local engines, the functions' test support (the auditor, the in-process clients) or Lambda's
 * runtime client (the SQS client is allowed since preflight looks for leftover queues). The forbidden classes are listed from
 * those artifacts themselves, so a class added to any of them is covered without editing this test.
 */
class OperatorJarContentsTest {

    private static final Path OPERATOR_JAR = operatorJar();

    /** Set by harness/pom.xml; the cli module packages the jar earlier in the same reactor build. */
    private static Path operatorJar() {
        String property = System.getProperty("reconciler.operatorJar");
        assertThat(property).as("system property reconciler.operatorJar (harness/pom.xml sets it)").isNotBlank();
        Path jar = Path.of(property);
        assertThat(jar).as("the operator's jar; package cli first: mvn -B -pl cli -am package -DskipTests").isRegularFile();
        return jar;
    }

    @Test
    void theOperatorJarHoldsNoHarnessClass() {
        Set<String> operator = classesIn(OPERATOR_JAR);
        assertThat(operator).as("the operator's commands and the deployed rules they use are in the jar")
                .contains("com/payments/reconciler/cli/ReconcilerCli", "com/payments/reconciler/window/WindowConfig");

        assertThat(foreign(operator, forbidden())).as("classes of the harness or its engines in the operator's jar").isEmpty();
    }

    /** The check can fail: a jar that also carries the moto launcher and this module's entry point names both. */
    @Test
    void aHarnessClassInTheJarIsNamed() {
        Set<String> bad = new TreeSet<>(classesIn(OPERATOR_JAR));
        bad.add("com/payments/reconciler/local/moto/MotoServer");
        bad.add("com/payments/reconciler/harness/HarnessCli");

        assertThat(foreign(bad, forbidden())).containsOnlyKeys("com/payments/reconciler/local/moto/MotoServer",
                "com/payments/reconciler/harness/HarnessCli");
    }

    /** Each class name of {@code jar} that one of the forbidden artifacts also holds, with that artifact. */
    static Map<String, String> foreign(Set<String> jar, Map<String, Set<String>> forbidden) {
        Map<String, String> found = new TreeMap<>();
        forbidden.forEach((artifact, classes) -> jar.stream().filter(classes::contains).forEach(c -> found.put(c, artifact)));
        return found;
    }

    private static Map<String, Set<String>> forbidden() {
        Map<String, Set<String>> forbidden = new TreeMap<>();
        for (Class<?> marker : new Class<?>[] {HarnessCli.class, MotoServer.class, LocalAwsClients.class,
                com.amazonaws.services.lambda.runtime.api.client.AWSLambda.class}) {
            Path artifact = locationOf(marker);
            Set<String> classes = classesIn(artifact);
            assertThat(classes).as("classes listed from %s", artifact).contains(marker.getName().replace('.', '/'));
            forbidden.put(artifact.getFileName().toString(), classes);
        }
        return forbidden;
    }

    private static Path locationOf(Class<?> type) {
        try {
            return Path.of(type.getProtectionDomain().getCodeSource().getLocation().toURI());
        } catch (URISyntaxException e) {
            throw new IllegalStateException(e);
        }
    }

    /** Class names (path form, no suffix) in a jar or a classes directory. */
    static Set<String> classesIn(Path location) {
        Set<String> classes = new TreeSet<>();
        try {
            if (Files.isDirectory(location)) {
                try (Stream<Path> files = Files.walk(location)) {
                    files.map(f -> location.relativize(f).toString().replace('\\', '/')).forEach(n -> addClass(classes, n));
                }
            } else {
                try (ZipFile zip = new ZipFile(location.toFile())) {
                    zip.stream().forEach(e -> addClass(classes, e.getName()));
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return classes;
    }

    private static void addClass(Set<String> classes, String name) {
        if (name.endsWith(".class") && !name.startsWith("META-INF/") && !name.endsWith("module-info.class")) {
            classes.add(name.substring(0, name.length() - ".class".length()));
        }
    }
}
