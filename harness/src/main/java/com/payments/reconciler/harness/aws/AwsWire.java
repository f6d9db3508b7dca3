package com.payments.reconciler.harness.aws;

import java.util.Map;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Who called which operation, read off an AWS JSON-protocol request: the SigV4 {@code Authorization}
 * header's credential ({@code Credential=AKID/date/region/service/aws4_request}) and the
 * {@code X-Amz-Target} header ({@code DynamoDB_20120810.TransactWriteItems}).
 */
public final class AwsWire {

    private static final Pattern CREDENTIAL = Pattern.compile("Credential=([^/,\\s]+)/([^/]+)/([^/]+)/([^/]+)/aws4_request");
    /** X-Amz-Target prefixes → IAM service prefixes, where they differ from the signing name's spelling. */
    private static final Map<String, String> TARGET_PREFIXES = Map.of(
            "DynamoDB_20120810", "dynamodb",
            "AWSStepFunctions", "states",
            "secretsmanager", "secretsmanager",
            "AmazonSQS", "sqs");

    private AwsWire() {
    }

    /**
     * The SigV4 credential of a request.
     *
     * @param accessKeyId the caller's access key id
     * @param region the credential scope's region
     * @param service the credential scope's service (the signing name: dynamodb, states, secretsmanager)
     */
    public record Credential(String accessKeyId, String region, String service) {
    }

    public static Optional<Credential> credential(String authorization) {
        if (authorization == null || !authorization.startsWith("AWS4-HMAC-SHA256")) {
            return Optional.empty();
        }
        Matcher m = CREDENTIAL.matcher(authorization);
        return m.find() ? Optional.of(new Credential(m.group(1), m.group(3), m.group(4))) : Optional.empty();
    }

    /** {@code service:Operation} from X-Amz-Target, the IAM spelling of the service; empty when the header is absent or unknown. */
    public static Optional<String> operation(String target, Optional<Credential> credential) {
        if (target == null || target.indexOf('.') < 0) {
            return Optional.empty();
        }
        int dot = target.lastIndexOf('.');
        String prefix = target.substring(0, dot);
        String service = TARGET_PREFIXES.get(prefix);
        if (service == null) {
            service = credential.map(Credential::service).orElse(null);
        }
        return service == null ? Optional.empty() : Optional.of(service + ":" + target.substring(dot + 1));
    }

    /** The error's short name from an AWS JSON error body's {@code __type} ({@code ns#ConditionalCheckFailedException}). */
    public static Optional<String> errorType(String body) {
        Matcher m = Pattern.compile("\"__type\"\\s*:\\s*\"([^\"]*)\"").matcher(body);
        if (!m.find()) {
            return Optional.empty();
        }
        String type = m.group(1);
        return Optional.of(type.substring(type.lastIndexOf('#') + 1));
    }
}
