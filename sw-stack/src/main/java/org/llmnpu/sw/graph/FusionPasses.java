package org.llmnpu.sw.graph;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The fusion passes, each a function from schedule to schedule; a merge that would create a cycle
 * between kernels is skipped.
 * <ul>
 *   <li>{@link #horizontal}: sibling GEMMs reading the same activation (Q, K, V projections; gate and up)
 *       become one GEMM over concatenated weights (widths H·d, H_kv·d, H_kv·d under GQA): their GEMMs,
 *       their weight dequantizations and their requantizations are merged level by level, so the shared
 *       input is read once and there is one dispatch per level;</li>
 *   <li>{@link #vertical}: intra-op fusion — each GEMM kernel absorbs the dequantization of its weights
 *       (Load unit) and then, repeatedly, consumer kernels made only of PPM elementwise ops
 *       (requantize, activation, gating multiply, residual add), i.e. dequant → GEMM → act → requant
 *       on array + PPM;</li>
 *   <li>{@link #attention}: inter-op fusion of QKᵀ → scale/mask → SoftMax → PV into one tiled kernel with
 *       online SoftMax, so no score matrix leaves the chip.</li>
 * </ul>
 */
public final class FusionPasses {

    private FusionPasses() {
    }

    public static Schedule horizontal(Schedule s) {
        Graph g = s.graph();
        Map<Tensor, List<Op>> gemmsByInput = new HashMap<>();
        for (Op op : g.ops()) {
            if (op.kind() == OpKind.GEMM) {
                gemmsByInput.computeIfAbsent(op.inputs().get(0), k -> new ArrayList<>()).add(op);
            }
        }
        Schedule out = s;
        for (List<Op> siblings : gemmsByInput.values()) {
            if (siblings.size() < 2) {
                continue;
            }
            List<Op> dequants = new ArrayList<>();
            List<Op> requants = new ArrayList<>();
            for (Op gemm : siblings) {
                Op dq = g.producer(gemm.inputs().get(1));
                if (dq != null && dq.kind() == OpKind.DEQUANT) {
                    dequants.add(dq);
                }
                for (Op consumer : g.consumers(gemm.output())) {
                    if (consumer.kind() == OpKind.REQUANT) {
                        requants.add(consumer);
                    }
                }
            }
            out = out.merge(siblings).orElse(out);
            out = out.merge(dequants).orElse(out);
            out = out.merge(requants).orElse(out);
        }
        return out;
    }

    public static Schedule vertical(Schedule s) {
        Graph g = s.graph();
        Schedule out = s;
        for (Op op : g.ops()) {
            if (op.kind() != OpKind.GEMM) {
                continue;
            }
            for (Tensor in : op.inputs()) {
                Op p = g.producer(in);
                if (p != null && p.kind() == OpKind.DEQUANT) {
                    out = out.merge(List.of(op, p)).orElse(out);
                }
            }
            boolean grew = true;
            while (grew) {
                grew = false;
                for (List<Op> candidate : consumerKernels(out, op)) {
                    if (candidate.stream().allMatch(c -> c.kind().unit() == OpKind.Unit.PPM
                            && c.kind().opClass() == OpKind.OpClass.ELEMENTWISE)) {
                        List<Op> both = new ArrayList<>(candidate);
                        both.add(op);
                        var merged = out.merge(both);
                        if (merged.isPresent()) {
                            out = merged.get();
                            grew = true;
                            break;
                        }
                    }
                }
            }
        }
        return out;
    }

    /** Kernels (other than op's own) that read an output of op's kernel. */
    private static List<List<Op>> consumerKernels(Schedule s, Op op) {
        int kernel = s.kernelOf(op);
        List<List<Op>> out = new ArrayList<>();
        for (List<Op> k : s.kernels()) {
            if (s.kernelOf(k.get(0)) == kernel) {
                continue;
            }
            boolean reads = k.stream().anyMatch(c -> c.inputs().stream().anyMatch(t -> {
                Op p = s.graph().producer(t);
                return p != null && s.kernelOf(p) == kernel;
            }));
            if (reads) {
                out.add(k);
            }
        }
        return out;
    }

    public static Schedule attention(Schedule s) {
        Graph g = s.graph();
        Schedule out = s;
        for (Op qk : g.ops()) {
            if (qk.kind() != OpKind.QK_MATMUL) {
                continue;
            }
            List<Op> chain = new ArrayList<>(List.of(qk));
            Op cur = qk;
            for (OpKind next : new OpKind[] {OpKind.SCALE_MASK, OpKind.SOFTMAX, OpKind.PV_MATMUL}) {
                List<Op> consumers = g.consumers(cur.output());
                if (consumers.size() != 1 || consumers.get(0).kind() != next) {
                    chain = null;
                    break;
                }
                cur = consumers.get(0);
                chain.add(cur);
            }
            if (chain != null) {
                out = out.merge(chain).orElse(out);
            }
        }
        return out;
    }
}
