package com.payments.reconciler.harness.lambda;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.List;
import java.util.Locale;
import java.util.zip.ZipEntry;
import java.util.zip.ZipFile;

/**
 * The runtime client's native library, unpacked once per service for every sandbox to load.
 *
 * <p>Left to itself the runtime client copies the library to {@code /tmp/.libaws-lambda-jni.so}, replacing
 * what is there, then loads that path. On Lambda each environment has its own {@code /tmp}; here the
 * sandboxes share the machine's, so two starting at once could load a file another was rewriting, and one
 * would exit. Its own system property names a library to load instead, which is what the sandboxes get.
 */
final class RuntimeNativeLibrary {

    /** The runtime client's switch: a path it loads with {@code System.load} instead of unpacking its own. */
    static final String PROPERTY = "com.amazonaws.services.lambda.runtime.api.client.runtimeapi.NativeClient.JNI";

    private RuntimeNativeLibrary() {
    }

    /** Unpacks this machine's variant from the runtime client jar on {@code runtimeClasspath} into {@code dir}. */
    static Path unpack(List<Path> runtimeClasspath, Path dir) {
        Path jar = runtimeClasspath.stream()
                .filter(p -> p.getFileName().toString().startsWith("aws-lambda-java-runtime-interface-client"))
                .findFirst()
                .orElseThrow(() -> new IllegalStateException("no runtime interface client jar among " + runtimeClasspath));
        String entryName = "jni/" + variant(System.getProperty("os.arch"), hasMusl());
        try (ZipFile zip = new ZipFile(jar.toFile())) {
            ZipEntry entry = zip.getEntry(entryName);
            if (entry == null) {
                throw new IllegalStateException(jar + " has no " + entryName + " for this machine");
            }
            Files.createDirectories(dir);
            Path target = dir.resolve("libaws-lambda-jni.so");
            // Unpacked beside, then moved into place: a sandbox never sees a half-written file.
            Path partial = Files.createTempFile(dir, "libaws-lambda-jni", ".partial");
            try (InputStream in = zip.getInputStream(entry)) {
                Files.copy(in, partial, StandardCopyOption.REPLACE_EXISTING);
            }
            Files.move(partial, target, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
            return target.toAbsolutePath();
        } catch (IOException e) {
            throw new UncheckedIOException("could not unpack the runtime client's native library from " + jar, e);
        }
    }

    /** The file name the runtime client jar gives this platform's library (the names it tries itself). */
    static String variant(String osArch, boolean musl) {
        String arch = switch (osArch.toLowerCase(Locale.ROOT)) {
            case "amd64", "x86_64" -> "x86_64";
            case "aarch64", "arm64" -> "aarch_64";
            default -> throw new IllegalStateException("the Lambda runtime client has no native library for " + osArch
                    + " (it ships x86_64 and aarch64)");
        };
        return "libaws-lambda-jni." + (musl ? "linux_musl-" : "linux-") + arch + ".so";
    }

    private static boolean hasMusl() {
        try (var libs = Files.list(Path.of("/lib"))) {
            return libs.anyMatch(p -> p.getFileName().toString().startsWith("ld-musl-"));
        } catch (IOException | UncheckedIOException e) {
            return false;
        }
    }
}
