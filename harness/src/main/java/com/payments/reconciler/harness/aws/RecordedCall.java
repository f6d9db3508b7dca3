package com.payments.reconciler.harness.aws;

import java.util.List;
import java.util.Optional;

/**
 * One request that went through the {@link AwsCallRecorder}.
 *
 * @param seq the order the recorder saw requests in
 * @param frontDoor the label of the listener it came in on ("" for the default one)
 * @param accessKeyId the SigV4 credential's access key id, if the request was signed
 * @param operation {@code service:Operation} (e.g. {@code dynamodb:TransactWriteItems}); empty if unreadable
 * @param authorizes what the call is authorised as (see {@link ServiceAuthorization}); empty when unmapped
 * @param unmapped why the call could not be mapped to IAM actions, if it could not
 * @param status the HTTP status of the answer (moto's, or the recorder's own 403-equivalent when enforcing)
 * @param errorType the AWS error's short name, for an error answer
 * @param deniedByRecorder the recorder answered AccessDeniedException itself (enforce mode) and did not forward
 */
public record RecordedCall(long seq, String frontDoor, Optional<String> accessKeyId, Optional<String> operation,
                           List<AuthorizedAction> authorizes, Optional<String> unmapped, int status, Optional<String> errorType,
                           boolean deniedByRecorder) {
    public RecordedCall {
        authorizes = List.copyOf(authorizes);
    }

    /** The caller as far as the wire tells: which front door, which key. */
    public Caller caller() {
        return new Caller(frontDoor, accessKeyId);
    }

    public record Caller(String frontDoor, Optional<String> accessKeyId) {
    }
}
