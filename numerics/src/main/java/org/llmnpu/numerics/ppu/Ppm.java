package org.llmnpu.numerics.ppu;

import org.llmnpu.numerics.requant.GatedRequantizer;
import org.llmnpu.numerics.requant.RequantParams;
import org.llmnpu.numerics.requant.Requantizer;

/**
 * The PPM post-processing pipeline for one output element, stage by stage as in NPU-SPEC
 * section 2: bias add and requantization with the quantized activation clamp
 * ({@link Requantizer#requantize}), then, if a table is given, the programmable PPU
 * ({@link PpuEvaluator#evaluate}) on the resulting INT8 code. With a PPU table the requantizer's
 * activation is normally NONE and its output format INT8 (the table's input quantization).
 */
public final class Ppm {
    private Ppm() {
    }

    /** One element: {@code ppu(requantize(acc, bias))}, or just the requantized value if {@code table} is null. */
    public static int process(int acc, int bias, RequantParams params, PpuTable table) {
        int q = Requantizer.requantize(acc, bias, params);
        return table == null ? q : PpuEvaluator.evaluate(table, q);
    }

    /**
     * One gated element (the SwiGLU gate, {@code gemm ppm=1 gate=1}): {@link GatedRequantizer#requantize} of the
     * accumulator times the INT8 gate code; no table (the gate's own activation was applied where it was made).
     */
    public static int processGated(int acc, int gate, int bias, RequantParams params) {
        return GatedRequantizer.requantize(acc, gate, bias, params);
    }

    /** An M×N accumulator matrix with per-column (output channel) bias and parameters, one shared table or null. */
    public static int[][] process(int[][] acc, int[] bias, RequantParams[] perChannel, PpuTable table) {
        int[][] q = Requantizer.requantize(acc, bias, perChannel);
        if (table != null) {
            for (int[] row : q) {
                for (int j = 0; j < row.length; j++) {
                    row[j] = PpuEvaluator.evaluate(table, row[j]);
                }
            }
        }
        return q;
    }
}
