package com.payments.reconciler.harness.bench;

/**
 * Public on-demand prices, us-east-1 (AWS price pages as read on 2026-12-03; DynamoDB's on-demand
 * prices are those after the November 2024 reduction). Transactional writes are 2 WRU per item up to
 * 1 KB (ConditionCheck items counted the same way); eventually consistent reads 0.5 RRU per 4 KB.
 */
public record Prices(double perStateTransition, double perLambdaRequest, double perLambdaGbSecondArm64,
                     double perWriteRequestUnit, double perReadRequestUnit, double perSqsStandardRequest) {

    /** SQS standard queue: $0.40 per million requests beyond the free tier's first million a month (each 64 KB chunk is one). */
    public static final Prices US_EAST_1 = new Prices(0.025 / 1_000, 0.20 / 1_000_000, 0.0000133334,
            0.625 / 1_000_000, 0.125 / 1_000_000, 0.40 / 1_000_000);

    /** One night's bill in dollars, by service. */
    public record Night(double stepFunctions, double lambda, double dynamodb, double total) {
        Night(double stepFunctions, double lambda, double dynamodb) {
            this(stepFunctions, lambda, dynamodb, stepFunctions + lambda + dynamodb);
        }
    }

    /** A million ingested events' bill in dollars, by service (free tiers left out). */
    public record Ingestion(double dynamodb, double sqs, double lambdaRequests, double lambdaCompute, double total) {
        Ingestion(double dynamodb, double sqs, double lambdaRequests, double lambdaCompute) {
            this(dynamodb, sqs, lambdaRequests, lambdaCompute, dynamodb + sqs + lambdaRequests + lambdaCompute);
        }
    }

    public Ingestion ingestion(double writeUnits, double readUnits, double sqsRequests, double lambdaRequests, double gigabyteSeconds) {
        return new Ingestion(writeUnits * perWriteRequestUnit + readUnits * perReadRequestUnit, sqsRequests * perSqsStandardRequest,
                lambdaRequests * perLambdaRequest, gigabyteSeconds * perLambdaGbSecondArm64);
    }

    public Night night(double transitions, double lambdaRequests, double gigabyteSeconds, double writeUnits, double readUnits) {
        return new Night(transitions * perStateTransition,
                lambdaRequests * perLambdaRequest + gigabyteSeconds * perLambdaGbSecondArm64,
                writeUnits * perWriteRequestUnit + readUnits * perReadRequestUnit);
    }
}
