package com.payments.reconciler.workflow;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.PrintStream;
import java.time.Clock;
import java.util.Map;
import java.util.function.Consumer;

/**
 * CloudWatch metrics as Embedded Metric Format lines on stdout: Lambda ships them to CloudWatch Logs
 * and CloudWatch extracts the metrics, so emitting costs no API call and no extra permission. One
 * dimension, the function, so the stack's alarms can name exactly what they watch.
 */
public final class EmfMetrics {

    private static final ObjectMapper JSON = Json.mapper();
    private final Clock clock;
    private final String function;
    private final Consumer<String> sink;

    public EmfMetrics(Clock clock, String function, Consumer<String> sink) {
        this.clock = clock;
        this.function = function;
        this.sink = sink;
    }

    public static EmfMetrics toStdout(Clock clock, String function) {
        PrintStream out = System.out;
        return new EmfMetrics(clock, function, out::println);
    }

    /** Emits counts (zero counts included: an alarm needs data points to see "nothing went wrong"). */
    public void count(Map<String, Long> counts) {
        ObjectNode root = JSON.createObjectNode();
        ObjectNode aws = root.putObject("_aws");
        aws.put("Timestamp", clock.millis());
        ObjectNode directive = aws.putArray("CloudWatchMetrics").addObject();
        directive.put("Namespace", Metrics.NAMESPACE);
        directive.putArray("Dimensions").addArray().add("Function");
        ArrayNode metrics = directive.putArray("Metrics");
        root.put("Function", function);
        counts.forEach((name, value) -> {
            metrics.addObject().put("Name", name).put("Unit", "Count");
            root.put(name, value);
        });
        sink.accept(root.toString());
    }

    public void count(String name, long value) {
        count(Map.of(name, value));
    }
}
