package com.payments.reconciler.cli;

import java.net.URI;
import java.net.URISyntaxException;
import java.nio.file.InvalidPathException;
import java.nio.file.Path;
import java.time.DateTimeException;
import java.time.Duration;
import java.time.LocalTime;
import java.time.ZoneId;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeParseException;
import picocli.CommandLine;
import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.TypeConversionException;

/**
 * How every flag's value is read: a value that does not convert is refused with the accepted form and the value
 * given, never with a Java exception's name (picocli's own converters name the exception). The error handler in
 * {@link ReconcilerCli} puts the flag's name in front.
 */
final class FlagValues {

    private static final DateTimeFormatter HH_MM = DateTimeFormatter.ofPattern("HH:mm");

    private FlagValues() {
    }

    /** Registers the converters on a command line and every subcommand it has now (picocli's rule: add subcommands first). */
    static void register(CommandLine cli) {
        ITypeConverter<Integer> integer = text -> parse(text, Integer::valueOf, "an integer");
        ITypeConverter<Long> longInteger = text -> parse(text, Long::valueOf, "an integer");
        ITypeConverter<Double> number = text -> {
            double value = parse(text, Double::valueOf, "a number");
            if (!Double.isFinite(value)) {
                throw refused("a number", text);
            }
            return value;
        };
        cli.registerConverter(Integer.class, integer).registerConverter(int.class, integer)
                .registerConverter(Long.class, longInteger).registerConverter(long.class, longInteger)
                .registerConverter(Double.class, number).registerConverter(double.class, number)
                .registerConverter(ZoneId.class, FlagValues::zone)
                .registerConverter(LocalTime.class, FlagValues::localTime)
                .registerConverter(Duration.class, FlagValues::duration)
                .registerConverter(URI.class, FlagValues::uri)
                .registerConverter(Path.class, FlagValues::path);
    }

    static final String ZONE_FORM = "an IANA time zone such as UTC or Europe/London";
    static final String LOCAL_TIME_FORM = "a time of day HH:mm from 00:00 to 23:59, such as 02:00";
    static final String DURATION_FORM = "an ISO-8601 duration such as PT72H (72 hours) or P3D";
    static final String URI_FORM = "a URL such as http://127.0.0.1:5000";

    static ZoneId zone(String text) {
        try {
            return ZoneId.of(text);
        } catch (DateTimeException e) {
            throw refused(ZONE_FORM, text);
        }
    }

    static LocalTime localTime(String text) {
        try {
            return LocalTime.parse(text, HH_MM);
        } catch (DateTimeParseException e) {
            throw refused(LOCAL_TIME_FORM, text);
        }
    }

    static Duration duration(String text) {
        try {
            return Duration.parse(text);
        } catch (DateTimeParseException e) {
            throw refused(DURATION_FORM, text);
        }
    }

    static URI uri(String text) {
        try {
            URI uri = new URI(text);
            if (uri.getScheme() == null || uri.getHost() == null) {
                throw refused(URI_FORM, text);
            }
            return uri;
        } catch (URISyntaxException e) {
            throw refused(URI_FORM, text);
        }
    }

    static Path path(String text) {
        try {
            return Path.of(text);
        } catch (InvalidPathException e) {
            throw refused("a file system path", text);
        }
    }

    private interface Parser<T> {
        T parse(String text);
    }

    private static <T> T parse(String text, Parser<T> parser, String form) {
        try {
            return parser.parse(text.strip());
        } catch (NumberFormatException e) {
            throw refused(form, text);
        }
    }

    static TypeConversionException refused(String form, String text) {
        return new TypeConversionException("must be " + form + ", was '" + text + "'");
    }
}
