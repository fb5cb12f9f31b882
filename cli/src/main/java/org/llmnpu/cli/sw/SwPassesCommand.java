package org.llmnpu.cli.sw;

import java.util.Locale;
import java.util.concurrent.Callable;
import org.llmnpu.sw.graph.DType;
import org.llmnpu.sw.graph.GraphShape;
import org.llmnpu.sw.graph.PassReport;
import org.llmnpu.sw.graph.TilingConfig;
import org.llmnpu.sw.model.ModelConfig;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code npu sw passes}: builds the prefill and decode graphs of a model, runs horizontal, vertical and
 * attention fusion, tiles the result for the SRAM, and prints kernels, intermediate bytes, total
 * off-chip traffic (also per token) and an estimated time ({@code LatencyModel}) after each pass.
 */
@Command(name = "passes", mixinStandardHelpOptions = true,
        description = "Fusion and tiling passes: dispatches and off-chip traffic before and after each pass.")
public final class SwPassesCommand implements Callable<Integer> {

    @Option(names = "--model", defaultValue = "tiny", description = "stories260K (the shipped real model's shape), tiny, "
            + "medium or a Hugging Face model directory (its config.json) (default ${DEFAULT-VALUE}).")
    String model;

    @Option(names = "--sram-kib", defaultValue = "512", description = "On-chip SRAM in KiB (default ${DEFAULT-VALUE}).")
    int sramKib;

    @Option(names = "--array", defaultValue = "32x32", description = "MAC array rows x columns (default ${DEFAULT-VALUE}).")
    String array;

    @Option(names = "--prefill", defaultValue = "256", description = "Prefill length SLP (default ${DEFAULT-VALUE}).")
    int prefill;

    @Option(names = "--context", defaultValue = "2048", description = "KV length seen by the decode graph (default ${DEFAULT-VALUE}).")
    int context;

    @Option(names = "--weight-type", defaultValue = "int4", description = "Stored weights: int4, int8 or fp16 (default ${DEFAULT-VALUE}).")
    String weightType;

    @Option(names = "--sparsity", description = "N:M weights (2:4 or 4:8): compressed storage and zero-skipping.")
    String sparsity;

    @Option(names = "--bandwidth-gbs", defaultValue = "25.6", description = "Off-chip bandwidth in GB/s for the time estimate (default ${DEFAULT-VALUE}).")
    double bandwidth;

    @Option(names = "--clock-ghz", defaultValue = "1.0", description = "NPU clock in GHz for the time estimate (default ${DEFAULT-VALUE}).")
    double clock;

    @Option(names = "--dispatch-us", defaultValue = "10", description = "Overhead per kernel dispatch in µs (default ${DEFAULT-VALUE}).")
    double dispatch;

    @Option(names = "--json", description = "Print JSON instead of text.")
    boolean json;

    @Override
    public Integer call() throws Exception {
        PassReport.Report report;
        try {
            ModelConfig c = BadParameter.modelConfig(model);
            DType w = BadParameter.parse("--weight-type", () -> switch (weightType.toLowerCase(Locale.ROOT)) {
                case "int4" -> DType.INT4;
                case "int8" -> DType.INT8;
                case "fp16" -> DType.FP16;
                default -> throw new IllegalArgumentException("must be int4, int8 or fp16, got '" + weightType + "'");
            });
            if (sramKib < 1) {
                throw new BadParameter("--sram-kib: must be >= 1 KiB, got " + sramKib);
            }
            String[] rc = array.toLowerCase(Locale.ROOT).split("x");
            TilingConfig tiling = BadParameter.parse("--array", () -> {
                if (rc.length != 2) {
                    throw new IllegalArgumentException("array must look like 32x32, got '" + array + "'");
                }
                try {
                    return TilingConfig.ofKib(sramKib, Integer.parseInt(rc[0]), Integer.parseInt(rc[1]));
                } catch (NumberFormatException e) {
                    throw new IllegalArgumentException("array must look like 32x32, got '" + array + "'");
                }
            });
            if (context > c.maxSeqLen() || prefill > c.maxSeqLen()) {
                throw new BadParameter("--prefill/--context: " + Math.max(prefill, context) + " tokens exceed the maximum sequence length "
                        + c.maxSeqLen() + " of " + model);
            }
            GraphShape pre0 = BadParameter.parse("--prefill", () -> GraphShape.prefill(c, prefill, w));
            GraphShape dec0 = BadParameter.parse("--context", () -> GraphShape.decode(c, context, w));
            var pattern = sparsity == null ? null
                    : BadParameter.parse("--sparsity", () -> org.llmnpu.numerics.sparse.NmPattern.parse(sparsity));
            GraphShape pre = pattern == null ? pre0 : pre0.withSparsity(pattern);
            GraphShape dec = pattern == null ? dec0 : dec0.withSparsity(pattern);
            if (!(bandwidth > 0)) {
                throw new BadParameter("--bandwidth-gbs: must be > 0 GB/s, got " + bandwidth);
            }
            if (!(clock > 0)) {
                throw new BadParameter("--clock-ghz: must be > 0 GHz, got " + clock);
            }
            if (!(dispatch >= 0)) {
                throw new BadParameter("--dispatch-us: must be >= 0 µs, got " + dispatch);
            }
            var latency = BadParameter.parse("--bandwidth-gbs/--clock-ghz/--dispatch-us",
                    () -> new org.llmnpu.sw.graph.LatencyModel(bandwidth, tiling.arrayRows(), tiling.arrayCols(), tiling.arrayCols(), clock, dispatch));
            report = BadParameter.parse("--sram-kib", () -> PassReport.run(pre, dec, tiling, latency));
        } catch (BadParameter e) {
            System.err.println(e.getMessage());
            return 2;
        }
        if (json) {
            System.out.println(SwJson.write(report));
            return 0;
        }
        System.out.printf("%-16s %-34s %8s %18s %16s %18s %16s %10s%n", "phase", "stage", "kernels", "intermediate (B)",
                "total (B)", "intermediate/token", "total/token", "est. ms");
        for (PassReport.Row r : report.rows()) {
            System.out.printf("%-16s %-34s %8d %18d %16d %18.0f %16.0f %10.3f%n", r.phase(), r.stage(), r.kernels(),
                    r.intermediateBytes(), r.totalBytes(), r.intermediateBytesPerToken(), r.totalBytesPerToken(), r.estimatedMillis());
        }
        System.out.println("prefill tiles: " + String.join("; ", report.prefillTiles()));
        System.out.println("decode tiles:  " + String.join("; ", report.decodeTiles()));
        return 0;
    }
}
