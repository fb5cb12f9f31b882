package org.llmnpu.sw.graph;

import static org.junit.jupiter.api.Assertions.*;

import java.util.List;
import org.junit.jupiter.api.Test;
import org.llmnpu.sw.model.ModelConfig;

class FusionPassesTest {

    /** One layer, 64 wide, 4 heads over 2 KV heads (head dim 16), FFN 96, vocab 50. */
    private static final ModelConfig ONE_LAYER = new ModelConfig(64, 96, 1, 4, 2, 50, 256);
    private static final int T = 8;
    private static final int S = 8;
    private final GraphShape shape = new GraphShape(ONE_LAYER, T, S, DType.INT4, DType.FP16);

    @Test
    void eachPassRemovesExactlyTheExpectedDispatches() {
        Schedule s = Schedule.unfused(DecoderGraphBuilder.build(shape));
        // per layer 35 ops, plus embed, final norm and the 3 ops of the LM head
        assertEquals(40, s.kernelCount());
        s = FusionPasses.horizontal(s);
        assertEquals(40 - 6 - 3, s.kernelCount(), "QKV: 9 kernels to 3; gate/up: 6 to 3");
        s = FusionPasses.vertical(s);
        assertEquals(31 - 2 - 3 - 4 - 3 - 2, s.kernelCount(), "dequant and PPM chains join their GEMMs");
        s = FusionPasses.attention(s);
        assertEquals(17 - 3, s.kernelCount(), "QK, scale/mask, SoftMax, PV become one kernel");
        assertTrue(s.isAcyclic());
    }

    @Test
    void horizontalFusionReadsTheSharedInputOnce() {
        Schedule unfused = Schedule.unfused(DecoderGraphBuilder.build(shape));
        long saved = unfused.traffic().totalBytes() - FusionPasses.horizontal(unfused).traffic().totalBytes();
        assertEquals(2L * T * 64 + (long) T * 64, saved, "two extra reads of xn (QKV) and one of xn2 (gate/up), INT8");
    }

    @Test
    void attentionFusionRemovesTheScoreMatricesFromMemory() {
        Schedule s = FusionPasses.vertical(FusionPasses.horizontal(Schedule.unfused(DecoderGraphBuilder.build(shape))));
        long before = s.traffic().intermediateBytes();
        long after = FusionPasses.attention(s).traffic().intermediateBytes();
        assertEquals(3L * 4 * T * S * 2, before - after, "scores, masked scores and probabilities, FP16, 4 heads");
    }

    @Test
    void verticalFusionReadsInt4WeightsInsteadOfWritingInt8Copies() {
        Schedule h = FusionPasses.horizontal(Schedule.unfused(DecoderGraphBuilder.build(shape)));
        Schedule v = FusionPasses.vertical(h);
        long weightParams = 64L * 64 + 2 * 32 * 64 + 64 * 64 + 2 * 96 * 64 + 64 * 96 + 50 * 64;
        long accBytes = 4L * T * (64 + 32 + 32 + 64 + 96 + 96 + 64 + 50);
        // FP16 outputs consumed only inside the fused kernels: o (Wo), gate, up, SiLU(gate), down (W2);
        // q, k, v still leave for RoPE and the KV write, h (INT8) for the W2 GEMM
        long requantOut = (long) T * 2 * (64 + 96 + 96 + 96 + 64);
        assertEquals(weightParams + accBytes + requantOut, h.traffic().intermediateBytes() - v.traffic().intermediateBytes(),
                "INT8 weight copies, INT32 accumulators and PPM-chain outputs (incl. gate activation) stay on chip");
    }

    @Test
    void noPassMakesTheEstimatedTimeWorseAndAttentionFusionHelpsPrefill() {
        LatencyModel npu = LatencyModel.mobileNpu();
        GraphShape prefill = GraphShape.prefill(ONE_LAYER, 64, DType.INT4);
        Schedule s = Schedule.unfused(DecoderGraphBuilder.build(prefill));
        double unfused = npu.seconds(s, prefill);
        double horizontal = npu.seconds(s = FusionPasses.horizontal(s), prefill);
        double vertical = npu.seconds(s = FusionPasses.vertical(s), prefill);
        double attention = npu.seconds(FusionPasses.attention(s), prefill);
        assertTrue(horizontal <= unfused && vertical <= horizontal && attention < vertical,
                unfused + " " + horizontal + " " + vertical + " " + attention);
        assertEquals(40 * 10e-6, unfused, unfused * 0.9, "dispatch overhead is a visible share of a tiny graph");
    }

    @Test
    void aBandwidthBoundKernelTakesBytesOverBandwidth() {
        Graph g = new Graph();
        Tensor in = new Tensor("in", new long[] {1_000_000}, DType.INT8, true);
        g.add("copy", OpKind.ADD, new Tensor("out", new long[] {1_000_000}, DType.INT8, true), in);
        LatencyModel m = new LatencyModel(1.0, 32, 32, 1_000_000, 1.0, 0);
        assertEquals(2e6 / 1e9, m.seconds(Schedule.unfused(g), GraphShape.decode(ONE_LAYER, 1, DType.INT8)), 1e-12);
    }

    @Test
    void twoFourWeightsStoreHalfTheValuesPlusTwoBitIndicesAndHalveTheMacTime() {
        GraphShape dense = new GraphShape(ONE_LAYER, 64, 64, DType.INT8, DType.FP16);
        GraphShape sparse = dense.withSparsity(org.llmnpu.numerics.sparse.NmPattern.TWO_FOUR);
        long denseWeights = weightBytes(Schedule.unfused(DecoderGraphBuilder.build(dense)));
        long sparseWeights = weightBytes(Schedule.unfused(DecoderGraphBuilder.build(sparse)));
        assertEquals(denseWeights / 2 + denseWeights / 2 / 4, sparseWeights, "INT8 values of half the weights + 2 bits each");
        LatencyModel computeBound = new LatencyModel(1e6, 4, 4, 1_000_000, 1.0, 0);
        double d = computeBound.seconds(Schedule.unfused(DecoderGraphBuilder.build(dense)), dense);
        double s = computeBound.seconds(Schedule.unfused(DecoderGraphBuilder.build(sparse)), sparse);
        assertTrue(s < 0.75 * d, "zero-skipping: " + s + " vs " + d);
    }

    private static long weightBytes(Schedule s) {
        long b = 0;
        for (Op op : s.graph().ops()) {
            if (op.kind() == OpKind.DEQUANT) {
                for (Tensor t : op.inputs()) {
                    b += t.bytes();
                }
            }
        }
        return b;
    }

    @Test
    void aMergeThatWouldCreateACycleIsRefused() {
        Graph g = new Graph();
        Tensor in = new Tensor("in", new long[] {4}, DType.FP16, true);
        Tensor a = g.add("a", OpKind.ADD, new Tensor("a", new long[] {4}, DType.FP16, false), in);
        Tensor b = g.add("b", OpKind.RMSNORM, new Tensor("b", new long[] {4}, DType.FP16, false), a);
        g.add("c", OpKind.ADD, new Tensor("c", new long[] {4}, DType.FP16, true), a, b);
        Schedule s = Schedule.unfused(g);
        List<Op> ops = g.ops();
        assertTrue(s.merge(List.of(ops.get(0), ops.get(2))).isEmpty(), "a and c cannot form a kernel without b");
        assertTrue(s.merge(List.of(ops.get(0), ops.get(1), ops.get(2))).isPresent());
    }

    @Test
    void decodeGraphWritesOneTokenOfKvAndReadsTheWholeCache() {
        GraphShape decode = GraphShape.decode(ONE_LAYER, 100, DType.INT8);
        Schedule s = Schedule.unfused(DecoderGraphBuilder.build(decode));
        long kvWritten = 0;
        long kvRead = 0;
        for (List<Op> k : s.kernels()) {
            for (Tensor t : s.kernelWrites(k)) {
                kvWritten += t.name().contains("cache") ? t.bytes() : 0;
            }
            for (Tensor t : s.kernelReads(k)) {
                kvRead += t.name().contains("cache") ? t.bytes() : 0;
            }
        }
        assertEquals(2L * 32 * 2, kvWritten, "K and V of one token, kvDim 32, FP16");
        assertEquals(2L * 100 * 32 * 2, kvRead, "QK reads all 100 keys, PV all 100 values");
    }
}
