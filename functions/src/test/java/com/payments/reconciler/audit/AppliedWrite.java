package com.payments.reconciler.audit;

import com.fasterxml.jackson.databind.JsonNode;

import java.util.ArrayList;
import java.util.List;

/**
 * One write the store applied, in apply order, as DynamoDB's JSON wire request and response, with every
 * item it named and that item's stored image just before and just after it was applied. The audit decides
 * from the images (what was applied), not from the request's text. Locally the engine's write log supplies
 * these; on AWS, a DynamoDB stream with NEW_AND_OLD_IMAGES (plus CloudTrail data events for the
 * transaction's ConditionChecks) could.
 */
public record AppliedWrite(long seq, String operation, JsonNode request, JsonNode response, List<WrittenItem> items) {

    public AppliedWrite {
        items = List.copyOf(items);
    }

    /**
     * One item a write named: its table, key, and stored image before and after (DynamoDB JSON maps; null where
     * the item did not exist).
     */
    public record WrittenItem(String table, JsonNode key, JsonNode oldImage, JsonNode newImage) {

        public WrittenItem {
            oldImage = absentAsNull(oldImage);
            newImage = absentAsNull(newImage);
        }

        private static JsonNode absentAsNull(JsonNode image) {
            return image == null || image.isNull() || image.isMissingNode() ? null : image;
        }
    }

    /** From the engine's log entry, whose {@code items} are {@code [{"table","key","old","new"}]}. */
    public static AppliedWrite fromLog(long seq, String operation, JsonNode request, JsonNode response, JsonNode items) {
        List<WrittenItem> written = new ArrayList<>();
        for (JsonNode item : items) {
            written.add(new WrittenItem(item.path("table").asText(), item.path("key"), item.get("old"), item.get("new")));
        }
        return new AppliedWrite(seq, operation, request, response, written);
    }
}
