package org.llmnpu.sw.lower;

import java.util.ArrayList;
import java.util.List;
import org.llmnpu.sw.eval.SampledSequences;
import org.llmnpu.sw.model.LayerWeights;
import org.llmnpu.sw.model.ModelConfig;
import org.llmnpu.sw.model.ModelWeights;
import org.llmnpu.sw.model.Ops;
import org.llmnpu.sw.model.Transformer;

/**
 * Calibrated <i>static</i> activation scales of the fused lowering's quantization sites (the PPM's requantization
 * multiplier is fixed per column, so a GEMM whose epilogue runs on the PPM needs its input's and its output's scales
 * known before the program runs). Per layer: the QKV input and the W1|W3 input (RMSNorm outputs), the gate
 * pre-activation (the SiLU table's input), SiLU(gate), up and the W2 input {@code SiLU(gate)·up} (used only where the
 * SwiGLU gate runs through the PPM, {@code gemm gate=1}: elsewhere the W2 input keeps its dynamic per-token scale);
 * q and k after RoPE and v, one scale a tensor each (used only with {@link DecoderLowering#staticQkv}: elsewhere each token's
 * q, k and v keep their dynamic absmax scale); the LM-head input once.
 *
 * <p>Each scale is {@code absmax / 127} (symmetric INT8, zero point 0) of the site's values over a calibration set:
 * {@link #CALIBRATION_SEQUENCES} sequences of {@link #CALIBRATION_LENGTH} tokens sampled from the FP32 model with
 * {@link SampledSequences#CALIBRATION_SEED} (the held-out evaluation set uses another seed), run teacher-forced
 * through {@link QuantSiteForward}. Absmax, not a percentile: a value beyond the calibrated range saturates at ±127,
 * and on stories260K clipping the largest activations cost more accuracy than the resolution it buys. A tiny floor
 * ({@code 2^-8/127}, as the dynamic quantizer's) keeps a silent site's scale positive. Computed in a
 * few seconds for stories260K, cached by content ({@link StaticScalesCache}).
 *
 * <p>The W2 input, q, k and v are the exception (the W2 input's values are heavy-tailed, a product of two activations;
 * q, k and v one scale over every token, head and channel), so their scale is the clipping point that minimizes the
 * calibration set's squared quantization error, {@code argmin_c Σ (x − Q_c(x))²} over
 * {@code c} = absmax·2^(−i/8), i = 0..63 ({@link #clippedScale}), not its absmax.
 */
public final class StaticScales {
  /** Sequences of the calibration set. */
  public static final int CALIBRATION_SEQUENCES = 8;
  /** Tokens per calibration sequence. */
  public static final int CALIBRATION_LENGTH = 64;
  private static final double FLOOR = Math.scalb(1.0, -8) / 127;

  /** The per-layer sites. */
  public enum Site { QKV_IN, W13_IN, GATE, SILU, UP, W2_IN, Q, K, V }

  /** The sites whose scale is MSE-clipped ({@link #clippedScale}) rather than absmax. */
  private static final java.util.EnumSet<Site> CLIPPED = java.util.EnumSet.of(Site.W2_IN, Site.Q, Site.K, Site.V);

  private final double[][] scales;
  private final double lmIn;

  private StaticScales(double[][] scales, double lmIn) {
    this.scales = scales;
    this.lmIn = lmIn;
  }

  /**
   * A distinct FP16 value per layer and site (a layout without weights: the command stream does not depend on the
   * scales' values), as calibrated ones are: q, k and v's {@code 1 + (3·layer + site)/1024}, the others'
   * {@code 1 − (6·layer + site + 1)/2048}. They are constants of DSP programs (the QKV post's, the GEMM inputs'
   * quantizations), so which of those programs repeat, and stay in the program memory, is the calibrated model's
   * ({@link BlockQkvPost}'s decode steps; the placements kept from layer to layer in a window across layers,
   * {@link DecoderLowering#acrossLayers}).
   */
  static StaticScales placeholder(ModelConfig c) {
    double[][] s = new double[c.layers()][Site.values().length];
    for (int layer = 0; layer < s.length; layer++) {
      for (Site site : Site.values()) {
        int q = site.ordinal() - Site.Q.ordinal();
        s[layer][site.ordinal()] = q >= 0 ? 1 + (3.0 * layer + q) / 1024
            : 1 - (6.0 * layer + site.ordinal() + 1) / 2048;
      }
    }
    return new StaticScales(s, 1.0);
  }

  /**
   * Calibrates on sequences sampled from the FP32 model of {@code w} (see the class comment); cached by content
   * ({@link StaticScalesCache}).
   */
  public static StaticScales calibrate(ModelWeights w) {
    int length = Math.min(CALIBRATION_LENGTH, w.config().maxSeqLen());
    String set = "sampled " + CALIBRATION_SEQUENCES + "x" + length + " seed " + SampledSequences.CALIBRATION_SEED
        + " absmax, W2 input and q/k/v mse-clipped";
    return StaticScalesCache.get(w, set, () -> calibrate(w, calibrationSequences(w)));
  }

  /** The calibration set of {@link #calibrate(ModelWeights)}, sampled from the FP32 model of {@code w}. */
  static int[][] calibrationSequences(ModelWeights w) {
    return SampledSequences.sample(new Transformer(w), CALIBRATION_SEQUENCES,
        Math.min(CALIBRATION_LENGTH, w.config().maxSeqLen()), SampledSequences.CALIBRATION_SEED);
  }

  /** The scales as text lines (a layer a line, then the LM-head input's), each value exact ({@link Double#toHexString}). */
  List<String> lines() {
    List<String> lines = new ArrayList<>();
    for (double[] row : scales) {
      StringBuilder b = new StringBuilder();
      for (double v : row) {
        b.append(b.length() == 0 ? "" : " ").append(Double.toHexString(v));
      }
      lines.add(b.toString());
    }
    lines.add(Double.toHexString(lmIn));
    return lines;
  }

  /** The scales {@link #lines} wrote for a model of {@code layers} layers; an error if they do not fit. */
  static StaticScales parse(List<String> lines, int layers) {
    if (lines.size() != layers + 1) {
      throw new IllegalArgumentException("expected " + (layers + 1) + " lines, got " + lines.size());
    }
    double[][] s = new double[layers][];
    for (int l = 0; l < layers; l++) {
      String[] parts = lines.get(l).trim().split(" ");
      if (parts.length != Site.values().length) {
        throw new IllegalArgumentException("line " + l + ": expected " + Site.values().length + " scales");
      }
      s[l] = new double[parts.length];
      for (int i = 0; i < parts.length; i++) {
        s[l][i] = positive(Double.parseDouble(parts[i]));
      }
    }
    return new StaticScales(s, positive(Double.parseDouble(lines.get(layers).trim())));
  }

  private static double positive(double v) {
    if (!(v > 0) || Double.isInfinite(v)) {
      throw new IllegalArgumentException("a scale must be finite and positive, got " + v);
    }
    return v;
  }

  /** Calibrates on {@code sequences} (e.g. the user's text), teacher-forced through the FP32 model of {@code w}. */
  public static StaticScales calibrate(ModelWeights w, int[][] sequences) {
    ModelConfig c = w.config();
    double[][] absmax = new double[c.layers()][Site.values().length];
    double[] lm = new double[1];
    List<java.util.Map<Site, List<float[]>>> clipped = new ArrayList<>();
    for (int l = 0; l < c.layers(); l++) {
      clipped.add(new java.util.EnumMap<>(Site.class));
      for (Site site : CLIPPED) {
        clipped.get(l).put(site, new ArrayList<>());
      }
    }
    for (int[] seq : sequences) {
      QuantSiteForward.run(w, w.layers(), w.lmHead(), seq, (site, layer, x) -> {
        switch (site) {
          case QKV_IN -> note(absmax[layer], Site.QKV_IN, x);
          case W13_IN -> feedForward(w.layers()[layer], absmax[layer], x);
          case W2_IN, Q, K, V -> clipped.get(layer).get(Site.valueOf(site.name())).add(x.clone());
          case LM_IN -> lm[0] = Math.max(lm[0], max(x));
          default -> {
          }
        }
        return x;
      });
    }
    double[][] s = new double[c.layers()][];
    for (int l = 0; l < c.layers(); l++) {
      s[l] = new double[absmax[l].length];
      for (int i = 0; i < s[l].length; i++) {
        s[l][i] = Math.max(FLOOR, absmax[l][i] / 127);
      }
      for (Site site : CLIPPED) {
        s[l][site.ordinal()] = Math.max(FLOOR, clippedScale(clipped.get(l).get(site)));
      }
    }
    return new StaticScales(s, Math.max(FLOOR, lm[0] / 127));
  }

  private static void feedForward(LayerWeights lw, double[] absmax, float[] x) {
    note(absmax, Site.W13_IN, x);
    float[] gate = Ops.matvec(lw.w1(), x);
    float[] up = Ops.matvec(lw.w3(), x);
    note(absmax, Site.GATE, gate);
    note(absmax, Site.UP, up);
    float[] silu = new float[gate.length];
    for (int i = 0; i < gate.length; i++) {
      silu[i] = Ops.silu(gate[i]);
    }
    note(absmax, Site.SILU, silu);
  }

  /**
   * The symmetric INT8 scale {@code c/127} whose clipping point {@code c} among absmax·2^(−i/8), i = 0..63, gives the
   * least squared error {@code Σ (x − clamp(round(x/s), −127, 127)·s)²} over every value of {@code vectors}.
   */
  static double clippedScale(List<float[]> vectors) {
    return clippedScaleOrAbsmax(vectors, true);
  }

  /** As {@link #clippedScale}; without {@code clipped} the absmax's ({@code i = 0} only). */
  static double clippedScaleOrAbsmax(List<float[]> vectors, boolean clipped) {
    double absmax = 0;
    for (float[] v : vectors) {
      absmax = Math.max(absmax, max(v));
    }
    double best = absmax / 127;
    double bestError = Double.POSITIVE_INFINITY;
    for (int i = 0; i < (clipped ? 64 : 1) && absmax > 0; i++) {
      double scale = absmax * Math.pow(2, -i / 8.0) / 127;
      double error = 0;
      for (float[] v : vectors) {
        for (float x : v) {
          double q = Math.max(-127, Math.min(127, Math.rint(x / scale)));
          error += (x - q * scale) * (x - q * scale);
        }
      }
      if (error < bestError) {
        bestError = error;
        best = scale;
      }
    }
    return best;
  }

  private static void note(double[] absmax, Site site, float[] x) {
    absmax[site.ordinal()] = Math.max(absmax[site.ordinal()], max(x));
  }

  private static double max(float[] x) {
    double m = 0;
    for (float v : x) {
      m = Math.max(m, Math.abs(v));
    }
    return m;
  }

  /** The scale of {@code site} in layer {@code layer}. */
  public double of(Site site, int layer) {
    return scales[layer][site.ordinal()];
  }

  /** The LM-head input's scale. */
  public double lmIn() {
    return lmIn;
  }
}
