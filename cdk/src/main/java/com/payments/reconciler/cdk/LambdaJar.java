package com.payments.reconciler.cdk;

import java.nio.file.Files;
import java.nio.file.Path;

/**
 * The functions module's shaded jar (classifier {@code lambda}): the code of every function. The build
 * passes its path in {@link #PROPERTY}, computed from the module's own directory (cdk/pom.xml), so
 * nothing machine-specific is written down anywhere.
 */
public record LambdaJar(Path path) {

    public static final String PROPERTY = "reconciler.lambdaJar";

    public LambdaJar {
        if (!Files.isRegularFile(path)) {
            throw new IllegalStateException("the Lambda jar " + path + " does not exist; build it first with "
                    + "`mvn -B -pl functions -am package -DskipTests` (mvn verify and `npx cdk synth` build it themselves)");
        }
    }

    public static LambdaJar fromSystemProperty() {
        String value = System.getProperty(PROPERTY);
        if (value == null || value.isBlank()) {
            throw new IllegalStateException("system property " + PROPERTY + " must give the path of the functions module's "
                    + "-lambda.jar; run the app through cdk.json (npx cdk synth) or Maven, which set it");
        }
        return new LambdaJar(Path.of(value).toAbsolutePath().normalize());
    }
}
