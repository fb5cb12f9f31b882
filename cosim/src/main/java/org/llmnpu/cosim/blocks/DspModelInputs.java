package org.llmnpu.cosim.blocks;

import org.llmnpu.numerics.fp16.Fp16;
import org.llmnpu.numerics.vector.ElementWise;
import org.llmnpu.isa.dsp.DspKernel;
import org.llmnpu.sw.model.LayerActivations;
import org.llmnpu.sw.model.ModelConfig;
import org.llmnpu.sw.model.Ops;
import org.llmnpu.sw.model.SyntheticPrompts;
import org.llmnpu.sw.model.Transformer;

/**
 * DSP operands taken from a real forward pass of the software stack's model
 * ({@link LayerActivations}), rounded once to FP16, with the software's own FP32 result for the
 * same step: softmax of head 0's attention scores; the attention RMSNorm of the residual stream
 * (LayerNorm on the same vector, β = 0); SiLU/GeLU of the FFN gate; SwiGLU of gate and up; the
 * residual add of the attention projection; RoPE of query head 0 (llama2.c pairs (2i, 2i+1) laid
 * out as halves); max and sum of the scores.
 *
 * @param operands FP16 operands in {@link DspKernel#inputs()} order
 * @param software the software's FP32 outputs in {@link DspKernel#outputs()} order, or null where the model has no such step
 * @param len the kernel length these operands imply
 * @param eps the model's norm epsilon
 * @param description what was recorded
 */
public record DspModelInputs(short[][] operands, float[][] software, int len, float eps, String description) {

  /** The operands of {@code kernel} recorded from a forward pass of {@code modelName} on a seeded prompt. */
  public static DspModelInputs of(DspKernel kernel, String modelName, int promptLen, int layer, long seed) {
    org.llmnpu.sw.model.ModelWeights weights;
    try {
      weights = org.llmnpu.sw.io.ModelCatalog.load(modelName, seed);
    } catch (java.io.IOException e) {
      throw new java.io.UncheckedIOException("cannot load the model " + modelName + ": " + e.getMessage(), e);
    }
    ModelConfig c = weights.config();
    Transformer model = new Transformer(weights);
    LayerActivations a = LayerActivations.capture(model, SyntheticPrompts.prompt(c, promptLen, seed + 1), layer);
    String where = String.format("%s model%s, layer %d, token %d of a %d-token prompt", modelName,
        ModelConfig.isSynthetic(modelName) ? " (synthetic weights, seed " + seed + ")" : " (trained weights)", layer,
        a.pos(), promptLen);
    float eps = c.normEps();
    return switch (kernel) {
      case SOFTMAX -> new DspModelInputs(fp16(a.scoresHead0()), new float[][] {a.probabilitiesHead0()},
          a.scoresHead0().length, eps, "attention scores of head 0, " + where);
      case MAX, SUM -> new DspModelInputs(fp16(a.scoresHead0()), new float[][] {{reduce(kernel, a.scoresHead0())}},
          a.scoresHead0().length, eps, "attention scores of head 0, " + where);
      case RMSNORM -> new DspModelInputs(fp16(a.residualIn(), a.attnNormGain()), new float[][] {a.attnNormOut()},
          c.dim(), eps, "residual stream and attention RMSNorm gain, " + where);
      case LAYERNORM -> new DspModelInputs(fp16(a.residualIn(), a.attnNormGain(), new float[c.dim()]), null, c.dim(),
          eps, "residual stream, attention norm gain, beta 0, " + where);
      case SILU -> new DspModelInputs(fp16(a.gate()), new float[][] {silu(a.gate())}, a.gate().length, eps,
          "FFN gate projection, " + where);
      case GELU -> new DspModelInputs(fp16(a.gate()), null, a.gate().length, eps, "FFN gate projection, " + where);
      case SWIGLU -> new DspModelInputs(fp16(a.gate(), a.up()), new float[][] {a.swiglu()}, a.gate().length, eps,
          "FFN gate and up projections, " + where);
      case RESIDUAL -> new DspModelInputs(fp16(a.residualIn(), a.attentionProjection()), new float[][] {a.residualMid()},
          c.dim(), eps, "residual stream and attention projection, " + where);
      case ROPE -> rope(c, a, where);
      default -> throw new IllegalArgumentException("--inputs model: kernel must be one of softmax, rmsnorm, layernorm, "
          + "silu, gelu, swiglu, residual, rope, max, sum; got " + kernel.cliName());
    };
  }

  private static DspModelInputs rope(ModelConfig c, LayerActivations a, String where) {
    int d = c.headDim();
    float[] lo = new float[d / 2];
    float[] hi = new float[d / 2];
    float[] yLo = new float[d / 2];
    float[] yHi = new float[d / 2];
    for (int i = 0; i < d / 2; i++) {
      lo[i] = a.queryHead0()[2 * i];
      hi[i] = a.queryHead0()[2 * i + 1];
      yLo[i] = a.queryHead0Rotated()[2 * i];
      yHi[i] = a.queryHead0Rotated()[2 * i + 1];
    }
    short[][] t = ElementWise.ropeTables(a.pos(), d, c.ropeTheta());
    short[][] ops = fp16(lo, hi);
    return new DspModelInputs(new short[][] {ops[0], ops[1], t[0], t[1]}, new float[][] {yLo, yHi}, d, c.normEps(),
        "query head 0 (pairs 2i, 2i+1 as halves), " + where);
  }

  private static float reduce(DspKernel kernel, float[] x) {
    float r = kernel == DspKernel.MAX ? Float.NEGATIVE_INFINITY : 0f;
    for (float v : x) {
      r = kernel == DspKernel.MAX ? Math.max(r, v) : r + v;
    }
    return r;
  }

  private static float[] silu(float[] x) {
    float[] y = new float[x.length];
    for (int i = 0; i < y.length; i++) {
      y[i] = Ops.silu(x[i]);
    }
    return y;
  }

  private static short[][] fp16(float[]... vectors) {
    short[][] out = new short[vectors.length][];
    for (int v = 0; v < vectors.length; v++) {
      out[v] = new short[vectors[v].length];
      for (int i = 0; i < out[v].length; i++) {
        out[v][i] = Fp16.fromFloat(vectors[v][i]);
      }
    }
    return out;
  }

  /** Largest error of the DSP outputs against the software's FP32 outputs, in FP16 ULPs at the software value. */
  public static double maxUlpVersusSoftware(short[][] got, float[][] software) {
    double max = 0;
    for (int op = 0; op < software.length; op++) {
      for (int i = 0; i < software[op].length; i++) {
        max = Math.max(max, Fp16.ulpError(got[op][i], software[op][i]));
      }
    }
    return max;
  }
}
