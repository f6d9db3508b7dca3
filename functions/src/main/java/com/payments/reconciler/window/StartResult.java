package com.payments.reconciler.window;

import java.util.List;

/**
 * What starting a window did: started a new execution, or recognised a duplicate start (the same
 * occurrence delivered again, or a start of a window that already ran) and suppressed it.
 *
 * @param inputHash sha256 of the input this start asked for
 * @param existingInputHash sha256 of the existing execution's input, for a suppressed duplicate
 * @param differingFields execution-input fields that differ from the existing execution's (configuration changed)
 * @param existingStatus the existing execution's status, for a suppressed duplicate
 */
public record StartResult(String windowId, String executionName, String executionArn, boolean started,
                          boolean duplicateSuppressed, String inputHash, String existingInputHash,
                          List<String> differingFields, String existingStatus) {

    public StartResult {
        differingFields = differingFields == null ? List.of() : List.copyOf(differingFields);
    }
}
