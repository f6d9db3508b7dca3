package com.payments.reconciler.audit;

import com.fasterxml.jackson.databind.JsonNode;

/**
 * One write the store applied, in apply order, as DynamoDB's JSON wire request and response.
 * Locally the engine's write log supplies these; on AWS, a DynamoDB stream or CloudTrail data events could.
 */
public record AppliedWrite(long seq, String operation, JsonNode request, JsonNode response) {
}
