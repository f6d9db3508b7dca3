package com.payments.reconciler.mutation;

import java.io.IOException;
import java.io.InputStream;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import javax.xml.parsers.DocumentBuilderFactory;
import javax.xml.parsers.ParserConfigurationException;
import org.w3c.dom.Document;
import org.w3c.dom.Element;
import org.w3c.dom.NodeList;
import org.xml.sax.SAXException;

/**
 * Reads PIT's {@code mutations.xml} and the survivor list of {@code docs/mutation.md}, prints the score, and fails
 * when a mutant survived that the list does not name (a changed line the tests no longer notice), when the list names
 * a survivor the report no longer has (the doc would claim what is not so), or when the test strength (killed over
 * covered mutants) is below the floor.
 *
 * <p>A survivor is named by its mutated class, method, mutator (PIT's class name without its package) and PIT's
 * description, not by its line: an edit above it moves the line without changing what survives. Two survivors alike
 * in all four need two rows. The line stays in the doc for the reader.
 *
 * <p>Run after PIT by the {@code mutation} profile of {@code functions/pom.xml} as a source-file program (JDK only,
 * like the test guard); {@code MutationSurvivorCheckTest} runs it on fixture reports in every {@code mvn verify}.
 *
 * <p>After CI's run over the changed classes only ({@code ChangedMutationTargets}), {@code --scope} names those
 * classes: a listed row of another class is not judged (PIT did not mutate it), and the floor is not applied, because
 * it is the whole set's: one class with two equivalent survivors among ten mutants is at 80 % by nature.
 */
public final class MutationSurvivorCheck {

    /** The heading of docs/mutation.md's survivor table; rows are read from it to the next heading. */
    static final String SURVIVOR_HEADING = "## Surviving mutants";

    /** Statuses PIT counts as detected (a mutant that times out or crashes the run was noticed). */
    private static final Set<String> DETECTED = Set.of("KILLED", "TIMED_OUT", "MEMORY_ERROR", "RUN_ERROR");

    private MutationSurvivorCheck() {
    }

    /** One mutant as PIT reported it. */
    record Mutant(String status, String mutatedClass, String method, int line, String mutator, String description) {

        Survivor key() {
            return new Survivor(mutatedClass, method, mutator, description);
        }

        @Override
        public String toString() {
            return mutatedClass + "." + method + " line " + line + " " + mutator + ": " + description;
        }
    }

    /** A survivor as the doc's table names it. */
    record Survivor(String mutatedClass, String method, String mutator, String description) {
        @Override
        public String toString() {
            return mutatedClass + "." + method + " " + mutator + ": " + description;
        }
    }

    /** The counts of one report and what the list says about its survivors. */
    record Result(int mutations, int detected, int survived, int noCoverage, List<Mutant> unlisted, List<Survivor> stale) {

        int covered() {
            return mutations - noCoverage;
        }

        /** Killed over covered, in percent (PIT's test strength); 100 when nothing was covered. */
        double strength() {
            return covered() == 0 ? 100 : 100.0 * detected / covered();
        }
    }

    public static void main(String[] args) {
        System.exit(run(args, System.out));
    }

    /**
     * Arguments: {@code --report mutations.xml --list docs/mutation.md [--min-strength PERCENT] [--build-start ISO-INSTANT]
     * [--scope all|CLASS,...]} (a report older than the build start is refused: it would judge code PIT did not see;
     * a scope of top-level classes judges only their rows and applies no floor). Returns the exit code: 0 passed,
     * 1 failed, 2 bad usage or an unreadable input.
     */
    static int run(String[] args, PrintStream out) {
        Path report = null;
        Path list = null;
        double minStrength = 0;
        Instant buildStart = Instant.EPOCH;
        Set<String> scope = null;
        for (int i = 0; i < args.length; i++) {
            String flag = args[i];
            if (i + 1 >= args.length) {
                return usage(out, flag + " needs a value");
            }
            String value = args[++i];
            switch (flag) {
                case "--report" -> report = Path.of(value);
                case "--list" -> list = Path.of(value);
                case "--min-strength" -> {
                    try {
                        minStrength = Double.parseDouble(value);
                    } catch (NumberFormatException e) {
                        return usage(out, "--min-strength must be a percentage such as 90, was '" + value + "'");
                    }
                }
                case "--build-start" -> {
                    try {
                        buildStart = Instant.parse(value);
                    } catch (DateTimeParseException e) {
                        return usage(out, "--build-start must be an ISO instant such as 2026-12-06T04:00:00Z, was '" + value + "'");
                    }
                }
                case "--scope" -> {
                    if (!value.equals("all")) {
                        if (!value.matches("[\\w.]+(,[\\w.]+)*")) {
                            return usage(out, "--scope must be all or top-level class names separated by commas, was '" + value + "'");
                        }
                        scope = Set.of(value.split(","));
                    }
                }
                default -> {
                    return usage(out, "unknown flag " + flag);
                }
            }
        }
        if (report == null || list == null) {
            return usage(out, "--report and --list are required");
        }
        if (!Files.isRegularFile(report)) {
            out.println("mutation-check: no PIT report at " + report + " (run PIT first: bin/test --mutation)");
            return 2;
        }
        Result result;
        try {
            if (Files.getLastModifiedTime(report).toInstant().isBefore(buildStart)) {
                out.println("mutation-check: the PIT report " + report + " is older than this build (" + buildStart
                        + "): PIT did not run, and an earlier run's report says nothing about this code");
                return 2;
            }
            List<Survivor> listed = readList(list);
            if (scope != null) {
                Set<String> classes = scope;
                listed = listed.stream().filter(s -> classes.contains(s.mutatedClass().split("\\$", 2)[0])).toList();
            }
            result = check(readReport(report), listed);
        } catch (IOException | IllegalArgumentException e) {
            out.println("mutation-check: " + e.getMessage());
            return 2;
        }
        out.printf("mutation score: %d mutations, %d killed, %d survived, %d without coverage; test strength %d/%d = %.1f %%%n",
                result.mutations(), result.detected(), result.survived(), result.noCoverage(),
                result.detected(), result.covered(), result.strength());
        boolean failed = false;
        for (Mutant mutant : result.unlisted()) {
            out.println("mutation-check: FAIL a surviving mutant docs/mutation.md does not list: " + mutant
                    + " (add a test that kills it, or list it under \"" + SURVIVOR_HEADING + "\" with why it is equivalent)");
            failed = true;
        }
        for (Survivor survivor : result.stale()) {
            out.println("mutation-check: FAIL docs/mutation.md lists a survivor the report does not have: " + survivor
                    + " (a test kills it now, or the code changed: remove its row)");
            failed = true;
        }
        if (scope != null) {
            out.println("mutation-check: the changed classes only (" + String.join(", ", scope.stream().sorted().toList())
                    + "): their listed survivors are judged; the " + minStrength + " % floor is the whole set's (bin/test --mutation)");
        } else if (result.strength() < minStrength) {
            out.printf("mutation-check: FAIL test strength %.1f %% is below %.1f %%%n", result.strength(), minStrength);
            failed = true;
        }
        if (!failed) {
            out.println("mutation-check: every survivor is listed with its reason in docs/mutation.md");
        }
        return failed ? 1 : 0;
    }

    private static int usage(PrintStream out, String problem) {
        out.println("mutation-check: " + problem);
        out.println("usage: MutationSurvivorCheck --report PATH/mutations.xml --list docs/mutation.md [--min-strength PERCENT] [--build-start INSTANT] [--scope all|CLASS,...]");
        return 2;
    }

    /** Compares the report's survivors with the list as multisets: each row accounts for one survivor. */
    static Result check(List<Mutant> mutants, List<Survivor> listed) {
        Map<Survivor, Integer> remaining = new HashMap<>();
        listed.forEach(s -> remaining.merge(s, 1, Integer::sum));
        List<Mutant> unlisted = new ArrayList<>();
        int detected = 0;
        int survived = 0;
        int noCoverage = 0;
        for (Mutant mutant : mutants) {
            if (DETECTED.contains(mutant.status())) {
                detected++;
            } else if (mutant.status().equals("NO_COVERAGE")) {
                noCoverage++;
            } else if (mutant.status().equals("SURVIVED")) {
                survived++;
                Integer left = remaining.get(mutant.key());
                if (left == null || left == 0) {
                    unlisted.add(mutant);
                } else {
                    remaining.put(mutant.key(), left - 1);
                }
            } else {
                throw new IllegalArgumentException("mutant with a status this check does not know (" + mutant.status()
                        + "): " + mutant);
            }
        }
        List<Survivor> stale = new ArrayList<>();
        listed.stream().distinct().forEach(s -> {
            for (int i = 0; i < remaining.getOrDefault(s, 0); i++) {
                stale.add(s);
            }
        });
        return new Result(mutants.size(), detected, survived, noCoverage, List.copyOf(unlisted), List.copyOf(stale));
    }

    /** Every {@code <mutation>} of a PIT XML report. */
    static List<Mutant> readReport(Path xml) throws IOException {
        Document document;
        try (InputStream in = Files.newInputStream(xml)) {
            DocumentBuilderFactory factory = DocumentBuilderFactory.newInstance();
            factory.setFeature("http://apache.org/xml/features/disallow-doctype-decl", true);
            document = factory.newDocumentBuilder().parse(in);
        } catch (ParserConfigurationException | SAXException e) {
            throw new IllegalArgumentException(xml + " is not a PIT XML report: " + e.getMessage(), e);
        }
        if (!document.getDocumentElement().getTagName().equals("mutations")) {
            throw new IllegalArgumentException(xml + " is not a PIT XML report: its root is <"
                    + document.getDocumentElement().getTagName() + ">, not <mutations>");
        }
        List<Mutant> mutants = new ArrayList<>();
        NodeList nodes = document.getElementsByTagName("mutation");
        for (int i = 0; i < nodes.getLength(); i++) {
            Element mutation = (Element) nodes.item(i);
            String line = text(xml, mutation, "lineNumber");
            try {
                mutants.add(new Mutant(mutation.getAttribute("status"), text(xml, mutation, "mutatedClass"),
                        text(xml, mutation, "mutatedMethod"), Integer.parseInt(line),
                        simpleName(text(xml, mutation, "mutator")), text(xml, mutation, "description")));
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException(xml + ": mutation " + (i + 1) + " has lineNumber '" + line + "', not a number", e);
            }
        }
        return mutants;
    }

    private static String text(Path xml, Element mutation, String tag) {
        NodeList found = mutation.getElementsByTagName(tag);
        if (found.getLength() == 0) {
            throw new IllegalArgumentException(xml + ": a <mutation> has no <" + tag + ">");
        }
        return found.item(0).getTextContent().strip();
    }

    /** PIT's mutator without its package: {@code org.pitest...NegateConditionalsMutator} is {@code NegateConditionalsMutator}. */
    static String simpleName(String mutator) {
        return mutator.substring(mutator.lastIndexOf('.') + 1);
    }

    /**
     * The rows of the survivor table: {@code | class | method | line | mutator | description | reason |}, cells
     * optionally in backticks, after a header row and its separator. A row whose reason is blank is refused: every
     * listed survivor says why it is equivalent, or which test will catch it.
     */
    static List<Survivor> readList(Path markdown) throws IOException {
        List<String> lines = Files.readAllLines(markdown);
        int start = lines.indexOf(SURVIVOR_HEADING);
        if (start < 0) {
            throw new IllegalArgumentException(markdown + " has no \"" + SURVIVOR_HEADING + "\" section");
        }
        List<Survivor> survivors = new ArrayList<>();
        boolean header = true;
        for (int n = start + 1; n < lines.size() && !lines.get(n).startsWith("#"); n++) {
            String row = lines.get(n).strip();
            if (!row.startsWith("|")) {
                continue;
            }
            if (header) {
                header = !row.matches("\\|[\\s:|-]+\\|");
                continue;
            }
            String[] cells = row.substring(1, row.endsWith("|") ? row.length() - 1 : row.length()).split("(?<!\\\\)\\|", -1);
            if (cells.length != 6) {
                throw new IllegalArgumentException(markdown + " line " + (n + 1)
                        + ": a survivor row needs 6 cells (class, method, line, mutator, description, reason), has " + cells.length);
            }
            String reason = cell(cells[5]);
            if (reason.isEmpty()) {
                throw new IllegalArgumentException(markdown + " line " + (n + 1) + ": the survivor's reason is blank");
            }
            survivors.add(new Survivor(cell(cells[0]), cell(cells[1]), cell(cells[3]), cell(cells[4])));
        }
        return survivors;
    }

    private static String cell(String raw) {
        String value = raw.strip().replace("\\|", "|");
        if (value.length() >= 2 && value.startsWith("`") && value.endsWith("`")) {
            value = value.substring(1, value.length() - 1);
        }
        return value;
    }
}
