package org.llmnpu.sw.graph;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * A partition of a graph's ops into kernels (one dispatch each). Off-chip traffic of a kernel: every
 * distinct input tensor it does not produce itself is read once; every output is written if it is
 * resident (weights, KV cache, graph outputs) or consumed by another kernel. Intermediate bytes are the
 * writes of non-resident tensors — what fusion removes. Tiling may add re-reads; see {@link TiledTraffic}.
 */
public final class Schedule {

    private final Graph graph;
    private final int[] kernelOf;

    private Schedule(Graph graph, int[] kernelOf) {
        this.graph = graph;
        this.kernelOf = kernelOf;
    }

    /** Every op its own kernel. */
    public static Schedule unfused(Graph g) {
        int[] k = new int[g.ops().size()];
        for (int i = 0; i < k.length; i++) {
            k[i] = i;
        }
        return new Schedule(g, k);
    }

    public Graph graph() {
        return graph;
    }

    public int kernelOf(Op op) {
        return kernelOf[op.id()];
    }

    /** Kernels as lists of ops, in order of their first op. */
    public List<List<Op>> kernels() {
        Map<Integer, List<Op>> byKernel = new TreeMap<>();
        for (Op op : graph.ops()) {
            byKernel.computeIfAbsent(kernelOf[op.id()], k -> new ArrayList<>()).add(op);
        }
        List<List<Op>> out = new ArrayList<>(byKernel.values());
        out.sort((a, b) -> Integer.compare(a.get(0).id(), b.get(0).id()));
        return out;
    }

    public int kernelCount() {
        return new HashSet<>(java.util.Arrays.stream(kernelOf).boxed().toList()).size();
    }

    /** The schedule with the kernels of {@code ops} merged, or empty if that would create a cycle. */
    public java.util.Optional<Schedule> merge(List<Op> ops) {
        if (ops.size() < 2) {
            return java.util.Optional.of(this);
        }
        int[] k = kernelOf.clone();
        int target = k[ops.get(0).id()];
        Set<Integer> merged = new HashSet<>();
        for (Op op : ops) {
            merged.add(k[op.id()]);
        }
        for (int i = 0; i < k.length; i++) {
            if (merged.contains(k[i])) {
                k[i] = target;
            }
        }
        Schedule s = new Schedule(graph, k);
        return s.isAcyclic() ? java.util.Optional.of(s) : java.util.Optional.empty();
    }

    /** True if the kernel dependency graph has no cycle (a kernel must run as one step). */
    public boolean isAcyclic() {
        Map<Integer, Set<Integer>> edges = new HashMap<>();
        Map<Integer, Integer> indegree = new HashMap<>();
        for (Op op : graph.ops()) {
            indegree.putIfAbsent(kernelOf[op.id()], 0);
        }
        for (Op op : graph.ops()) {
            for (Tensor t : op.inputs()) {
                Op p = graph.producer(t);
                if (p != null && kernelOf[p.id()] != kernelOf[op.id()]
                        && edges.computeIfAbsent(kernelOf[p.id()], x -> new HashSet<>()).add(kernelOf[op.id()])) {
                    indegree.merge(kernelOf[op.id()], 1, Integer::sum);
                }
            }
        }
        ArrayDeque<Integer> ready = new ArrayDeque<>();
        indegree.forEach((kernel, d) -> {
            if (d == 0) {
                ready.add(kernel);
            }
        });
        int seen = 0;
        while (!ready.isEmpty()) {
            int kernel = ready.poll();
            seen++;
            for (int next : edges.getOrDefault(kernel, Set.of())) {
                if (indegree.merge(next, -1, Integer::sum) == 0) {
                    ready.add(next);
                }
            }
        }
        return seen == indegree.size();
    }

    /** Tensors a kernel reads from off-chip memory. */
    public Set<Tensor> kernelReads(List<Op> kernel) {
        Set<Op> inside = new HashSet<>(kernel);
        Set<Tensor> reads = new LinkedHashSet<>();
        for (Op op : kernel) {
            for (Tensor t : op.inputs()) {
                Op p = graph.producer(t);
                if (p == null || !inside.contains(p)) {
                    reads.add(t);
                }
            }
        }
        return reads;
    }

    /** Tensors a kernel writes to off-chip memory. */
    public Set<Tensor> kernelWrites(List<Op> kernel) {
        Set<Op> inside = new HashSet<>(kernel);
        Set<Tensor> writes = new TreeSet<>((a, b) -> a.name().compareTo(b.name()));
        for (Op op : kernel) {
            Tensor out = op.output();
            boolean usedOutside = graph.consumers(out).stream().anyMatch(c -> !inside.contains(c));
            if (out.resident() || usedOutside) {
                writes.add(out);
            }
        }
        return writes;
    }

    /** Kernels, intermediate bytes written and total off-chip bytes of this schedule (no tiling re-reads). */
    public TrafficSummary traffic() {
        long intermediate = 0;
        long total = 0;
        List<List<Op>> kernels = kernels();
        for (List<Op> kernel : kernels) {
            for (Tensor t : kernelReads(kernel)) {
                total += t.bytes();
            }
            for (Tensor t : kernelWrites(kernel)) {
                total += t.bytes();
                if (!t.resident()) {
                    intermediate += t.bytes();
                }
            }
        }
        return new TrafficSummary(kernels.size(), intermediate, total);
    }
}
