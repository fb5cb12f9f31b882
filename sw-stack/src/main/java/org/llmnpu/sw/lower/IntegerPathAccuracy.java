package org.llmnpu.sw.lower;

import java.util.ArrayList;
import java.util.List;
import org.llmnpu.isa.MachineParams;
import org.llmnpu.sw.eval.LogitComparison;
import org.llmnpu.sw.eval.SampledSequences;
import org.llmnpu.sw.model.ModelWeights;
import org.llmnpu.sw.model.Transformer;

/**
 * Accuracy of the NPU's integer path against the FP32 reference: sequences sampled from the FP32
 * model (BOS first, seeded, temperature 1), fed teacher-forced as one prefill program each (every
 * position's logits), compared position by position ({@link LogitComparison}: top-1 agreement,
 * {@code KL(p_FP32 ‖ p_NPU)} in nats, SNR). The NPU runs on the golden ISA simulator.
 */
public final class IntegerPathAccuracy {
  private IntegerPathAccuracy() {
  }

  /** {@code count} sequences of {@code length} tokens, seed {@code seed}, on {@code machine}. */
  public static LogitComparison evaluate(ModelWeights weights, MachineParams machine, int count, int length, long seed) {
    return evaluate(weights, weights, machine, count, length, seed);
  }

  /**
   * As {@link #evaluate(ModelWeights, MachineParams, int, int, long)} with the NPU running
   * {@code lowered} (e.g. GPTQ- or AWQ-adjusted weights, quantized per channel on the way) against
   * the FP32 model {@code weights}.
   */
  public static LogitComparison evaluate(ModelWeights weights, ModelWeights lowered, MachineParams machine, int count,
                                         int length, long seed) {
    return evaluate(weights, lowered, 8, machine, count, length, seed);
  }

  /** As above with block weights of {@code bits} 8 or 4. */
  public static LogitComparison evaluate(ModelWeights weights, ModelWeights lowered, int bits, MachineParams machine,
                                         int count, int length, long seed) {
    return evaluate(weights, lowered, bits, 0, machine, count, length, seed);
  }

  /** As above with block weights quantized in groups of {@code group} rows of K (0: per channel). */
  public static LogitComparison evaluate(ModelWeights weights, ModelWeights lowered, int bits, int group,
                                         MachineParams machine, int count, int length, long seed) {
    return evaluate(weights, lowered, bits, group, org.llmnpu.isa.Command.DENSE, machine, count, length, seed);
  }

  /** As above with block-weight GEMMs of N:M mode {@code sparsity} (2:4: {@code lowered} already pruned). */
  public static LogitComparison evaluate(ModelWeights weights, ModelWeights lowered, int bits, int group, int sparsity,
                                         MachineParams machine, int count, int length, long seed) {
    return evaluate(weights, new LoweredModel(lowered, machine, length, length, bits, group, sparsity), count, length,
        seed);
  }

  /** As above for the weight format {@code format} of {@link WeightFormats} (e.g. {@code mxfp8}). */
  public static LogitComparison evaluate(ModelWeights weights, String format, MachineParams machine, int count,
                                         int length, long seed) {
    return evaluate(weights, WeightFormats.lower(weights, format, machine, length, length), count, length, seed);
  }

  /** As above with the programs lowered at fusion level {@code fusion}. */
  public static LogitComparison evaluate(ModelWeights weights, String format, MachineParams machine, int count,
                                         int length, long seed, Fusion fusion) {
    return evaluate(weights, format, machine, count, length, seed, fusion, false);
  }

  /** As above, q, k and v with calibrated static scales when {@code staticQkv} ({@link DecoderLowering#staticQkv}). */
  public static LogitComparison evaluate(ModelWeights weights, String format, MachineParams machine, int count,
                                         int length, long seed, Fusion fusion, boolean staticQkv) {
    return evaluate(weights, WeightFormats.lower(weights, format, machine, length, length), count, length, seed,
        fusion, staticQkv);
  }

  private static LogitComparison evaluate(ModelWeights weights, LoweredModel model, int count, int length, long seed) {
    return evaluate(weights, model, count, length, seed, Fusion.NONE, false);
  }

  /**
   * As above with the W2 input smoothed at strength {@code w2Smoothing} (≤ 0: not smoothed) where the gated path
   * smooths it ({@link PpmEpilogues#stored}, whose own strength is 0.5): for measuring that choice.
   */
  public static LogitComparison evaluate(ModelWeights weights, String format, MachineParams machine, int count,
                                         int length, long seed, Fusion fusion, double w2Smoothing) {
    LoweredModel model = WeightFormats.lower(weights, format, machine, length, length);
    model.epilogues.w2Smoothing = w2Smoothing;
    return evaluate(weights, model, count, length, seed, fusion, false);
  }

  /**
   * As {@link #evaluate(ModelWeights, String, MachineParams, int, int, long, Fusion, boolean)}, one comparison per
   * sequence (its {@code length} positions), in the sequences' order: for the spread across sequences and paired
   * differences between two variants on the same sequences.
   */
  public static List<LogitComparison> perSequence(ModelWeights weights, String format, MachineParams machine,
                                                  int count, int length, long seed, Fusion fusion, boolean staticQkv) {
    float[][][][] logits = logits(weights, WeightFormats.lower(weights, format, machine, length, length), count,
        length, seed, fusion, staticQkv);
    List<LogitComparison> out = new ArrayList<>();
    for (int s = 0; s < count; s++) {
      out.add(LogitComparison.compare(logits[0][s], logits[1][s]));
    }
    return out;
  }

  private static LogitComparison evaluate(ModelWeights weights, LoweredModel model, int count, int length, long seed,
                                          Fusion fusion, boolean staticQkv) {
    float[][][][] logits = logits(weights, model, count, length, seed, fusion, staticQkv);
    float[][] reference = new float[count * length][];
    float[][] npu = new float[count * length][];
    for (int s = 0; s < count; s++) {
      System.arraycopy(logits[0][s], 0, reference, s * length, length);
      System.arraycopy(logits[1][s], 0, npu, s * length, length);
    }
    return LogitComparison.compare(reference, npu);
  }

  /** {@code [0]}: the FP32 logits, {@code [1]}: the NPU's, per sequence and position. */
  private static float[][][][] logits(ModelWeights weights, LoweredModel model, int count, int length, long seed,
                                      Fusion fusion, boolean staticQkv) {
    Transformer fp32 = new Transformer(weights);
    int[][] sequences = SampledSequences.sample(fp32, count, length, seed);
    float[][][][] out = new float[2][count][][];
    for (int s = 0; s < count; s++) {
      out[0][s] = fp32.forwardAll(sequences[s], fp32.newCache(length));
      NpuDecoder decoder = new NpuDecoder(model, DecoderLowering.largestBlock(model, 16), NpuEngine.GOLDEN, fusion);
      decoder.lowering().staticQkv(staticQkv);
      out[1][s] = decoder.prefill(sequences[s], true).logits();
    }
    return out;
  }
}
