package org.llmnpu.sw.bench;

import org.llmnpu.numerics.sparse.NmPattern;
import org.llmnpu.sw.graph.DType;
import org.llmnpu.sw.graph.DecoderGraphBuilder;
import org.llmnpu.sw.graph.FusionPasses;
import org.llmnpu.sw.graph.LatencyModel;
import org.llmnpu.sw.graph.Schedule;
import org.llmnpu.sw.graph.GraphShape;
import org.llmnpu.sw.graph.PassReport;
import org.llmnpu.sw.graph.TilingConfig;
import org.llmnpu.sw.model.ModelConfig;

/**
 * Fusion/tiling figures of the sw-stack README (issue 7): kernels, intermediate and total off-chip
 * bytes per token after each pass, prefill (SLP 256) and decode (context 2048), INT4 weights, FP16 KV,
 * 32x32 array, 512 KiB SRAM; times from {@code LatencyModel.mobileNpu()}; then the fused graph's
 * time per weight format (FP16, INT8, INT4, with and without N:M sparsity). Run: {@code java -cp ... org.llmnpu.sw.bench.PassesFigures}.
 */
public final class PassesFigures {

    public static void main(String[] args) {
        for (String name : new String[] {"tiny", "medium"}) {
            ModelConfig c = ModelConfig.named(name);
            PassReport.Report r = PassReport.run(GraphShape.prefill(c, 256, DType.INT4), GraphShape.decode(c, 2048, DType.INT4),
                    TilingConfig.ofKib(512, 32, 32));
            System.out.printf("%n### %s (INT4 weights, FP16 KV, 32x32 array, 512 KiB SRAM)%n%n", name);
            System.out.println("| phase | stage | kernels | intermediate KiB/token | total off-chip KiB/token | estimated ms |");
            System.out.println("|---|---|---|---|---|---|");
            for (PassReport.Row row : r.rows()) {
                System.out.printf("| %s | %s | %d | %.1f | %.1f | %.3f |%n", row.phase(), row.stage(), row.kernels(),
                        row.intermediateBytesPerToken() / 1024, row.totalBytesPerToken() / 1024, row.estimatedMillis());
            }
            System.out.println();
            System.out.println("prefill tiles: " + String.join("; ", r.prefillTiles()));
            System.out.println("decode tiles: " + String.join("; ", r.decodeTiles()));
            weightFormats(c, name);
        }
    }

    /** Fused-graph time per weight format: prefill of 256 tokens and one decode step at context 256. */
    private static void weightFormats(ModelConfig c, String name) {
        System.out.printf("%n#### %s: weight formats, fused graph (estimated ms, LatencyModel.mobileNpu())%n%n", name);
        System.out.println("| weights | prefill L=256 ms | vs INT8 | decode @256 ms | vs INT8 | decode off-chip KiB/token |");
        System.out.println("|---|---|---|---|---|---|");
        LatencyModel npu = LatencyModel.mobileNpu();
        double[] int8 = null;
        String[] names = {"INT8", "FP16", "INT4", "INT8 + 2:4", "INT4 + 2:4", "INT8 + 4:8"};
        DType[] types = {DType.INT8, DType.FP16, DType.INT4, DType.INT8, DType.INT4, DType.INT8};
        NmPattern[] sparsity = {null, null, null, NmPattern.TWO_FOUR, NmPattern.TWO_FOUR, NmPattern.FOUR_EIGHT};
        for (int i = 0; i < names.length; i++) {
            GraphShape pre = GraphShape.prefill(c, 256, types[i]);
            GraphShape dec = GraphShape.decode(c, 256, types[i]);
            if (sparsity[i] != null) {
                pre = pre.withSparsity(sparsity[i]);
                dec = dec.withSparsity(sparsity[i]);
            }
            Schedule fp = fused(pre);
            Schedule fd = fused(dec);
            double[] t = {npu.seconds(fp, pre) * 1e3, npu.seconds(fd, dec) * 1e3};
            if (int8 == null) {
                int8 = t;
            }
            System.out.printf("| %s | %.3f | %+.0f %% | %.3f | %+.0f %% | %.1f |%n", names[i], t[0], 100 * (t[0] / int8[0] - 1),
                    t[1], 100 * (t[1] / int8[1] - 1), fd.traffic().totalBytes() / 1024.0);
        }
    }

    private static Schedule fused(GraphShape shape) {
        return FusionPasses.attention(FusionPasses.vertical(FusionPasses.horizontal(Schedule.unfused(DecoderGraphBuilder.build(shape)))));
    }
}
