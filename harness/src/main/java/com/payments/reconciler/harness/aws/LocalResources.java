package com.payments.reconciler.harness.aws;

import java.util.Map;
import java.util.Optional;

/**
 * What the template's logical ids and pseudo parameters stand for locally: built by the local runner from
 * the tables, state machine, secret, queues and keys it created, so the template's intrinsics resolve to
 * the local engines' names and ARNs.
 *
 * @param resources logical id → its local counterpart
 * @param region {@code AWS::Region}
 * @param accountId {@code AWS::AccountId}
 * @param partition {@code AWS::Partition}
 * @param urlSuffix {@code AWS::URLSuffix}
 */
public record LocalResources(Map<String, Resource> resources, String region, String accountId, String partition,
                             String urlSuffix) {

    /** moto's default account: the ARNs it returns carry it. */
    public static final String MOTO_ACCOUNT = "123456789012";
    /**
     * The prefix of the local run's ingestion queues ({@code local-ingest-events}, {@code local-ingest-events-dlq},
     * {@code local-ingest-events-refused}): the template's dead-letter and refused-events queues resolve to the local ones,
     * which the functions' environments name.
     */
    public static final String LOCAL_QUEUE_PREFIX = "local-";

    public LocalResources {
        resources = Map.copyOf(resources);
    }

    public static LocalResources of(Map<String, Resource> resources, String region, String accountId) {
        return new LocalResources(resources, region, accountId, "aws", "amazonaws.com");
    }

    public Optional<Resource> resource(String logicalId) {
        return Optional.ofNullable(resources.get(logicalId));
    }

    /**
     * One local resource.
     *
     * @param ref what {@code Ref} returns (a table's name, a state machine's or secret's ARN, ...)
     * @param attributes what {@code Fn::GetAtt} returns, by attribute name ({@code Arn}, {@code StreamArn}, ...)
     */
    public record Resource(String ref, Map<String, String> attributes) {
        public Resource {
            attributes = Map.copyOf(attributes);
        }

        public static Resource of(String ref, String arn) {
            return new Resource(ref, Map.of("Arn", arn));
        }
    }
}
