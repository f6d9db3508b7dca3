package com.payments.reconciler.cdk;

import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * "Bring your own tables" (docs/integration.md): a card platform's existing Authorisations and Settlements tables,
 * which the stack then imports and grants on, and never creates. Both or neither: half the business state in the
 * platform's tables and half in ours would split one night's reads across two sources.
 *
 * @param authorisationsTableArn the Authorisations table (must have the {@code pending-by-age} index)
 * @param settlementsTableArn the Settlements table
 * @param keyArn the customer-managed KMS key the two tables are encrypted with, if any (the functions then get the
 *               table-key uses through DynamoDB on it, as on the stack's own data key)
 */
public record ExistingTables(String authorisationsTableArn, String settlementsTableArn, Optional<String> keyArn) {

    /** A DynamoDB table ARN: partition, region, account and a table name DynamoDB accepts. */
    static final Pattern TABLE_ARN = Pattern.compile("arn:aws[a-z-]*:dynamodb:[a-z0-9-]+:\\d{12}:table/([A-Za-z0-9_.-]{3,255})");
    static final Pattern KEY_ARN = Pattern.compile("arn:aws[a-z-]*:kms:[a-z0-9-]+:\\d{12}:key/[a-f0-9-]{36}");
    static final String TABLE_FORM = "a DynamoDB table ARN such as arn:aws:dynamodb:eu-west-1:123456789012:table/payments-authorisations";

    public ExistingTables {
        tableName(authorisationsTableArn, StackConfig.AUTHORISATIONS_TABLE_ARN);
        tableName(settlementsTableArn, StackConfig.SETTLEMENTS_TABLE_ARN);
        keyArn.ifPresent(key -> {
            if (!KEY_ARN.matcher(key).matches()) {
                throw new InvalidContext(StackConfig.BUSINESS_TABLES_KEY_ARN, "must be a KMS key ARN such as "
                        + "arn:aws:kms:eu-west-1:123456789012:key/1234abcd-12ab-34cd-56ef-1234567890ab, or empty for a table "
                        + "encrypted with an AWS owned or AWS managed key, was '" + key + "'");
            }
        });
    }

    /** From the three context values (null when unset): empty when neither table is given. */
    static Optional<ExistingTables> fromContext(String authorisations, String settlements, String key) {
        if (authorisations == null && settlements == null) {
            if (key != null) {
                throw new InvalidContext(StackConfig.BUSINESS_TABLES_KEY_ARN, "is only used with " + StackConfig.AUTHORISATIONS_TABLE_ARN
                        + " and " + StackConfig.SETTLEMENTS_TABLE_ARN + "; set both tables or none, was '" + key + "'");
            }
            return Optional.empty();
        }
        if (authorisations == null || settlements == null) {
            String missing = authorisations == null ? StackConfig.AUTHORISATIONS_TABLE_ARN : StackConfig.SETTLEMENTS_TABLE_ARN;
            throw new InvalidContext(missing, "must be set too: bring both business tables (" + StackConfig.AUTHORISATIONS_TABLE_ARN
                    + ", " + StackConfig.SETTLEMENTS_TABLE_ARN + ") or neither, and the stack creates both");
        }
        return Optional.of(new ExistingTables(authorisations, settlements, Optional.ofNullable(key)));
    }

    public String authorisationsTableName() {
        return tableName(authorisationsTableArn, StackConfig.AUTHORISATIONS_TABLE_ARN);
    }

    public String settlementsTableName() {
        return tableName(settlementsTableArn, StackConfig.SETTLEMENTS_TABLE_ARN);
    }

    private static String tableName(String arn, String key) {
        Matcher m = arn == null ? null : TABLE_ARN.matcher(arn);
        if (m == null || !m.matches()) {
            throw new InvalidContext(key, "must be " + TABLE_FORM + ", was '" + arn + "'");
        }
        return m.group(1);
    }
}
