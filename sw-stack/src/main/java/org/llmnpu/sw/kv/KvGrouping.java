package org.llmnpu.sw.kv;

/**
 * Which axis the quantization groups of the KV cache run along.
 * <ul>
 *   <li>{@link #HYBRID}: keys per channel (a group = G consecutive tokens of one channel), values per
 *       token (a group = G consecutive channels of one token) — KIVI / the seed's hybrid grouping;</li>
 *   <li>{@link #PER_TOKEN}: keys and values both per token;</li>
 *   <li>{@link #PER_CHANNEL}: keys and values both per channel.</li>
 * </ul>
 */
public enum KvGrouping {
    HYBRID(true, false),
    PER_TOKEN(false, false),
    PER_CHANNEL(true, true);

    private final boolean keysPerChannel;
    private final boolean valuesPerChannel;

    KvGrouping(boolean keysPerChannel, boolean valuesPerChannel) {
        this.keysPerChannel = keysPerChannel;
        this.valuesPerChannel = valuesPerChannel;
    }

    public boolean keysPerChannel() {
        return keysPerChannel;
    }

    public boolean valuesPerChannel() {
        return valuesPerChannel;
    }
}
