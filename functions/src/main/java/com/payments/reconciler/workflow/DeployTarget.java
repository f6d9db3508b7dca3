package com.payments.reconciler.workflow;

import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * What a deploy target must offer, checked at synth by the CDK app and before a deploy by the operator's
 * pre-flight: one definition of the regions where Lambda SnapStart for Java is not offered and of the
 * placeholder provider URL the committed settings carry.
 */
public final class DeployTarget {

    private DeployTarget() {
    }

    /**
     * Regions where the Lambda Developer Guide ("Improving startup performance with Lambda SnapStart", section
     * "Supported Regions") says SnapStart for Java is not offered, with their names as the guide gives them. Every
     * function of the stack is SnapStart-enabled, so a deploy there fails at the first function.
     */
    public static final Map<String, String> SNAPSTART_JAVA_NOT_OFFERED = Map.of(
            "ap-southeast-6", "Asia Pacific (New Zealand)",
            "ap-east-2", "Asia Pacific (Taipei)");

    /** Partitions other than the commercial one: the guide's list covers commercial Regions only. */
    public static final List<String> NON_COMMERCIAL_PREFIXES = List.of("cn-", "us-gov-", "us-iso", "eusc-");

    /** The committed default of the provider's URL: a placeholder, never a provider. */
    public static final String PLACEHOLDER_PROVIDER_BASE_URL = "https://provider.example/api";

    /** Why SnapStart (Java) cannot be used in {@code region}, or empty when the guide offers it there. */
    public static Optional<String> snapStartRefusal(String region) {
        String name = SNAPSTART_JAVA_NOT_OFFERED.get(region);
        if (name != null) {
            return Optional.of("Lambda SnapStart for Java is not offered in " + region + " (" + name + "), and every function of "
                    + "the stack uses it; deploy to another region (AWS_REGION / the profile's region)");
        }
        if (NON_COMMERCIAL_PREFIXES.stream().anyMatch(region::startsWith)) {
            return Optional.of("region " + region + " is outside the commercial partition, for which alone the Lambda "
                    + "Developer Guide lists SnapStart for Java; deploy to a commercial region (AWS_REGION / the profile's region)");
        }
        return Optional.empty();
    }
}
