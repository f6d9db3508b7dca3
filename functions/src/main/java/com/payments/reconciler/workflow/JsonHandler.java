package com.payments.reconciler.workflow;

import com.amazonaws.services.lambda.runtime.Context;
import com.amazonaws.services.lambda.runtime.RequestStreamHandler;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonMappingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.exc.UnrecognizedPropertyException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.util.Map;
import java.util.stream.Collectors;
import org.slf4j.MDC;

/**
 * A Lambda handler with a typed input and output record, (de)serialised by our {@link Json} rules
 * rather than the runtime's built-in POJO serializer: records, {@code Instant}s and strict validation
 * (an unknown or mistyped field is {@link InvalidInput} naming the field, before anything is read or
 * written). Subclasses implement {@link #handle}. An input that is a {@link LogContext} puts its run's
 * identifiers on every log line of the invocation.
 */
public abstract class JsonHandler<I, O> implements RequestStreamHandler {

    private static final ObjectMapper JSON = Json.mapper();
    private final Class<I> inputType;

    protected JsonHandler(Class<I> inputType) {
        this.inputType = inputType;
    }

    protected abstract O handle(I input, Context context);

    @Override
    public final void handleRequest(InputStream in, OutputStream out, Context context) throws IOException {
        I input = parse(in.readAllBytes(), inputType);
        Map<String, String> logContext = input instanceof LogContext traced ? traced.logContext() : Map.of();
        logContext.forEach(MDC::put);
        try {
            O output = handle(input, context);
            JSON.writeValue(out, output);
        } finally {
            logContext.keySet().forEach(MDC::remove);
        }
    }

    /** Parses a task input, turning every Jackson problem into an {@link InvalidInput} that names the field. */
    public static <T> T parse(byte[] json, Class<T> type) {
        try {
            T value = JSON.readValue(json, type);
            if (value == null) {
                throw new InvalidInput("input", "required, a JSON object");
            }
            return value;
        } catch (UnrecognizedPropertyException e) {
            AcceptedForm form = e.getReferringClass() == null ? null : e.getReferringClass().getAnnotation(AcceptedForm.class);
            throw new InvalidInput(path(e), "unknown field; " + (form != null ? form.value() : "accepted fields are " + e.getKnownPropertyIds()));
        } catch (JsonMappingException e) {
            Throwable cause = e.getCause();
            if (cause instanceof InvalidInput invalid) {
                throw invalid;
            }
            throw new InvalidInput(path(e), e.getOriginalMessage());
        } catch (JsonProcessingException e) {
            throw new InvalidInput("input", "not valid JSON: " + e.getOriginalMessage());
        } catch (IOException e) {
            throw new InvalidInput("input", "unreadable: " + e.getMessage());
        }
    }

    public static ObjectMapper json() {
        return JSON;
    }

    private static String path(JsonMappingException e) {
        String path = e.getPath().stream()
                .map(ref -> ref.getFieldName() != null ? ref.getFieldName() : "[" + ref.getIndex() + "]")
                .collect(Collectors.joining(".")).replace(".[", "[");
        return path.isEmpty() ? "input" : path;
    }
}
