package com.payments.reconciler.harness.lambda;

import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.CodeSource;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * The class path entries of a function's code (the deployment package): the functions module's shaded
 * jar for the real handlers, or e.g. test classes plus that jar for test handlers.
 */
public record FunctionCode(List<Path> classpath) {

    public FunctionCode {
        classpath = List.copyOf(classpath);
        if (classpath.isEmpty()) {
            throw new IllegalArgumentException("a function's code needs at least one class path entry");
        }
        for (Path entry : classpath) {
            if (!Files.exists(entry)) {
                throw new IllegalArgumentException("function code " + entry + " does not exist (build the functions module's "
                        + "-lambda.jar first: mvn -B -pl functions -am package -DskipTests)");
            }
        }
    }

    /** Where the harness finds the deployment package: bin/reconciler runs from the root; the build sets it for tests. */
    public static final String LAMBDA_JAR_PROPERTY = "reconciler.lambdaJar";

    /** The functions module's shaded jar: the system property, else {@code functions/target/functions-*-lambda.jar} here. */
    public static Path deploymentPackage() {
        String property = System.getProperty(LAMBDA_JAR_PROPERTY);
        if (property != null && !property.isBlank()) {
            return Path.of(property);
        }
        Path target = Path.of("functions", "target");
        try (var jars = Files.isDirectory(target) ? Files.list(target) : java.util.stream.Stream.<Path>empty()) {
            return jars.filter(p -> p.getFileName().toString().matches("functions-.*-lambda\\.jar")).findFirst()
                    .orElseThrow(() -> new IllegalStateException("no Lambda jar: set -D" + LAMBDA_JAR_PROPERTY
                            + " or run from the repository root after `mvn -B -pl functions -am package -DskipTests`"));
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    /** The jar the CDK stack uploads: {@code functions/target/functions-*-lambda.jar}. */
    public static FunctionCode shadedJar(Path jar) {
        return new FunctionCode(List.of(jar.toAbsolutePath().normalize()));
    }

    /**
     * The jars of Lambda's Java runtime (what Lambda puts on the class path from {@code /var/runtime/lib}):
     * the Runtime Interface Client, its serialization library, {@code aws-lambda-java-core}, and the SDK's
     * {@code utils-lite} the client declares. Found from the code source of one class of each on this JVM's
     * class path, so nothing machine-specific is written down. Run from the harness's shaded jar (which holds the
     * functions and the harness too) they are the copies the build puts beside it, never that jar.
     */
    public static List<Path> runtimeClientJars() {
        Path harnessJar = codeSourceOf(FunctionCode.class.getName());
        if (Files.isRegularFile(harnessJar) && harnessJar.equals(codeSourceOf("com.amazonaws.services.lambda.runtime.api.client.AWSLambda"))) {
            // The shaded harness jar holds the functions and the harness too: a sandbox must see only the runtime's jars and the
            // deployment package, so that a class the package lacks fails there as on Lambda. The build copies them beside it.
            return runtimeJarsBeside(harnessJar);
        }
        Set<Path> jars = new LinkedHashSet<>();
        for (String className : List.of(
                "com.amazonaws.services.lambda.runtime.api.client.AWSLambda",
                "com.amazonaws.services.lambda.runtime.serialization.util.ReflectUtil",
                "com.amazonaws.services.lambda.runtime.Context",
                "software.amazon.awssdk.utilslite.SdkInternalThreadLocal")) {
            jars.add(codeSourceOf(className));
        }
        return List.copyOf(jars);
    }

    static List<Path> runtimeJarsBeside(Path shadedJar) {
        Path dir = shadedJar.resolveSibling(RUNTIME_DIR);
        try (var entries = Files.isDirectory(dir) ? Files.list(dir) : java.util.stream.Stream.<Path>empty()) {
            List<Path> jars = entries.filter(p -> p.toString().endsWith(".jar")).sorted().toList();
            if (jars.stream().noneMatch(p -> p.getFileName().toString().startsWith("aws-lambda-java-runtime-interface-client"))) {
                throw new IllegalStateException("no Lambda runtime jars in " + dir + " (the harness build copies them there: "
                        + "mvn -B -pl harness -am package -DskipTests)");
            }
            return jars;
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    /** Beside the shaded harness jar: the runtime's jars, copied there by the harness build. */
    static final String RUNTIME_DIR = "lambda-runtime";

    static Path codeSourceOf(String className) {
        try {
            Class<?> type = Class.forName(className, false, FunctionCode.class.getClassLoader());
            CodeSource source = type.getProtectionDomain().getCodeSource();
            if (source == null || source.getLocation() == null) {
                throw new IllegalStateException("cannot tell which jar " + className + " came from");
            }
            return Path.of(source.getLocation().toURI()).toAbsolutePath().normalize();
        } catch (ClassNotFoundException e) {
            throw new IllegalStateException(className + " is not on the class path: the harness module depends on "
                    + "aws-lambda-java-runtime-interface-client and aws-lambda-java-serialization", e);
        } catch (URISyntaxException e) {
            throw new IllegalStateException("odd code source for " + className, e);
        }
    }
}
