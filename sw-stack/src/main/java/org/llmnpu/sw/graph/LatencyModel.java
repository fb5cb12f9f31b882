package org.llmnpu.sw.graph;

import java.util.EnumMap;
import java.util.List;
import java.util.Map;

/**
 * A first-order latency estimate of a schedule on an NPU: each kernel costs a fixed dispatch overhead
 * plus the larger of its off-chip transfer time ({@code bytes / bandwidth}) and its compute time; inside
 * a kernel the units (Load, MAC array, PPM, Vector DSP) work as a pipeline, so compute time is the
 * busiest unit's. MAC-array ops take {@code MACs / (rows · cols)} cycles, the Load unit expands
 * {@code rows · cols} weights per cycle (it feeds the array at its rate), PPM and Vector DSP ops take
 * {@code elements / lanes} cycles, host ops nothing; with N:M weights the array skips the zeros
 * (weight GEMMs take N/M of the MACs). Transfers use the ideal per-kernel traffic of
 * {@link Schedule}. Enough to turn traffic and dispatch counts into a time trend, not a cycle model.
 */
public record LatencyModel(double bandwidthGBs, int arrayRows, int arrayCols, int vectorLanes, double clockGHz,
                           double dispatchMicros) {

    public LatencyModel {
        if (!(bandwidthGBs > 0) || !(clockGHz > 0) || arrayRows < 1 || arrayCols < 1 || vectorLanes < 1 || dispatchMicros < 0) {
            throw new IllegalArgumentException("bandwidth, clock, array size and vector lanes must be positive and dispatch >= 0");
        }
    }

    /** 32x32 INT8 array and 32 vector lanes at 1 GHz, 25.6 GB/s LPDDR, 10 µs per dispatch. */
    public static LatencyModel mobileNpu() {
        return new LatencyModel(25.6, 32, 32, 32, 1.0, 10.0);
    }

    /** Estimated seconds to run every kernel of the schedule once, in order. */
    public double seconds(Schedule s, GraphShape shape) {
        double total = 0;
        for (List<Op> kernel : s.kernels()) {
            long bytes = 0;
            for (Tensor t : s.kernelReads(kernel)) {
                bytes += t.bytes();
            }
            for (Tensor t : s.kernelWrites(kernel)) {
                bytes += t.bytes();
            }
            Map<OpKind.Unit, Double> cycles = new EnumMap<>(OpKind.Unit.class);
            for (Op op : kernel) {
                cycles.merge(op.kind().unit(), cycles(op, shape), Double::sum);
            }
            double compute = cycles.values().stream().mapToDouble(Double::doubleValue).max().orElse(0) / (clockGHz * 1e9);
            double transfer = bytes / (bandwidthGBs * 1e9);
            total += dispatchMicros * 1e-6 + Math.max(compute, transfer);
        }
        return total;
    }

    private double cycles(Op op, GraphShape shape) {
        return switch (op.kind().unit()) {
            case HOST -> 0;
            case MAC_ARRAY -> macs(op, shape) / ((double) arrayRows * arrayCols);
            case LOAD -> op.output().elements() / ((double) arrayRows * arrayCols);
            default -> op.output().elements() / (double) vectorLanes;
        };
    }

    private static double macs(Op op, GraphShape shape) {
        var c = shape.model();
        return switch (op.kind()) {
            case QK_MATMUL, PV_MATMUL -> (double) c.heads() * shape.tokens() * shape.kvLength() * c.headDim();
            default -> {
                long[] mkn = op.gemmShape();
                yield (double) mkn[0] * mkn[1] * mkn[2] * shape.weightDensity();
            }
        };
    }
}
