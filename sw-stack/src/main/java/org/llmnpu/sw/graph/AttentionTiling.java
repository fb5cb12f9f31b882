package org.llmnpu.sw.graph;

/**
 * Block sizes of the fused attention kernel (online SoftMax) for T queries over S keys per KV head,
 * with the {@code g} query heads of a GQA group processed together. Traffic per KV head: Q and O once,
 * K and V once per block of {@code br} query rows. SRAM: Q block (FP16), double-buffered K and V blocks
 * of {@code bc} keys (KV type), FP32 scores, FP32 output accumulators and the running max/sum —
 * {@code g·br·d·2 + 2·2·bc·d·kv + g·br·bc·4 + g·br·d·4 + g·br·8 ≤ SRAM}. Exhaustive search over powers
 * of two and the full lengths, minimizing traffic, then preferring larger blocks.
 */
public final class AttentionTiling {

    /** Chosen blocks and the traffic per layer (all KV heads). */
    public record Blocks(long br, long bc, double trafficBytes) {
    }

    private AttentionTiling() {
    }

    public static Blocks search(long t, long s, int headDim, int groupSize, int kvHeads, double kvBytes, TilingConfig cfg) {
        Blocks best = null;
        for (long br : GemmTiling.candidates(t, 1)) {
            for (long bc : GemmTiling.candidates(s, 16)) {
                double sram = groupSize * br * headDim * 2.0 + 2 * 2 * bc * headDim * kvBytes + groupSize * br * bc * 4.0
                        + groupSize * br * headDim * 4.0 + groupSize * br * 8.0;
                if (sram > cfg.sramBytes()) {
                    continue;
                }
                double perHead = groupSize * t * headDim * 2.0 * 2 + 2.0 * s * headDim * kvBytes * GemmTiling.ceil(t, br);
                double traffic = perHead * kvHeads;
                if (best == null || traffic < best.trafficBytes - 1e-9
                        || (Math.abs(traffic - best.trafficBytes) <= 1e-9 && br * bc > best.br * best.bc)) {
                    best = new Blocks(br, bc, traffic);
                }
            }
        }
        if (best == null) {
            throw new IllegalArgumentException("SRAM of " + cfg.sramBytes() + " bytes cannot hold one attention block of head dim " + headDim);
        }
        return best;
    }
}
