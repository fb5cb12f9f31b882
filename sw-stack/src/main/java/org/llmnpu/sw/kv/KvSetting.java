package org.llmnpu.sw.kv;

import java.util.Optional;

/** A KV-cache compression setting: optional quantization, optional eviction at prefill. */
public record KvSetting(Optional<KvQuantConfig> quant, Optional<EvictionConfig> eviction) {

    public static KvSetting full() {
        return new KvSetting(Optional.empty(), Optional.empty());
    }

    public static KvSetting of(KvQuantConfig q, EvictionConfig e) {
        return new KvSetting(Optional.ofNullable(q), Optional.ofNullable(e));
    }

    @Override
    public String toString() {
        if (quant.isEmpty() && eviction.isEmpty()) {
            return "full cache";
        }
        return quant.map(KvQuantConfig::toString).orElse("FP16") + eviction.map(e -> " + " + e).orElse("");
    }
}
