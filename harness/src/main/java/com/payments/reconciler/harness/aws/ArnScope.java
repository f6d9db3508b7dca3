package com.payments.reconciler.harness.aws;

import java.util.Map;
import java.util.Optional;
import java.util.function.Function;

/**
 * What turning request parameters into ARNs needs beyond the request: the account (a table name carries
 * none) and the secrets' ARNs by name (a secret's ARN ends in a random suffix the name does not give; a
 * lookup, because a local secret may be created after the recorder starts).
 */
public record ArnScope(String partition, String accountId, Function<String, Optional<String>> secretArnByName) {

    public static ArnScope of(String accountId, Map<String, String> secretArnsByName) {
        Map<String, String> copy = Map.copyOf(secretArnsByName);
        return new ArnScope("aws", accountId, name -> Optional.ofNullable(copy.get(name)));
    }

    Optional<String> secretArn(String name) {
        return secretArnByName.apply(name);
    }
}
