package org.llmnpu.sw.bench;

import org.llmnpu.sw.graph.DType;
import org.llmnpu.sw.graph.GraphShape;
import org.llmnpu.sw.graph.PassReport;
import org.llmnpu.sw.graph.TilingConfig;
import org.llmnpu.sw.model.ModelConfig;

/**
 * Fusion/tiling figures of the sw-stack README (issue 7): kernels, intermediate and total off-chip
 * bytes per token after each pass, prefill (SLP 256) and decode (context 2048), INT4 weights, FP16 KV,
 * 32x32 array, 512 KiB SRAM; times from {@code LatencyModel.mobileNpu()}. Run: {@code java -cp ... org.llmnpu.sw.bench.PassesFigures}.
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
        }
    }
}
