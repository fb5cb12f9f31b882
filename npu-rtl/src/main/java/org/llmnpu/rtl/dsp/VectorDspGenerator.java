package org.llmnpu.rtl.dsp;

import java.util.List;
import org.llmnpu.hdl.gen.DeclaredGenerator;
import org.llmnpu.hdl.gen.ParamSpec;

/**
 * Registers {@code vector-dsp}: the {@link VectorDsp} (what it computes, its numerics, latency and
 * cycle formula are on that class) with its parameters and their allowed values.
 */
public final class VectorDspGenerator extends DeclaredGenerator {
  public VectorDspGenerator() {
    super("vector-dsp", "programmable FP16/FP32 SIMD DSP: softmax, norms, activations, RoPE, exp/recip/rsqrt, "
        + "reductions; bit-exact with the numerics kernels",
        List.of(
            ParamSpec.integer("lanes", 8, 1, 64, "SIMD lanes (power of two)"),
            ParamSpec.integer("rows", 512, 16, 65536, "buffer rows of lanes FP16 elements (power of two)"),
            ParamSpec.integer("programDepth", 256, 16, 4096, "instruction words (power of two)"),
            ParamSpec.integer("tableSegments", 12, 1, 16, "segments per polynomial table"),
            ParamSpec.integer("tableDegree", 2, 0, 3, "polynomial degree of the tables"),
            ParamSpec.integer("executeStages", 4, 1, 4,
                "1: one execute stage, no stalls; 2: FP rounding in a second stage; 3: FP decode/product, "
                + "sum, round; 4: also the rounder split; an interlock holds readers of FP results"),
            ParamSpec.bool("fma32", false, "FP32 fused multiply-add unit per lane (instruction FMA32)"),
            ParamSpec.bool("permute", false, "skewed load/store, lane rotation, row gather/scatter (transposes)")),
        p -> new VectorDsp(new VectorDsp.Config(p.getInt("lanes"), p.getInt("rows"), p.getInt("programDepth"),
            p.getInt("tableSegments"), p.getInt("tableDegree"), p.getInt("executeStages"), p.getBool("fma32"),
            p.getBool("permute"))));
  }
}
