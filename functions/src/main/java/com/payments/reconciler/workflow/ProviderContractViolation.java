package com.payments.reconciler.workflow;

import java.util.Optional;

/**
 * The provider answered, but not as its contract says (a body that is not JSON, an unexpected status,
 * a success for another operation or authorisation, refused credentials). Nothing is recorded as
 * delivered: retrying would only repeat the surprise.
 *
 * <p>An answer about one command ({@link #aboutTheCommand()}) quarantines that command and the others go
 * on (issue 15.5); refused credentials are about every command, so the call stops and fails loudly.
 * {@link #answer()} is what a person needs to judge it: the status and a bounded excerpt of the body,
 * stored on the quarantined command (encrypted at rest), never logged. When it ends a call it is never
 * retried by the workflow ({@link ErrorNames#TABLE}): a retry would quarantine more commands or meet the
 * same refusal, and a person must look first.
 */
public final class ProviderContractViolation extends WorkflowError {

    /** How much of an answer's body is kept on a quarantined command. */
    public static final int EXCERPT_LIMIT = 200;

    private final boolean aboutTheCommand;
    private final String answer;

    private ProviderContractViolation(String message, boolean aboutTheCommand, String answer) {
        super(message);
        this.aboutTheCommand = aboutTheCommand;
        this.answer = answer;
    }

    /** This command's answer broke the contract: quarantine it, deliver the rest. */
    public static ProviderContractViolation ofCommand(String message, int status, String body) {
        return new ProviderContractViolation(message, true, message + " [status " + status + ", body: " + excerpt(body) + "]");
    }

    /** The answer says nothing can be delivered (refused credentials): the call stops. */
    public static ProviderContractViolation ofEveryCommand(String message) {
        return new ProviderContractViolation(message, false, message);
    }

    public boolean aboutTheCommand() {
        return aboutTheCommand;
    }

    /** The message, the status and at most {@link #EXCERPT_LIMIT} printable characters of the body. */
    public String answer() {
        return answer;
    }

    static String excerpt(String body) {
        String text = Optional.ofNullable(body).orElse("");
        StringBuilder out = new StringBuilder();
        text.codePoints().limit(EXCERPT_LIMIT).forEach(c -> out.appendCodePoint(Character.isISOControl(c) ? ' ' : c));
        return text.codePointCount(0, text.length()) > EXCERPT_LIMIT ? out + "…" : out.toString();
    }
}
