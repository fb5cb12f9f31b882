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
 * nearest, codes −7..7), two a byte in memory, widened by {@code load4} (the LM head stays INT8).
 * Group-wise INT4 (int4-g32) is not lowered: its scales change along K, which one integer GEMM
 * cannot apply.
 */
public final class WeightFormats {
  /** The formats, by name. */
  public static final List<String> NAMES = List.of("int8", "int8@gptq", "int8@awq", "int8@clip", "int8+smooth",
      "int8@gptq+smooth", "int4");

  /** Bits of the block weights of {@code format}: 4 for {@code int4} (per channel, loaded with load4), else 8. */
  public static int bits(String format) {
    return format.startsWith("int4") ? 4 : 8;
  }

  private WeightFormats() {
  }

  /** The weights to lower for {@code format}. */
  public static ModelWeights prepare(ModelWeights fp32, String format) {
    if (!NAMES.contains(format)) {
      throw new IllegalArgumentException("quant must be one of " + NAMES + ", got '" + format + "'");
    }
    if (format.equals("int8") || format.equals("int4")) {
      return fp32;
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
