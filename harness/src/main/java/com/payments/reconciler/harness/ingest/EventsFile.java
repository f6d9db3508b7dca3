package com.payments.reconciler.harness.ingest;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.payments.reconciler.workflow.Json;
import java.io.IOException;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileSystemException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * {@code local --events FILE}: a person's own events, one JSON object a line as the platform publishes them
 * (docs/integration.md). Read whole before any work: a file that is not JSON lines is refused naming the file and the
 * line, never quoting it (a line may hold card data). Whether each event keeps to the contract is not judged here:
 * that is IngestEvents' decision, reported per event in {@code ingestion.jsonl}.
 *
 * @param lines the non-blank lines, in file order, each as its message body
 */
public record EventsFile(Path file, List<Line> lines) {

    /** The flag the file comes from, named in every refusal. */
    public static final String FLAG = "--events";
    /** SQS's limit on a message body: a longer line could not be published as one event. */
    static final int MAX_BODY_BYTES = 256 * 1024;

    /** One event: its line number in the file (from 1) and its text, published as it is. */
    public record Line(int number, String body) {
    }

    public EventsFile {
        lines = List.copyOf(lines);
    }

    public static EventsFile read(Path file) {
        if (!Files.isRegularFile(file)) {
            throw new IllegalArgumentException(FLAG + ": " + file + " is not a readable file");
        }
        List<String> text;
        try {
            text = Files.readAllLines(file, StandardCharsets.UTF_8);
        } catch (CharacterCodingException e) {
            throw new IllegalArgumentException(FLAG + ": " + file + " is not UTF-8 text (JSON lines, one event per line)");
        } catch (FileSystemException e) {
            throw new IllegalArgumentException(FLAG + ": cannot read " + file + (e.getReason() == null ? "" : " (" + e.getReason() + ")"));
        } catch (IOException e) {
            throw new IllegalArgumentException(FLAG + ": cannot read " + file);
        }
        List<Line> lines = new ArrayList<>();
        for (int i = 0; i < text.size(); i++) {
            String body = text.get(i).strip();
            if (body.isEmpty()) {
                continue;
            }
            int number = i + 1;
            if (body.getBytes(StandardCharsets.UTF_8).length > MAX_BODY_BYTES) {
                throw new IllegalArgumentException(FLAG + ": " + file + " line " + number + " is longer than an SQS message may be (256 KiB)");
            }
            if (!isJsonObject(body)) {
                throw new IllegalArgumentException(FLAG + ": " + file + " line " + number
                        + " is not a JSON object; the file must be JSON lines, one event of docs/integration.md per line");
            }
            lines.add(new Line(number, body));
        }
        if (lines.isEmpty()) {
            throw new IllegalArgumentException(FLAG + ": " + file + " holds no events (JSON lines, one event per line)");
        }
        return new EventsFile(file, lines);
    }

    private static boolean isJsonObject(String line) {
        try (var parser = Json.mapper().createParser(line)) {
            JsonNode node = Json.mapper().readTree(parser);
            // One value per line: trailing text after the object is not JSON lines.
            return node != null && node.isObject() && parser.nextToken() == null;
        } catch (JsonProcessingException e) {
            return false;
        } catch (IOException e) {
            return false;
        }
    }

    public List<String> bodies() {
        return lines.stream().map(Line::body).toList();
    }
}
