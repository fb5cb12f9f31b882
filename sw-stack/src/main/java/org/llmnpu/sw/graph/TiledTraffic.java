package org.llmnpu.sw.graph;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Off-chip traffic of a schedule once its GEMM and attention kernels are tiled for an SRAM budget: the
 * ideal traffic of {@link Schedule#traffic()} plus the re-reads (and partial-sum spills) the chosen
 * tiles cost, per {@link GemmTiling} and {@link AttentionTiling}. Also lists the tile chosen for each
 * distinct GEMM shape.
 */
public final class TiledTraffic {

    /** The tiled traffic and a human-readable tile per GEMM/attention shape. */
    public record Result(TrafficSummary summary, List<String> tiles) {
    }

    private TiledTraffic() {
    }

    public static Result of(Schedule schedule, GraphShape shape, TilingConfig cfg) {
        TrafficSummary ideal = schedule.traffic();
        Graph g = schedule.graph();
        double extra = 0;
        Map<String, String> tiles = new LinkedHashMap<>();
        for (List<Op> kernel : schedule.kernels()) {
            Map<Tensor, List<Op>> gemmsByInput = new LinkedHashMap<>();
            boolean hasQk = false;
            boolean hasPv = false;
            for (Op op : kernel) {
                if (op.kind() == OpKind.GEMM) {
                    gemmsByInput.computeIfAbsent(op.inputs().get(0), k -> new ArrayList<>()).add(op);
                }
                hasQk |= op.kind() == OpKind.QK_MATMUL;
                hasPv |= op.kind() == OpKind.PV_MATMUL;
            }
            for (List<Op> gemms : gemmsByInput.values()) {
                Op first = gemms.get(0);
                long m = first.gemmShape()[0];
                long k = first.gemmShape()[1];
                long n = 0;
                for (Op op : gemms) {
                    n += op.gemmShape()[2];
                }
                double a = first.inputs().get(0).dtype().bits() / 8.0;
                double w = weightBits(g, kernel, first) / 8.0;
                double o = outputBits(g, kernel, first) / 8.0;
                GemmTiling.Tile t = GemmTiling.search(m, k, n, a, w, o, cfg);
                extra += t.trafficBytes() - (m * k * a + k * n * w + m * n * o);
                tiles.putIfAbsent("gemm " + m + "x" + k + "x" + n, "tm=" + t.tm() + " tn=" + t.tn() + " tk=" + t.tk());
            }
            if (hasQk && hasPv) {
                var c = shape.model();
                double kv = shape.kvType().bits() / 8.0;
                AttentionTiling.Blocks b = AttentionTiling.search(shape.tokens(), shape.kvLength(), c.headDim(), c.groupSize(),
                        c.kvHeads(), kv, cfg);
                double idealAttention = c.kvHeads() * (c.groupSize() * shape.tokens() * c.headDim() * 2.0 * 2
                        + 2.0 * shape.kvLength() * c.headDim() * kv);
                extra += b.trafficBytes() - idealAttention;
                tiles.putIfAbsent("attention " + shape.tokens() + "x" + shape.kvLength(), "br=" + b.br() + " bc=" + b.bc());
            }
        }
        List<String> list = new ArrayList<>();
        tiles.forEach((k, v) -> list.add(k + ": " + v));
        return new Result(new TrafficSummary(ideal.kernels(), ideal.intermediateBytes(), ideal.totalBytes() + Math.round(extra)), list);
    }

    /** Stored bits per dense weight element: what the dequant reads (values and N:M indices) when fused. */
    private static double weightBits(Graph g, List<Op> kernel, Op gemm) {
        Tensor w = gemm.inputs().get(1);
        Op p = g.producer(w);
        if (p == null || !kernel.contains(p)) {
            return w.dtype().bits();
        }
        double bytes = 0;
        for (Tensor stored : p.inputs()) {
            bytes += stored.bytes();
        }
        return 8 * bytes / w.elements();
    }

    private static int outputBits(Graph g, List<Op> kernel, Op gemm) {
        for (Op c : g.consumers(gemm.output())) {
            if (c.kind() == OpKind.REQUANT && kernel.contains(c)) {
                return c.output().dtype().bits();
            }
        }
        return gemm.output().dtype().bits();
    }
}
