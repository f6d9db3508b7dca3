package com.payments.reconciler.workflow;

import java.util.Optional;

/**
 * The provider answered, but not as its contract says (a body that is not JSON, an unexpected status,
 * a success for another operation or authorisation, refused credentials). Nothing is recorded as
 * delivered: retrying would only repeat the surprise.
 *
 * <p>An answer about one command ({@link #aboutTheCommand()}) quarantines that command and the others go
 * on; refused credentials are about every command, so the call stops and fails loudly.
 * {@link #answer()} is what a person needs to judge it: the status and a bounded excerpt of the body,
 * stored on the quarantined command (encrypted at rest), never logged. When it ends a call it is never
 * retried by the workflow ({@link ErrorNames#TABLE}): a retry would quarantine more commands or meet the
 * same refusal, and a person must look first.
 */
public final class ProviderContractViolation extends WorkflowError {

    /** How much of an answer's body is kept on a quarantined command. */
    public static final int EXCERPT_LIMIT = 200;
    /** How much of a provider's field value a message quotes: enough to recognise it, never a payload. */
    public static final int QUOTE_LIMIT = 32;
    /** Runs of 12 to 19 digits, spaces or dashes allowed between them: what a card number (PAN) looks like. */
    private static final java.util.regex.Pattern CARD_NUMBER_LIKE = java.util.regex.Pattern.compile("\\d(?:[ -]?\\d){11,18}");

    private final boolean aboutTheCommand;
    private final String answer;

    private ProviderContractViolation(String message, boolean aboutTheCommand, String answer) {
        super(message);
        this.aboutTheCommand = aboutTheCommand;
        this.answer = answer;
    }

    /** This command's answer broke the contract: quarantine it, deliver the rest. */
    public static ProviderContractViolation ofCommand(String message, int status, String body) {
        String bounded = masked(message);
        return new ProviderContractViolation(bounded, true, bounded + " [status " + status + ", body: " + excerpt(body) + "]");
    }

    /** A provider's value as a message may quote it: printable, card-number-like runs masked, at most {@link #QUOTE_LIMIT}. */
    public static String quote(String value) {
        return bounded(masked(value), QUOTE_LIMIT);
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
        return bounded(masked(Optional.ofNullable(body).orElse("")), EXCERPT_LIMIT);
    }

    /** No card number is kept or logged, whatever a provider sends back. */
    static String masked(String text) {
        return CARD_NUMBER_LIKE.matcher(text).replaceAll("[digits masked]");
    }

    private static String bounded(String text, int limit) {
        StringBuilder out = new StringBuilder();
        text.codePoints().limit(limit).forEach(c -> out.appendCodePoint(Character.isISOControl(c) ? ' ' : c));
        return text.codePointCount(0, text.length()) > limit ? out + "…" : out.toString();
    }
}
