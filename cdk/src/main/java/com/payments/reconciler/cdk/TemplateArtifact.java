package com.payments.reconciler.cdk;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import software.amazon.awscdk.App;
import software.amazon.awscdk.AppProps;
import software.amazon.awscdk.Environment;
import software.amazon.awscdk.Stack;

/**
 * The synthesised template as a build artifact: the stack as {@code cdk synth} makes it from cdk.json's
 * context, environment-agnostic (no account or region baked in, whatever the build's environment), written as {@code <stack>.template.json} under {@link #RESOURCE_DIR} in this
 * module's classes, so the harness reads it as a resource without aws-cdk-lib on its classpath (the local
 * runner creates resources, starts functions and evaluates IAM from it).
 *
 * <p>Synthesis costs seconds (jsii starts a Node process); the inputs' digest is kept next to the
 * scratch assembly and an unchanged build skips it, costing one JVM start.
 *
 * <p>Arguments: the cdk.json file, the classes directory, a scratch directory for the cloud assembly.
 */
public final class TemplateArtifact {

    /** Where the templates go inside the classes directory (and so inside the jar). */
    public static final String RESOURCE_DIR = "com/payments/reconciler/cdk/synth";
    /** One template file name per line: the harness finds the stack's template through it. */
    public static final String INDEX = "templates.txt";
    private static final ObjectMapper JSON = new ObjectMapper();

    private TemplateArtifact() {
    }

    public static void main(String[] args) throws IOException {
        if (args.length != 3) {
            throw new IllegalArgumentException("usage: TemplateArtifact CDK_JSON CLASSES_DIR SCRATCH_DIR");
        }
        Path cdkJson = Path.of(args[0]);
        Path classes = Path.of(args[1]);
        Path scratch = Path.of(args[2]);
        LambdaJar jar = LambdaJar.fromSystemProperty();
        long start = System.nanoTime();
        Path target = classes.resolve(RESOURCE_DIR);
        Path stamp = scratch.resolve("inputs.sha256.txt");
        String digest = digest(cdkJson, classes, jar.path());
        String previous = Files.isRegularFile(stamp) ? Files.readString(stamp) : "";
        if (Files.isRegularFile(target.resolve(INDEX)) && previous.equals(digest)) {
            System.out.printf("template artifact: inputs unchanged, kept (%d ms)%n", (System.nanoTime() - start) / 1_000_000);
            return;
        }
        if (!previous.isEmpty()) {
            System.out.println("template artifact: changed inputs " + changed(previous, digest));
        }
        Files.createDirectories(scratch);
        // postCliContext: cdk.json's values win over any context the environment carries (this build may run
        // inside `cdk synth -c ...`, whose CDK_CONTEXT_JSON the exec inherits), so the artifact is always the default stack.
        App app = new App(AppProps.builder().postCliContext(context(cdkJson)).outdir(scratch.resolve("assembly").toString())
                .analyticsReporting(false).build());
        // Environment-agnostic whatever CDK_DEFAULT_REGION/ACCOUNT say (`cdk synth` sets them for its app, and this
        // build may run inside it): region and account stay pseudo parameters, which the local runner resolves.
        Stack stack = ReconcilerApp.build(app, jar, Environment.builder().build());
        app.synth();
        String name = stack.getArtifactId() + ".template.json";
        Files.createDirectories(target);
        Files.copy(scratch.resolve("assembly").resolve(stack.getTemplateFile()), target.resolve(name),
                java.nio.file.StandardCopyOption.REPLACE_EXISTING);
        Files.writeString(target.resolve(INDEX), name + "\n");
        Files.writeString(stamp, digest);
        System.out.printf("template artifact: %s synthesised in %d ms%n", name, (System.nanoTime() - start) / 1_000_000);
    }

    /** cdk.json's context, as the CDK CLI passes it to the app; plus the CLI's path metadata, so the template matches. */
    static Map<String, Object> context(Path cdkJson) throws IOException {
        JsonNode root = JSON.readTree(cdkJson.toFile());
        Map<String, Object> context = new LinkedHashMap<>();
        root.path("context").properties().forEach(e -> context.put(e.getKey(), JSON.convertValue(e.getValue(), Object.class)));
        context.put("aws:cdk:enable-path-metadata", true);
        // The local runner hosts each function at most as concurrent as its ReservedConcurrentExecutions, the
        // sizing rule's numbers; cdk.json reserves nothing by default (a new account cannot afford it), so the
        // artifact asks for the reservations to keep the local nights under the concurrency the rule allows.
        context.put(StackConfig.RESERVE_CONCURRENCY, true);
        return context;
    }

    /**
     * Everything the template is made from: cdk.json, this module's classes and resources, the Lambda jar (which
     * carries the ASL, packaged by the functions module only); one "sha256 path" line each, so a rebuild can say what changed.
     */
    private static String digest(Path cdkJson, Path classes, Path lambdaJar) throws IOException {
        List<Path> files = new ArrayList<>();
        files.add(cdkJson);
        files.add(lambdaJar);
        try (Stream<Path> walk = Files.walk(classes)) {
            walk.filter(Files::isRegularFile)
                    .filter(p -> !classes.relativize(p).toString().replace('\\', '/').startsWith(RESOURCE_DIR))
                    .sorted().forEach(files::add);
        }
        StringBuilder manifest = new StringBuilder();
        try {
            byte[] buffer = new byte[1 << 16];
            for (Path file : files) {
                MessageDigest sha = MessageDigest.getInstance("SHA-256");
                try (InputStream in = Files.newInputStream(file)) {
                    for (int n; (n = in.read(buffer)) > 0; ) {
                        sha.update(buffer, 0, n);
                    }
                }
                String name = file.startsWith(classes) ? classes.relativize(file).toString() : file.getFileName().toString();
                manifest.append(HexFormat.of().formatHex(sha.digest())).append(' ').append(name).append('\n');
            }
            return manifest.toString();
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    /** The inputs whose lines differ between two manifests (for the build log). */
    private static List<String> changed(String before, String after) {
        java.util.Set<String> old = new java.util.TreeSet<>(List.of(before.split("\n")));
        return java.util.Arrays.stream(after.split("\n")).filter(l -> !old.contains(l))
                .map(l -> l.substring(l.indexOf(' ') + 1)).limit(5).toList();
    }
}
