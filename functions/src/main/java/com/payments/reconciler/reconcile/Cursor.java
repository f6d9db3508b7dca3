package com.payments.reconciler.reconcile;

import com.payments.reconciler.store.Tables.Authorisations;
import com.payments.reconciler.workflow.InvalidInput;
import java.util.Map;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;

/**
 * Where the reconcile loop resumes: a shard of the {@code pending-by-age} index and, within it, the
 * last index entry already decided. Readable in the console (no opaque token), and small: the
 * workflow's state never carries more than this, whatever the window's size.
 *
 * @param shard the shard being read
 * @param afterAuthorisedAt with {@code afterAuthorisationId}, the last entry decided; both null at the shard's start
 */
public record Cursor(Integer shard, Long afterAuthorisedAt, String afterAuthorisationId) {

    public Cursor {
        if (shard == null || shard < 0) {
            throw new InvalidInput("page.cursor.shard", "required, an integer >= 0, was " + shard);
        }
        if ((afterAuthorisedAt == null) != (afterAuthorisationId == null)) {
            throw new InvalidInput("page.cursor", "afterAuthorisedAt and afterAuthorisationId go together (both or neither)");
        }
        if (afterAuthorisationId != null && afterAuthorisationId.isBlank()) {
            throw new InvalidInput("page.cursor.afterAuthorisationId", "must be a non-empty authorisation id");
        }
    }

    public static Cursor startOf(int shard) {
        return new Cursor(shard, null, null);
    }

    public static Cursor after(Candidate decided, int shard) {
        return new Cursor(shard, decided.authorisedAt().toEpochMilli(), decided.authorisationId());
    }

    /** The index's exclusive start key (table key + index key), or empty at the shard's start. */
    public Map<String, AttributeValue> startKey() {
        if (afterAuthorisationId == null) {
            return Map.of();
        }
        return Map.of(Authorisations.AUTHORISATION_ID, AttributeValue.fromS(afterAuthorisationId),
                Authorisations.PENDING_SHARD, AttributeValue.fromS(Shards.key(shard)),
                Authorisations.AUTHORISED_AT, AttributeValue.fromN(Long.toString(afterAuthorisedAt)));
    }

    /** Resumes after an index key DynamoDB returned as LastEvaluatedKey. */
    public static Cursor fromLastEvaluatedKey(int shard, Map<String, AttributeValue> key) {
        return new Cursor(shard, Long.parseLong(key.get(Authorisations.AUTHORISED_AT).n()),
                key.get(Authorisations.AUTHORISATION_ID).s());
    }
}
