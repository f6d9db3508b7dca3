package com.payments.reconciler.cli;

import com.payments.reconciler.ingest.CardDataScreen;
import com.payments.reconciler.ingest.EventDecoder;
import java.util.Optional;

/**
 * A provider's reference given on the command line: the contract's form for provider ids, and never a card number — an
 * Adyen pspReference (16 characters A-Z 0-9, possibly all digits) excepted, as where the event contract carries one.
 */
final class ProviderReferences {

    static final String FORM = EventDecoder.PROVIDER_REFERENCE_CHARACTERS;

    private ProviderReferences() {
    }

    static Optional<String> optional(String flag) {
        if (flag == null) {
            return Optional.empty();
        }
        if (!EventDecoder.PROVIDER_REFERENCE_FORM.matcher(flag).matches()) {
            throw new IllegalArgumentException("--provider-reference must be " + FORM + " (the provider's id for the release), was '"
                    + (CardDataScreen.containsCardNumber(flag) ? "(withheld: it looks like a card number)" : flag) + "'; nothing was written");
        }
        if (!flag.matches(CardDataScreen.ADYEN_PSP_REFERENCE) && CardDataScreen.containsCardNumber(flag)) {
            throw new IllegalArgumentException("--provider-reference must not be a card number (it is a Luhn-valid run of 12-19 "
                    + "digits); give the provider's id for the release; nothing was written");
        }
        return Optional.of(flag);
    }
}
