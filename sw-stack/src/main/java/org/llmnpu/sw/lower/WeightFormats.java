package org.llmnpu.sw.lower;

import java.util.List;
import org.llmnpu.sw.compress.CompressionSpec;
import org.llmnpu.sw.compress.ModelCompressor;
import org.llmnpu.sw.eval.SampledSequences;
import org.llmnpu.sw.model.ModelWeights;
import org.llmnpu.sw.model.Transformer;

/**
 * The weight formats the lowering takes: {@code int8} (round to nearest, symmetric per output
 * channel, what {@link LoweredModel} stores) and {@code int8@gptq}, {@code int8@awq},
 * {@code int8@clip}: the same INT8 per-channel storage of weights first adjusted by
 * {@code sw-stack}'s compressor (GPTQ's error compensation, AWQ's input-channel scaling folded into
 * the norms and Wv, a calibrated clip ratio), calibrated on 4 × 64 tokens sampled from the FP32
 * model (seed {@link SampledSequences#CALIBRATION_SEED}); {@code +smooth}: {@link SmoothQuant} (α = 0.5,
 * same calibration) before quantization, for the INT8 activations; {@code int4}: INT4 per output channel (round to
 * nearest, codes −7..7), two a byte in memory, widened by {@code load4} (the LM head stays INT8);
 * {@code int4-g32}: the same INT4 storage with one scale per group of 32 rows of K and output
 * channel (the last group of a ragged K shorter), each group its own GEMM whose INT32 partial the
 * Vector DSP dequantizes with its scales and sums in FP32 ({@link KSplit}); {@code s2_4}: every block
 * weight pruned 2:4 along K by magnitude ({@code numerics}' {@code NmPruner}, through
 * {@link ModelCompressor} with the spec {@code 2:4}: no calibration data), then INT8 per channel over
 * the kept values, stored compressed with metadata and run by sparse GEMMs on an NPU whose array is
 * built for 2:4 ({@link NpuTargets#sparse24()}; the LM head stays dense INT8); {@code mxfp8}: OCP MX
 * blocks of 32 rows of K per output channel with FP8 E4M3 elements (one byte each, the E8M0 scale
 * turned into an FP16 group scale), decoded to INT8 codes by {@code loadmx} on the load path (an
 * NPU with {@code mxLoad}), then the {@code int4-g32} machinery: one GEMM per block, partials
 * scaled and summed on the DSP; {@code mxint8}: the same with MXINT8 elements (the codes are the
 * element bytes).
 */
public final class WeightFormats {
  /** The formats, by name. */
  public static final List<String> NAMES = List.of("int8", "int8@gptq", "int8@awq", "int8@clip", "int8+smooth",
      "int8@gptq+smooth", "int4", "int4-g32", "s2_4", "mxfp8", "mxint8");

  /** Bits of the block weights of {@code format}: 4 for {@code int4} (per channel, loaded with load4), else 8. */
  public static int bits(String format) {
    return format.startsWith("int4") ? 4 : 8;
  }

  /** Rows of K per quantization group of {@code format}'s block weights: 32 for {@code int4-g32} and {@code mxfp8}, else 0 (per channel). */
  public static int group(String format) {
    return format.equals("int4-g32") || mx(format) >= 0 ? 32 : 0;
  }

  /** The {@code loadmx} format of an MX weight format ({@code MxLoad.E4M3} for {@code mxfp8}, {@code INT8} for {@code mxint8}), else -1. */
  public static int mx(String format) {
    return format.equals("mxfp8") ? org.llmnpu.isa.MxLoad.E4M3 : format.equals("mxint8") ? org.llmnpu.isa.MxLoad.INT8 : -1;
  }

  /** The N:M mode of {@code format}'s block-weight GEMMs: {@link org.llmnpu.isa.Command#S2_4} for {@code s2_4}, else dense. */
  public static int sparsity(String format) {
    return format.equals("s2_4") ? org.llmnpu.isa.Command.S2_4 : org.llmnpu.isa.Command.DENSE;
  }

  /**
   * The layout alone of a model of shape {@code c} in {@code format} on {@code machine} (every address and shape, no
   * weights and no memory image, so also for an NPU whose external memory is beyond a Java array): the same layout
   * {@link #lower} gives, for whether and in which blocks the lowering lays the model out.
   */
  public static LoweredModel layout(org.llmnpu.sw.model.ModelConfig c, String format,
                                    org.llmnpu.isa.MachineParams machine, int maxContext, int maxStepTokens) {
    return LoweredModel.layoutOnly(c, machine, maxContext, maxStepTokens, bits(format), group(format),
        sparsity(format), mx(format));
  }

  /** {@code fp32} prepared for {@code format} and laid out for {@code machine}. */
  public static LoweredModel lower(ModelWeights fp32, String format, org.llmnpu.isa.MachineParams machine, int maxContext,
                                   int maxStepTokens) {
    return new LoweredModel(prepare(fp32, format), machine, maxContext, maxStepTokens, bits(format), group(format),
        sparsity(format), mx(format));
  }

  private WeightFormats() {
  }

  /** The weights to lower for {@code format}. */
  public static ModelWeights prepare(ModelWeights fp32, String format) {
    if (!NAMES.contains(format)) {
      throw new IllegalArgumentException("quant must be one of " + NAMES + ", got '" + format + "'");
    }
    if (format.equals("int8") || format.startsWith("int4") || mx(format) >= 0) {
      return fp32;
    }
    if (format.equals("s2_4")) {
      return ModelCompressor.compress(fp32, CompressionSpec.parse("2:4", false), (int[][]) null).effectiveWeights();
    }
    int[][] calibration = SampledSequences.sample(new Transformer(fp32), 4, 64, SampledSequences.CALIBRATION_SEED);
    ModelWeights w = fp32;
    String spec = format;
    if (format.endsWith("+smooth")) {
      w = SmoothQuant.apply(fp32, calibration, 0.5);
      spec = format.substring(0, format.length() - "+smooth".length());
    }
    if (spec.equals("int8")) {
      return w;
    }
    return ModelCompressor.compress(w, CompressionSpec.parse(spec, false), calibration).effectiveWeights();
  }
}
