package com.payments.reconciler.harness;

import com.payments.reconciler.local.faults.DynamoFaults;
import com.payments.reconciler.local.faults.FaultSpec;
import com.payments.reconciler.local.provider.ProviderFaults;
import java.time.Duration;
import java.util.List;

/** Maps {@code --faults} onto the local engines' two fault layers (DynamoDB interceptor, simulated provider). */
final class FaultFlags {

    /** How late a "slow" provider answer is: long enough to matter, well inside the client's request timeout. */
    static final Duration PROVIDER_SLOW_DELAY = Duration.ofMillis(800);

    private FaultFlags() {
    }

    static LocalCommand.LocalFaults parse(String text, long seed) {
        // FaultSpec's messages name --faults already.
        FaultSpec spec = FaultSpec.parse(text);
        List<software.amazon.awssdk.core.interceptor.ExecutionInterceptor> dynamo = spec.anyDynamoFaults()
                ? List.of(dynamoFaults(spec, seed)) : List.of();
        ProviderFaults provider = new ProviderFaults(spec.providerDrop(), spec.provider5xx(), spec.providerSlow(), PROVIDER_SLOW_DELAY, seed,
                spec.providerMalformed());
        return new LocalCommand.LocalFaults(dynamo, provider);
    }

    /** The DynamoDB part of a spec, on the wall clock (the token window is real time locally). */
    static DynamoFaults dynamoFaults(FaultSpec spec, long seed) {
        return DynamoFaults.from(spec, seed, java.time.InstantSource.system());
    }
}
