package com.payments.reconciler.docs;

import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Every reference to the design points into the repository: a section of docs/design.md that exists, never the
 * shared contract it began as ("design §n" without the file, or a path outside the repository).
 */
class DesignReferencesTest {

    /** "design §4", "Design §7's": the old form, which named a document outside the repository. */
    private static final Pattern BARE = Pattern.compile("(?i)\\bdesign §\\d");
    /** "design.md §4", "design.md](design.md) §4", "design.md §3–§5", "design.md §4, §11". */
    private static final Pattern INTO_DESIGN = Pattern.compile("design\\.md\\)? §(\\d+)((?:(?:–|, )§\\d+)*)");
    private static final Pattern SECTION = Pattern.compile("(?m)^## (\\d+)\\. ");
    private static final Pattern OUTSIDE = Pattern.compile("shared/design|\\.\\./shared/");

    @Test
    void everyDesignReferenceNamesASectionOfDocsDesignMd() throws IOException {
        Path root = repositoryRoot();
        Set<Integer> sections = sections(Files.readString(root.resolve("docs/design.md")));
        List<String> problems = new ArrayList<>();
        try (Stream<Path> files = Files.walk(root)) {
            files.filter(Files::isRegularFile)
                    .filter(p -> p.toString().matches(".*\\.(java|md|pml)$"))
                    .filter(p -> Stream.of("target", "node_modules", ".git", "cdk.out").noneMatch(dir -> root.relativize(p).toString().startsWith(dir + "/")
                            || root.relativize(p).toString().contains("/" + dir + "/")))
                    .filter(p -> !p.endsWith(Path.of("DesignReferencesTest.java")))
                    .forEach(p -> problems.addAll(problems(root.relativize(p).toString(), read(p), sections)));
        }
        assertThat(sections).as("docs/design.md's numbered sections").isNotEmpty();
        assertThat(problems).isEmpty();
    }

    @Test
    void theCheckRefusesABareReferenceAMissingSectionAndTheSharedContract() {
        Set<Integer> sections = Set.of(1, 2, 3, 4);
        assertThat(problems("A.java", "/** The protected write (design §4). */", sections)).singleElement().asString().contains("design §4");
        assertThat(problems("B.md", "see docs/design.md §3–§5", sections)).singleElement().asString().contains("§5");
        assertThat(problems("C.md", "the contract in ../shared/design.md §4", sections)).singleElement().asString().contains("outside");
        assertThat(problems("D.md", "docs/design.md §4, §2 and [design.md](../design.md) §1", sections)).isEmpty();
    }

    static List<String> problems(String path, String text, Set<Integer> sections) {
        List<String> found = new ArrayList<>();
        String[] lines = text.split("\n", -1);
        for (int i = 0; i < lines.length; i++) {
            String line = lines[i];
            String at = path + ":" + (i + 1) + ": ";
            if (BARE.matcher(line).find()) {
                found.add(at + "a bare design reference (name docs/design.md): " + line.strip());
            }
            if (OUTSIDE.matcher(line).find()) {
                found.add(at + "points outside the repository: " + line.strip());
            }
            Matcher m = INTO_DESIGN.matcher(line);
            while (m.find()) {
                List<Integer> named = new ArrayList<>(List.of(Integer.parseInt(m.group(1))));
                Matcher more = Pattern.compile("§(\\d+)").matcher(m.group(2));
                while (more.find()) {
                    named.add(Integer.parseInt(more.group(1)));
                }
                named.stream().filter(n -> !sections.contains(n))
                        .forEach(n -> found.add(at + "docs/design.md has no §" + n + ": " + line.strip()));
            }
        }
        return found;
    }

    private static Set<Integer> sections(String design) {
        return SECTION.matcher(design).results().map(r -> Integer.parseInt(r.group(1))).collect(Collectors.toSet());
    }

    private static String read(Path file) {
        try {
            return Files.readString(file);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The repository holds docs/design.md, above the module the tests run in. */
    private static Path repositoryRoot() {
        for (Path dir = Path.of("").toAbsolutePath(); dir != null; dir = dir.getParent()) {
            if (Files.isRegularFile(dir.resolve("docs/design.md")) && Files.isDirectory(dir.resolve("functions"))) {
                return dir;
            }
        }
        throw new AssertionError("docs/design.md not found above " + Path.of("").toAbsolutePath());
    }
}
