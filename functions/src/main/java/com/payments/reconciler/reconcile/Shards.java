package com.payments.reconciler.reconcile;

import java.nio.charset.StandardCharsets;
import java.util.zip.CRC32;

/**
 * Shard keys of the sparse GSIs: a pending authorisation lives in {@code pendingShard = shard(id)},
 * and its command in the same {@code deliveryShard}. Ingestion writes the key; we only read and copy it.
 */
public final class Shards {

    private Shards() {
    }

    public static String key(int shard) {
        return Integer.toString(shard);
    }

    public static int of(String authorisationId, int shards) {
        CRC32 crc = new CRC32();
        crc.update(authorisationId.getBytes(StandardCharsets.UTF_8));
        return (int) (crc.getValue() % shards);
    }
}
