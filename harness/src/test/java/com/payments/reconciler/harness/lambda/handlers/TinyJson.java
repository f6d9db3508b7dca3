package com.payments.reconciler.harness.lambda.handlers;

import java.util.Collection;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** Just enough JSON for the test handlers, which must not depend on what the function jar shades. */
final class TinyJson {

    private TinyJson() {
    }

    static String string(String value) {
        StringBuilder out = new StringBuilder("\"");
        for (char c : value.toCharArray()) {
            switch (c) {
                case '"' -> out.append("\\\"");
                case '\\' -> out.append("\\\\");
                case '\n' -> out.append("\\n");
                case '\r' -> out.append("\\r");
                case '\t' -> out.append("\\t");
                default -> {
                    if (c < 0x20) {
                        out.append(String.format("\\u%04x", (int) c));
                    } else {
                        out.append(c);
                    }
                }
            }
        }
        return out.append('"').toString();
    }

    static String object(Map<String, ?> fields) {
        StringBuilder out = new StringBuilder("{");
        fields.forEach((k, v) -> {
            if (out.length() > 1) {
                out.append(',');
            }
            out.append(string(k)).append(':').append(value(v));
        });
        return out.append('}').toString();
    }

    private static String value(Object v) {
        if (v == null) {
            return "null";
        }
        if (v instanceof Number || v instanceof Boolean) {
            return v.toString();
        }
        if (v instanceof Map<?, ?> map) {
            @SuppressWarnings("unchecked")
            Map<String, ?> typed = (Map<String, ?>) map;
            return object(typed);
        }
        if (v instanceof Collection<?> list) {
            StringBuilder out = new StringBuilder("[");
            for (Object item : list) {
                if (out.length() > 1) {
                    out.append(',');
                }
                out.append(value(item));
            }
            return out.append(']').toString();
        }
        return string(v.toString());
    }

    /** The integer value of a top-level field, or -1. */
    static long number(String json, String field) {
        Matcher m = Pattern.compile("\"" + Pattern.quote(field) + "\"\\s*:\\s*(\\d+)").matcher(json);
        return m.find() ? Long.parseLong(m.group(1)) : -1;
    }

    static boolean flag(String json, String field) {
        return Pattern.compile("\"" + Pattern.quote(field) + "\"\\s*:\\s*true").matcher(json).find();
    }
}
