package com.payments.reconciler.mutation;

import java.io.IOException;
import java.io.InputStream;
import java.io.PrintStream;
import java.io.StringReader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.function.Function;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import javax.xml.parsers.DocumentBuilderFactory;
import javax.xml.parsers.ParserConfigurationException;
import org.w3c.dom.Document;
import org.w3c.dom.Element;
import org.w3c.dom.Node;
import org.w3c.dom.NodeList;
import org.xml.sax.InputSource;
import org.xml.sax.SAXException;

/**
 * The CI step of the mutation run: which of PIT's target classes changed since the recorded baseline (the commit the
 * full run in docs/mutation.md was measured on), so that every {@code mvn verify} runs PIT over those only. The full
 * run takes 6–10 minutes on 2 cores; one changed class takes well under that, and an unchanged tree costs a git diff.
 *
 * <p>{@code select} writes the selection as Maven properties (the {@code functions} pom loads them and runs PIT and
 * {@link MutationSurvivorCheck} with them) and prints one line saying what runs and why. A class is selected when
 * <ul>
 *   <li>its source under {@code functions/src/main/java} differs from the baseline (uncommitted and untracked files
 *       included) and it matches the pom's {@code targetClasses} now, or it matches them now and did not at the
 *       baseline (it joined the target set);</li>
 *   <li>a target test that covered it in the baseline's full run changed, was added to or removed from
 *       {@code targetTests}: only the mutants a test covered can change status when the test changes. A test-source
 *       file that is not a target test (a shared fixture) counts as a change of every target test whose source names
 *       it, directly or through other such files. A target test the baseline has no coverage for (new since) is
 *       mapped to the target classes its source names; if it names none, the whole set runs.</li>
 * </ul>
 * The whole target set runs when the selection cannot be trusted: no baseline file, no git work tree, the baseline
 * commit missing from this clone (a shallow clone), or the mutators changed. It never passes without saying why.
 *
 * <p>{@code record} writes the baseline after a full run: the commit (HEAD, refused when {@code functions} has
 * uncommitted changes, as the run would not be that commit's) and, from PIT's {@code linecoverage.xml}, which target
 * classes each target test covered.
 *
 * <p>Run as a source-file program (JDK only, like the survivor check); {@code ChangedMutationTargetsTest} judges
 * the selection on a table of diffs.
 */
public final class ChangedMutationTargets {

    static final String MAIN = "functions/src/main/java/";
    static final String TESTS = "functions/src/test/java/";
    static final String POM = "functions/pom.xml";
    /** Prefix of the one line this step prints, so a CI log is searched for it. */
    static final String LINE = "mutation (changed classes): ";
    private static final String COVERS = "covers.";

    private ChangedMutationTargets() {
    }

    /** PIT's configuration in the pom: target class globs, target test class names, mutators. */
    record PitConfig(List<String> targetClasses, List<String> targetTests, List<String> mutators) {

        boolean isTarget(String className) {
            return targetClasses.stream().anyMatch(glob -> globMatches(glob, className));
        }
    }

    /** The recorded report's commit and, per target test, the top-level target classes it covered. */
    record Baseline(String commit, Map<String, Set<String>> covers) {
    }

    enum Kind { ADDED, MODIFIED, DELETED }

    /** One changed file, its path from the repository root. */
    record Change(Kind kind, String path) {
    }

    /**
     * What PIT runs over. {@code whole}: the pom's full target set (and the floor applies); otherwise {@code classes}
     * (top-level, each with its nested classes), empty when nothing relevant changed. {@code why} is the printed line.
     */
    record Selection(boolean whole, Set<String> classes, String why) {

        /** PIT's {@code targetClasses}: a selected class and its nested classes, not other classes sharing its prefix. */
        List<String> globs(PitConfig config) {
            if (whole) {
                return config.targetClasses();
            }
            return classes.stream().flatMap(c -> Stream.of(c, c + "$*")).toList();
        }
    }

    public static void main(String[] args) {
        System.exit(run(args, System.out));
    }

    static int run(String[] args, PrintStream out) {
        if (args.length == 0) {
            return usage(out, "a command is required: select or record");
        }
        Map<String, String> flags = new TreeMap<>();
        List<String> skipReasons = new ArrayList<>();
        for (int i = 1; i < args.length; i += 2) {
            if (i + 1 >= args.length) {
                return usage(out, args[i] + " needs a value");
            }
            if (args[i].equals("--skip-when")) {
                String[] nameValue = args[i + 1].split("=", 2);
                if (isSet(nameValue[0], nameValue.length > 1 ? nameValue[1] : "")) {
                    skipReasons.add("-D" + args[i + 1]);
                }
            } else {
                flags.put(args[i], args[i + 1]);
            }
        }
        Path repo = Path.of(flags.getOrDefault("--repo", ".")).toAbsolutePath().normalize();
        Path baselineFile = Path.of(flags.getOrDefault("--baseline", "functions/src/test/resources/mutation/baseline.properties"));
        if (!baselineFile.isAbsolute()) {
            baselineFile = repo.resolve(baselineFile);
        }
        try {
            return switch (args[0]) {
                case "select" -> {
                    if (!flags.containsKey("--out")) {
                        yield usage(out, "select needs --out FILE (the Maven properties to write)");
                    }
                    yield select(repo, baselineFile, Path.of(flags.get("--out")), skipReasons, out);
                }
                case "record" -> {
                    if (!flags.containsKey("--coverage")) {
                        yield usage(out, "record needs --coverage PATH/linecoverage.xml (from the full run)");
                    }
                    yield record(repo, baselineFile, Path.of(flags.get("--coverage")), out);
                }
                default -> usage(out, "unknown command " + args[0] + " (select or record)");
            };
        } catch (IOException | IllegalArgumentException | UncheckedIOException e) {
            out.println(LINE + "FAIL " + e.getMessage());
            return 2;
        }
    }

    private static int usage(PrintStream out, String problem) {
        out.println(LINE + problem);
        out.println("usage: ChangedMutationTargets select --repo DIR --out FILE [--baseline FILE] [--skip-when NAME=VALUE]...");
        out.println("       ChangedMutationTargets record --repo DIR --coverage PATH/linecoverage.xml [--baseline FILE]");
        return 2;
    }

    /** As the test guard: Maven leaves an undefined property as {@code ${NAME}}; that, blank and false mean "not set". */
    static boolean isSet(String name, String value) {
        String v = value.strip();
        return !v.isEmpty() && !v.equals("${" + name + "}") && !v.equalsIgnoreCase("false");
    }

    private static int select(Path repo, Path baselineFile, Path outFile, List<String> skipReasons, PrintStream out)
            throws IOException {
        PitConfig now = readPitConfig(Files.readString(repo.resolve(POM)));
        Properties props = new Properties();
        Selection selection;
        if (!skipReasons.isEmpty()) {
            selection = new Selection(false, Set.of(), "not run, " + String.join(" ", skipReasons)
                    + " runs only some of the tests (or none) on purpose");
        } else {
            selection = selectFromRepository(repo, baselineFile, now);
        }
        boolean skip = !selection.whole() && selection.classes().isEmpty();
        props.setProperty("mutation.changed.skip", Boolean.toString(skip));
        props.setProperty("mutation.changed.classes", skip ? "none" : String.join(",", selection.globs(now)));
        props.setProperty("mutation.changed.scope", selection.whole() ? "all" : skip ? "none" : String.join(",", selection.classes()));
        Files.createDirectories(outFile.toAbsolutePath().getParent());
        try (var writer = Files.newBufferedWriter(outFile, StandardCharsets.UTF_8)) {
            props.store(writer, "written by ChangedMutationTargets select; read by the functions pom");
        }
        out.println(LINE + selection.why());
        return 0;
    }

    private static Selection selectFromRepository(Path repo, Path baselineFile, PitConfig now) throws IOException {
        if (!Files.isRegularFile(baselineFile)) {
            return whole("no recorded baseline at " + repo.relativize(baselineFile.toAbsolutePath().normalize())
                    + " (record one after a full run: bin/test --mutation-baseline)");
        }
        Baseline baseline = readBaseline(baselineFile);
        Git git = new Git(repo);
        if (!git.ok("rev-parse", "--is-inside-work-tree")) {
            return whole("not a git work tree, so nothing says what changed since the baseline " + shortId(baseline.commit()));
        }
        if (!git.ok("cat-file", "-e", baseline.commit() + "^{commit}")) {
            boolean shallow = git.output("rev-parse", "--is-shallow-repository").strip().equals("true");
            return whole("the baseline commit " + shortId(baseline.commit()) + " is not in this clone"
                    + (shallow ? " (a shallow clone: `git fetch --unshallow` brings it)" : " (history rewritten? record a new baseline)"));
        }
        PitConfig atBase = readPitConfig(git.output("show", baseline.commit() + ":" + POM));
        List<Change> changes = new ArrayList<>();
        for (String line : git.output("diff", "--no-renames", "--name-status", baseline.commit(), "--", MAIN, TESTS).split("\n")) {
            if (!line.isBlank()) {
                String[] parts = line.split("\t", 2);
                Kind kind = switch (parts[0].charAt(0)) {
                    case 'A' -> Kind.ADDED;
                    case 'D' -> Kind.DELETED;
                    default -> Kind.MODIFIED;
                };
                changes.add(new Change(kind, parts[1]));
            }
        }
        for (String line : git.output("ls-files", "--others", "--exclude-standard", "--", MAIN, TESTS).split("\n")) {
            if (!line.isBlank()) {
                changes.add(new Change(Kind.ADDED, line.strip()));
            }
        }
        Set<String> mainClasses = new TreeSet<>();
        Set<String> testClasses = new TreeSet<>();
        try (Stream<Path> files = Files.walk(repo.resolve(MAIN))) {
            files.filter(p -> p.toString().endsWith(".java")).forEach(p -> mainClasses.add(className(MAIN, repo.relativize(p).toString())));
        }
        try (Stream<Path> files = Files.walk(repo.resolve(TESTS))) {
            files.filter(p -> p.toString().endsWith(".java")).forEach(p -> testClasses.add(className(TESTS, repo.relativize(p).toString())));
        }
        Function<String, Optional<String>> testSource = name -> {
            Path file = repo.resolve(TESTS + name.replace('.', '/') + ".java");
            try {
                return Files.isRegularFile(file) ? Optional.of(Files.readString(file)) : Optional.empty();
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        };
        return select(now, atBase, baseline, changes, mainClasses, testClasses, testSource);
    }

    private static Selection whole(String why) {
        return new Selection(true, Set.of(), why + "; PIT runs over the whole target set (6–10 minutes on 2 cores)");
    }

    /**
     * The selection itself, from what git said. {@code mainClasses}: every top-level class of {@code functions}' main
     * sources now; {@code testClasses}: every class of its test sources now; {@code testSource}: a test-source class's
     * text, if it exists now.
     */
    static Selection select(PitConfig now, PitConfig atBase, Baseline baseline, List<Change> changes,
            Set<String> mainClasses, Set<String> testClasses, Function<String, Optional<String>> testSource) {
        String since = "since the baseline " + shortId(baseline.commit());
        if (!now.mutators().equals(atBase.mutators())) {
            return whole("the mutators changed " + since + " (" + atBase.mutators() + " to " + now.mutators() + ")");
        }
        Map<String, String> selected = new TreeMap<>();
        Set<String> changedTestSources = new TreeSet<>();
        for (Change change : changes) {
            if (!change.path().endsWith(".java")) {
                continue;
            }
            if (change.path().startsWith(MAIN)) {
                String name = className(MAIN, change.path());
                if (change.kind() != Kind.DELETED && now.isTarget(name)) {
                    selected.putIfAbsent(name, change.kind() == Kind.ADDED ? "new" : "changed");
                }
            } else if (change.path().startsWith(TESTS)) {
                changedTestSources.add(className(TESTS, change.path()));
            }
        }
        for (String name : mainClasses) {
            if (now.isTarget(name) && !atBase.isTarget(name)) {
                selected.putIfAbsent(name, "joined the target set");
            }
        }
        Set<String> targetTests = new TreeSet<>(now.targetTests());
        targetTests.addAll(atBase.targetTests());
        Map<String, String> affectedTests = new TreeMap<>();
        for (String test : targetTests) {
            if (!now.targetTests().contains(test)) {
                affectedTests.put(test, "left the target tests");
            } else if (!atBase.targetTests().contains(test)) {
                affectedTests.put(test, "joined the target tests");
            } else if (changedTestSources.contains(test)) {
                affectedTests.put(test, "changed");
            }
        }
        // A changed fixture (a test source that is not a target test) changes every target test that names it,
        // directly or through another fixture that names it.
        Set<String> changedFixtures = new TreeSet<>(changedTestSources);
        changedFixtures.removeAll(targetTests);
        if (!changedFixtures.isEmpty()) {
            Set<String> reach = new TreeSet<>(changedFixtures);
            boolean grew = true;
            while (grew) {
                grew = false;
                for (String other : testClasses) {
                    if (!reach.contains(other) && names(testSource.apply(other), reach)) {
                        reach.add(other);
                        grew = true;
                    }
                }
            }
            for (String test : now.targetTests()) {
                if (!changedFixtures.contains(test) && reach.contains(test)) {
                    affectedTests.putIfAbsent(test, "uses a changed fixture");
                }
            }
        }
        for (Map.Entry<String, String> entry : affectedTests.entrySet()) {
            String test = entry.getKey();
            Set<String> covered = baseline.covers().get(test);
            if (covered == null) {
                Optional<String> source = testSource.apply(test);
                Set<String> named = new TreeSet<>();
                source.ifPresent(text -> mainClasses.stream()
                        .filter(now::isTarget)
                        .filter(c -> names(Optional.of(text), Set.of(c)))
                        .forEach(named::add));
                if (named.isEmpty()) {
                    return whole("the target test " + simpleName(test) + " " + entry.getValue() + " " + since
                            + ", and neither the baseline's coverage nor its source says which target classes it tests");
                }
                covered = named;
            }
            for (String c : covered) {
                if (mainClasses.contains(c) && now.isTarget(c)) {
                    selected.putIfAbsent(c, "tested by " + simpleName(test) + ", which " + entry.getValue());
                }
            }
        }
        if (selected.isEmpty()) {
            return new Selection(false, Set.of(), "no target class or target test changed " + since + "; PIT not run");
        }
        List<String> parts = new ArrayList<>();
        selected.forEach((c, why) -> parts.add(simpleName(c) + " (" + why + ")"));
        return new Selection(false, new TreeSet<>(selected.keySet()),
                "PIT over " + selected.size() + " target class" + (selected.size() == 1 ? "" : "es") + " changed " + since
                        + ": " + String.join(", ", parts));
    }

    /** Whether the source names one of the classes by its simple name, as a word. */
    private static boolean names(Optional<String> source, Set<String> classes) {
        if (source.isEmpty()) {
            return false;
        }
        for (String c : classes) {
            if (Pattern.compile("\\b" + Pattern.quote(simpleName(c)) + "\\b").matcher(source.get()).find()) {
                return true;
            }
        }
        return false;
    }

    /** PIT's glob: {@code *} any run of characters, {@code ?} one; a filter starting with {@code ~} is a regex. */
    static boolean globMatches(String glob, String className) {
        if (glob.startsWith("~")) {
            return className.matches(glob.substring(1));
        }
        StringBuilder regex = new StringBuilder();
        for (char ch : glob.toCharArray()) {
            regex.append(switch (ch) {
                case '*' -> ".*";
                case '?' -> ".";
                default -> Pattern.quote(String.valueOf(ch));
            });
        }
        return className.matches(regex.toString());
    }

    static String className(String root, String path) {
        return path.substring(root.length(), path.length() - ".java".length()).replace('/', '.');
    }

    static String simpleName(String className) {
        return className.substring(className.lastIndexOf('.') + 1);
    }

    static String shortId(String commit) {
        return commit.length() > 12 ? commit.substring(0, 12) : commit;
    }

    /** The pitest-maven plugin's configuration that names the target classes, wherever in the pom it is. */
    static PitConfig readPitConfig(String pomXml) {
        Document pom = parse(pomXml, "the pom");
        NodeList plugins = pom.getElementsByTagName("plugin");
        for (int i = 0; i < plugins.getLength(); i++) {
            Element plugin = (Element) plugins.item(i);
            if (!"pitest-maven".equals(childText(plugin, "artifactId"))) {
                continue;
            }
            Element configuration = child(plugin, "configuration");
            if (configuration != null && child(configuration, "targetClasses") != null) {
                return new PitConfig(childTexts(child(configuration, "targetClasses")),
                        childTexts(child(configuration, "targetTests")), childTexts(child(configuration, "mutators")));
            }
        }
        throw new IllegalArgumentException(POM + " has no pitest-maven plugin with targetClasses in its configuration");
    }

    private static Document parse(String xml, String what) {
        try {
            DocumentBuilderFactory factory = DocumentBuilderFactory.newInstance();
            factory.setFeature("http://apache.org/xml/features/disallow-doctype-decl", true);
            return factory.newDocumentBuilder().parse(new InputSource(new StringReader(xml)));
        } catch (ParserConfigurationException | SAXException | IOException e) {
            throw new IllegalArgumentException(what + " is not XML: " + e.getMessage(), e);
        }
    }

    private static Element child(Element parent, String tag) {
        if (parent == null) {
            return null;
        }
        for (Node n = parent.getFirstChild(); n != null; n = n.getNextSibling()) {
            if (n instanceof Element e && e.getTagName().equals(tag)) {
                return e;
            }
        }
        return null;
    }

    private static String childText(Element parent, String tag) {
        Element e = child(parent, tag);
        return e == null ? null : e.getTextContent().strip();
    }

    private static List<String> childTexts(Element parent) {
        List<String> texts = new ArrayList<>();
        if (parent != null) {
            for (Node n = parent.getFirstChild(); n != null; n = n.getNextSibling()) {
                if (n instanceof Element e) {
                    texts.add(e.getTextContent().strip());
                }
            }
        }
        return List.copyOf(texts);
    }

    static Baseline readBaseline(Path file) throws IOException {
        Properties props = new Properties();
        try (var reader = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
            props.load(reader);
        }
        String commit = props.getProperty("commit", "").strip();
        if (!commit.matches("[0-9a-f]{40}")) {
            throw new IllegalArgumentException(file.getFileName() + ": commit must be a full 40-hex commit id, was '" + commit + "'");
        }
        Map<String, Set<String>> covers = new TreeMap<>();
        for (String key : props.stringPropertyNames()) {
            if (key.startsWith(COVERS)) {
                Set<String> classes = new TreeSet<>();
                for (String c : props.getProperty(key).split(",")) {
                    if (!c.isBlank()) {
                        classes.add(c.strip());
                    }
                }
                covers.put(key.substring(COVERS.length()), classes);
            }
        }
        return new Baseline(commit, covers);
    }

    /**
     * PIT's {@code linecoverage.xml}: {@code <block classname=...><tests><test name=.../>} per covered block. A test's
     * name holds its class as {@code [class:NAME]} (JUnit platform's unique id); nested classes count as their
     * top-level class on both sides.
     */
    static Map<String, Set<String>> readCoverage(Path xml) throws IOException {
        Document document;
        try (InputStream in = Files.newInputStream(xml)) {
            document = parse(new String(in.readAllBytes(), StandardCharsets.UTF_8), xml.getFileName().toString());
        }
        Pattern testClass = Pattern.compile("\\[class:([^\\]$]+)");
        Map<String, Set<String>> covers = new TreeMap<>();
        NodeList blocks = document.getElementsByTagName("block");
        for (int i = 0; i < blocks.getLength(); i++) {
            Element block = (Element) blocks.item(i);
            String covered = block.getAttribute("classname").split("\\$", 2)[0];
            NodeList tests = block.getElementsByTagName("test");
            for (int t = 0; t < tests.getLength(); t++) {
                var m = testClass.matcher(((Element) tests.item(t)).getAttribute("name"));
                if (m.find()) {
                    covers.computeIfAbsent(m.group(1), k -> new TreeSet<>()).add(covered);
                }
            }
        }
        if (covers.isEmpty()) {
            throw new IllegalArgumentException(xml + " names no covered block with a test: not PIT's line coverage of a full run");
        }
        return covers;
    }

    private static int record(Path repo, Path baselineFile, Path coverage, PrintStream out) throws IOException {
        Git git = new Git(repo);
        String dirty = git.output("status", "--porcelain", "--", MAIN, TESTS, POM).strip();
        if (!dirty.isEmpty()) {
            out.println(LINE + "FAIL not recorded: functions has uncommitted changes, so the full run measured no commit;"
                    + " commit them, run bin/test --mutation-baseline again:\n" + dirty);
            return 1;
        }
        String commit = git.output("rev-parse", "HEAD").strip();
        PitConfig config = readPitConfig(Files.readString(repo.resolve(POM)));
        Map<String, Set<String>> covers = new TreeMap<>();
        readCoverage(coverage).forEach((test, classes) -> {
            if (config.targetTests().contains(test)) {
                // PIT's coverage names test classes too (a glob like BatchRounds* matches BatchRoundsTest): only main
                // classes are mutated.
                covers.put(test, new TreeSet<>(classes.stream().filter(config::isTarget)
                        .filter(c -> Files.isRegularFile(repo.resolve(MAIN + c.replace('.', '/') + ".java"))).toList()));
            }
        });
        StringBuilder text = new StringBuilder()
                .append("# The mutation run's recorded baseline (docs/mutation.md, \"How CI runs it\"): the commit the full run\n")
                .append("# was measured on, and per target test the target classes it covered in that run (PIT's line coverage).\n")
                .append("# CI runs PIT over the target classes changed since this commit. Written by bin/test --mutation-baseline\n")
                .append("# on ").append(Instant.now().toString(), 0, 10).append("; update docs/mutation.md's score table with the same run.\n")
                .append("commit=").append(commit).append('\n');
        covers.forEach((test, classes) -> text.append(COVERS).append(test).append('=').append(String.join(",", classes)).append('\n'));
        Files.writeString(baselineFile, text);
        Path written = baselineFile.toAbsolutePath().normalize();
        out.println(LINE + "recorded baseline " + shortId(commit) + " with the coverage of " + covers.size() + " target tests in "
                + (written.startsWith(repo) ? repo.relativize(written) : written));
        return 0;
    }

    /** git in the repository; a command that fails is an exception, except where {@link #ok} asks. */
    private record Git(Path repo) {

        boolean ok(String... args) {
            try {
                return start(args).waitFor() == 0;
            } catch (IOException e) {
                return false; // no git on this machine: the caller falls back to the whole set and says why
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return false;
            }
        }

        String output(String... args) throws IOException {
            Process process = start(args);
            String text = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            try {
                if (process.waitFor() != 0) {
                    throw new IOException("git " + String.join(" ", args) + " failed: " + text.strip());
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IOException("interrupted waiting for git", e);
            }
            return text;
        }

        private Process start(String... args) throws IOException {
            List<String> command = new ArrayList<>(List.of("git", "-C", repo.toString()));
            command.addAll(List.of(args));
            return new ProcessBuilder(command).redirectErrorStream(true).start();
        }
    }
}
