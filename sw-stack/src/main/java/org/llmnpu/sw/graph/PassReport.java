package org.llmnpu.sw.graph;

import java.util.ArrayList;
import java.util.List;

/**
 * Runs the fusion passes one after another on the prefill and the decode graph and records, after each,
 * the kernels (dispatches), intermediate bytes written off-chip, total off-chip traffic and the
 * {@link LatencyModel} estimate of the phase's time, plus the traffic of the fully fused graph once
 * tiled for the SRAM (its time is that of the fused graph: the model uses untiled traffic).
 */
public final class PassReport {

    /** One row: phase, stage, traffic and the same per token. */
    public record Row(String phase, String stage, int kernels, long intermediateBytes, long totalBytes,
                      double intermediateBytesPerToken, double totalBytesPerToken, double estimatedMillis) {
    }

    /** The rows and the tiles chosen for each phase. */
    public record Report(List<Row> rows, List<String> prefillTiles, List<String> decodeTiles) {
    }

    private PassReport() {
    }

    public static Report run(GraphShape prefill, GraphShape decode, TilingConfig tiling) {
        return run(prefill, decode, tiling, LatencyModel.mobileNpu());
    }

    public static Report run(GraphShape prefill, GraphShape decode, TilingConfig tiling, LatencyModel latency) {
        List<Row> rows = new ArrayList<>();
        List<String> prefillTiles = phase("prefill L=" + prefill.tokens(), prefill, tiling, latency, rows);
        List<String> decodeTiles = phase("decode @" + decode.kvLength(), decode, tiling, latency, rows);
        return new Report(rows, prefillTiles, decodeTiles);
    }

    private static List<String> phase(String name, GraphShape shape, TilingConfig tiling, LatencyModel latency, List<Row> rows) {
        Graph g = DecoderGraphBuilder.build(shape);
        Schedule s = Schedule.unfused(g);
        add(rows, name, "unfused", s.traffic(), shape.tokens(), latency.seconds(s, shape));
        s = FusionPasses.horizontal(s);
        add(rows, name, "+ horizontal (QKV, gate/up)", s.traffic(), shape.tokens(), latency.seconds(s, shape));
        s = FusionPasses.vertical(s);
        add(rows, name, "+ vertical (dequant-GEMM-PPM)", s.traffic(), shape.tokens(), latency.seconds(s, shape));
        s = FusionPasses.attention(s);
        double fused = latency.seconds(s, shape);
        add(rows, name, "+ attention (online SoftMax)", s.traffic(), shape.tokens(), fused);
        TiledTraffic.Result tiled = TiledTraffic.of(s, shape, tiling);
        add(rows, name, "fused, tiled for " + tiling.sramBytes() / 1024 + " KiB", tiled.summary(), shape.tokens(), fused);
        return tiled.tiles();
    }

    private static void add(List<Row> rows, String phase, String stage, TrafficSummary t, int tokens, double seconds) {
        rows.add(new Row(phase, stage, t.kernels(), t.intermediateBytes(), t.totalBytes(),
                t.intermediateBytes() / (double) tokens, t.totalBytes() / (double) tokens, seconds * 1e3));
    }
}
