package org.llmnpu.sw.graph;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/** A dataflow graph: ops in topological order; each tensor has at most one producer. */
public final class Graph {

    private final List<Op> ops = new ArrayList<>();
    private final Map<Tensor, Op> producers = new HashMap<>();
    private final Map<Tensor, List<Op>> consumers = new HashMap<>();

    /** Appends an op; its inputs must already be produced or be resident tensors. */
    public Tensor add(String name, OpKind kind, Tensor output, Tensor... inputs) {
        for (Tensor t : inputs) {
            if (!t.resident() && !producers.containsKey(t)) {
                throw new IllegalArgumentException("op " + name + " reads " + t.name() + " before it is produced");
            }
        }
        if (producers.containsKey(output)) {
            throw new IllegalArgumentException("tensor " + output.name() + " already has a producer");
        }
        Op op = new Op(ops.size(), name, kind, List.of(inputs), output);
        ops.add(op);
        producers.put(output, op);
        for (Tensor t : inputs) {
            consumers.computeIfAbsent(t, k -> new ArrayList<>()).add(op);
        }
        return output;
    }

    public List<Op> ops() {
        return List.copyOf(ops);
    }

    public Op producer(Tensor t) {
        return producers.get(t);
    }

    public List<Op> consumers(Tensor t) {
        return consumers.getOrDefault(t, List.of());
    }
}
