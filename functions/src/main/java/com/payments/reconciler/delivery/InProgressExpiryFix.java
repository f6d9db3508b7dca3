package com.payments.reconciler.delivery;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import software.amazon.awssdk.core.SdkRequest;
import software.amazon.awssdk.core.interceptor.Context;
import software.amazon.awssdk.core.interceptor.ExecutionAttributes;
import software.amazon.awssdk.core.interceptor.ExecutionInterceptor;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.PutItemRequest;

import java.time.Clock;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Works around Powertools idempotency bug #1281 (fixed upstream in 1.16.1, which we cannot use):
 * {@code DynamoDBPersistenceStore.putRecord} compares {@code in_progress_expiration}, stored in epoch
 * <em>milliseconds</em>, with {@code :now} in epoch <em>seconds</em>, so a record left INPROGRESS by an
 * invocation that timed out is never taken over, and every retry fails until the record's
 * {@code expiration} (a day here). The store cannot be subclassed, so this interceptor, on the client
 * handed to the store, rewrites that one clause of the PutItem condition to compare with
 * {@code :now_ms}, the wall clock in milliseconds at send time (Powertools computes the expiry from
 * the wall clock too). Not {@code :now * 1000}: the truncated seconds would refuse a retry for up to
 * a second after the expiry.
 *
 * <p>If an upgrade changes the expression the rewrite stops matching; that is logged once, and the
 * seeded-record test fails.
 */
public final class InProgressExpiryFix implements ExecutionInterceptor {

    private static final Logger LOG = LoggerFactory.getLogger(InProgressExpiryFix.class);
    /** The library's clause, exactly (not a prefix of {@code :now_ms}). */
    static final Pattern SECONDS_COMPARISON = Pattern.compile("#in_progress_expiry < :now(?![A-Za-z0-9_])");
    // A record left INPROGRESS may be taken over once its in-progress expiry (epoch ms) has passed.
    static final String MILLISECONDS_COMPARISON = "#in_progress_expiry < :now_ms";
    static final String NOW_MS = ":now_ms";

    private final Clock wallClock;
    private final AtomicLong rewritten = new AtomicLong();
    private final AtomicBoolean warned = new AtomicBoolean();

    public InProgressExpiryFix(Clock wallClock) {
        this.wallClock = wallClock;
    }

    @Override
    public SdkRequest modifyRequest(Context.ModifyRequest context, ExecutionAttributes attributes) {
        if (!(context.request() instanceof PutItemRequest put) || put.conditionExpression() == null) {
            return context.request();
        }
        Matcher clause = SECONDS_COMPARISON.matcher(put.conditionExpression());
        if (!clause.find()) {
            if (put.conditionExpression().contains("#in_progress_expiry") && warned.compareAndSet(false, true)) {
                LOG.warn("Powertools idempotency changed its PutItem condition; the #1281 in-progress expiry fix no longer applies");
            }
            return context.request();
        }
        Map<String, AttributeValue> values = new HashMap<>(put.expressionAttributeValues());
        values.put(NOW_MS, AttributeValue.fromN(Long.toString(wallClock.millis())));
        rewritten.incrementAndGet();
        return put.toBuilder()
                .conditionExpression(clause.replaceAll(MILLISECONDS_COMPARISON))
                .expressionAttributeValues(values)
                .build();
    }

    /** How many PutItem conditions were rewritten (zero after a Powertools change means the fix is inert). */
    public long rewritten() {
        return rewritten.get();
    }
}
