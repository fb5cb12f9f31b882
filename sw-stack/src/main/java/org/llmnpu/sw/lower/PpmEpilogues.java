package org.llmnpu.sw.lower;

import java.util.Set;
import org.llmnpu.isa.Command;
import org.llmnpu.isa.IsaSimulator;
import org.llmnpu.numerics.fp16.Fp16;
import org.llmnpu.numerics.ppu.PpuFitter;
import org.llmnpu.numerics.ppu.PpuFormat;
import org.llmnpu.numerics.ppu.PpuTable;
import org.llmnpu.numerics.ppu.QuantSpec;
import org.llmnpu.numerics.requant.GatedRequantizer;
import org.llmnpu.numerics.requant.OutputFormat;
import org.llmnpu.numerics.requant.QuantizedMultiplier;
import org.llmnpu.sw.model.ModelWeights;

/**
 * The data of the fused lowering's GEMM epilogues through the PPM ({@code gemm ppm=1}, {@code --fusion vertical}),
 * kept at the top of the external memory (below it the DSP program pool ends; the unfused program's addresses are
 * unchanged). Per layer:
 * <ul>
 *   <li>a copy of W1|W3 whose W3 columns start at {@link #h3} (a multiple of two lines, so that each streamed GEMM's
 *   W tile starts line-aligned, INT4 pairs too); the staged layout's W3 starts right after W1;</li>
 *   <li>the SiLU C-LUT ({@code pputab} image): input codes of the gate's static scale, output codes of SiLU(gate)'s,
 *   fitted by {@link PpuFitter} to {@code silu(q·s_gate)/s_silu};</li>
 *   <li>per gate column a {@code ppmcfg} record: bias 0, multiplier {@code s_x·s_n / s_gate} (the W1|W3 input's
 *   static scale, the column's weight scale as the DSP path uses it — FP16 {@code s_n·2^-σ} times {@code 2^σ} — and
 *   the gate's static output scale), zero point 0. The up (W3) columns leave the array as INT32 and the DSP
 *   dequantizes them (an identity table and two {@code ppmcfg}s a layer cost more than that).</li>
 *   <li>on an NPU whose PPM has the gate operand ({@link #gated}, {@code MachineParams.ppmGate}), per up column a
 *   {@code ppmcfg} record of the gated requantization ({@code gemm ppm=1 gate=1}: up's INT32 times the SiLU code already
 *   at the Y byte, {@code numerics} {@code GatedRequantizer}): multiplier {@code 128·s_x·s_n·s_silu / s_h}, {@code s_h}
 *   the W2 input's static scale ({@link StaticScales.Site#W2_IN}), bias and zero point 0.</li>
 * </ul>
 * The static scales are {@link StaticScales}, calibrated when a fused decoder first needs the data
 * ({@link LoweredModel#epilogueScales}); a layout without weights uses placeholders (same commands). On an NPU whose
 * PPM gates, the layout stores the weights with the W2 input smoothed per channel ({@link #stored}).
 *
 * <p>The epilogue applies to per-channel INT8 and INT4 block weights, dense or 2:4 (on the NPU's 2:4 array: the
 * aligned copy is then in the streamed 2:4 layout, value rows and packed positions, {@code npu-isa StreamedWeights};
 * a sparse GEMM through the PPM drains the same INT32 values as the dense GEMM of the zero-filled weights) on an NPU
 * whose PPM has the PPU, when W1|W3's K is one GEMM (K ≤ maxK): a K-chunked, grouped ({@code int4-g32}) or MX weight
 * keeps the DSP path (its partial sums are combined on the DSP).
 */
final class PpmEpilogues {
  private final LoweredModel m;
  /** Whether the epilogue applies to this model and machine (see the class comment). */
  final boolean applies;
  /** SmoothQuant's migration strength at the W2 input on an NPU whose PPM gates ({@link #stored}). */
  static final double W2_SMOOTHING = 0.5;
  /** The strength {@link #stored} uses (≤ 0: none); other values only for measuring them, before the image exists. */
  double w2Smoothing = W2_SMOOTHING;
  /** Whether the up columns' records of the gated PPM are written too (an NPU whose PPM has the gate operand). */
  final boolean gated;
  /** First W3 column of the aligned W1|W3 copy. */
  final int h3;
  /** Columns of the aligned copy. */
  final int n13;
  private final int tableBytes;
  private final long w13Bytes;
  private final long layerBytes;
  /** Start of the data (the layout's top when it does not apply). */
  final long base;
  /** The layout's top of external memory ({@link MemoryImage#top}): the data ends there, and the memory image. */
  final long top;

  /** The data below the top of the layout whose regions end at {@code regionsEnd} ({@link MemoryImage#top}). */
  PpmEpilogues(LoweredModel model, int line, long regionsEnd) {
    this.m = model;
    var c = model.config();
    var p = model.machine();
    applies = applies(p, c.dim(), model.weightGroup, model.sparsity, model.mxFormat);
    gated = applies && p.ppmGate();
    h3 = LoweredModel.roundUp(c.hiddenDim(), 2 * line);
    n13 = h3 + c.hiddenDim();
    tableBytes = LoweredModel.roundUp(IsaSimulator.ppuTableBytes(), line);
    w13Bytes = LoweredModel.roundUp(model.sparsity == Command.S2_4 ? model.streamedSparseBytes(c.dim(), n13)
        : model.matrixBytes(c.dim(), n13), line);
    layerBytes = w13Bytes + tableBytes + (gated ? 2 : 1) * recordBytes(c.hiddenDim(), line);
    long bytes = applies ? layerBytes * c.layers() + line : 0;
    top = MemoryImage.top(p, regionsEnd, bytes);
    base = applies ? (top - layerBytes * c.layers()) / line * line : top;
  }

  /**
   * Whether the epilogue applies to block weights of group {@code weightGroup} (0: per channel), N:M mode
   * {@code sparsity} and MX format {@code mxFormat} (-1: integer) over a model dimension {@code dim} on {@code p}.
   */
  static boolean applies(org.llmnpu.isa.MachineParams p, int dim, int weightGroup, int sparsity, int mxFormat) {
    return whyNot(p, dim, weightGroup, sparsity, mxFormat).isEmpty();
  }

  /** Why the epilogue does not apply (see {@link #applies}), each reason for an architect; empty when it applies. */
  static java.util.List<String> whyNot(org.llmnpu.isa.MachineParams p, int dim, int weightGroup, int sparsity,
                                       int mxFormat) {
    int line = p.lineBytes();
    java.util.List<String> why = new java.util.ArrayList<>();
    if (mxFormat >= 0) {
      why.add("MX weights (a GEMM per block of 32 rows of K, partials summed on the DSP)");
    }
    if (weightGroup > 0) {
      why.add("grouped weight scales (a GEMM per group of " + weightGroup + " rows of K, partials summed on the DSP)");
    }
    if (sparsity == Command.S2_4 && p.sparsity() != Command.S2_4) {
      why.add("2:4 weights on an NPU without a 2:4 array (sparsity: dense)");
    } else if (sparsity != Command.DENSE && sparsity != Command.S2_4) {
      why.add("N:M mode " + sparsity + " (only dense and 2:4 stream into the array)");
    }
    if (p.ppmLatency() <= 0 || !p.ppu()) {
      why.add("this NPU's PPM has no PPU (ppu: false or no PPM), so no SiLU C-LUT");
    }
    if (KSplit.of(dim, p.maxK(), p.maxK() / line * line).count() != 1) {
      why.add("W1|W3's K = " + dim + " exceeds the engine's maxK " + p.maxK() + " (K chunks summed on the DSP)");
    }
    if (!p.weightStream()) {
      why.add("this NPU does not stream weights into the array");
    }
    if (p.maxN() < 2 * line) {
      why.add("the engine's maxN " + p.maxN() + " is below two lines (" + 2 * line + " columns)");
    }
    return why;
  }

  /**
   * The weights the layout stores: {@code w}, or with 8-bit block weights on an NPU whose PPM gates ({@link #gated})
   * {@code w} with the W2 input smoothed per channel ({@link SmoothQuant} at that site alone, α = {@value #W2_SMOOTHING},
   * calibrated on {@link StaticScales#calibrationSequences}): W3's output channel c divided by {@code t_c}, W2's input
   * row c multiplied by it, so the FP32 function is unchanged (every fusion level runs these weights). The gated path
   * quantizes the W2 input {@code SiLU(gate)·up} with one static scale a layer (the PPM's multiplier is fixed per
   * column); evening out its channels' ranges first cuts that scale's error (stories260K held out, int8, 8 × 64
   * tokens: KL 0.186 → 0.153, {@code FusionAccuracyBench}). The division costs nothing on the NPU: W3 is quantized
   * per output channel, so its codes are the same and only its scales, and with them the gated requantization's
   * multipliers, change. INT4 weights are not smoothed: their per-channel codes are too coarse to take the range
   * moved into W2 (a W8A8 method; it flips stories260K's first-position top-1 at int4).
   */
  ModelWeights stored(ModelWeights w) {
    return gated && m.bits == 8 && w2Smoothing > 0 ? SmoothQuant.apply(w, StaticScales.calibrationSequences(w),
        w2Smoothing, Set.of(QuantSiteForward.Site.W2_IN)) : w;
  }

  long w13(int layer) {
    return base + layer * layerBytes;
  }

  long siluTable(int layer) {
    return w13(layer) + w13Bytes;
  }

  long gateRecords(int layer) {
    return siluTable(layer) + tableBytes;
  }

  /** The up columns' gated records ({@link #gated} only): after the gate's. */
  long upRecords(int layer) {
    return gateRecords(layer) + recordBytes(m.config().hiddenDim(), m.machine().lineBytes());
  }

  private static long recordBytes(int channels, int line) {
    return LoweredModel.roundUp((long) channels * Command.PPM_RECORD_BYTES, line);
  }

  /** Writes every layer's data into {@code image} (weights and their scales already written) for {@code scales}. */
  void write(byte[] image, ModelWeights w, StaticScales scales) {
    var c = m.config();
    WeightImage weights = new WeightImage(m, image);
    int sigma = LoweredModel.shift(c.dim());
    for (int l = 0; l < c.layers(); l++) {
      weights.putW13(w, l, w13(l), h3);
      double sGate = scales.of(StaticScales.Site.GATE, l);
      double sSilu = scales.of(StaticScales.Site.SILU, l);
      put(image, siluTable(l), IsaSimulator.ppuTableImage(siluTable(sGate, sSilu)));
      double sx = scales.of(StaticScales.Site.W13_IN, l);
      long vectors = m.layerVectors[l];
      for (int n = 0; n < c.hiddenDim(); n++) {
        put(image, gateRecords(l) + (long) n * Command.PPM_RECORD_BYTES,
            record(sx * weightScale(image, vectors + 2L * (m.vW1 + n), sigma) / sGate));
        if (gated) {
          var params = GatedRequantizer.params(sx * weightScale(image, vectors + 2L * (m.vW3 + n), sigma), sSilu,
              scales.of(StaticScales.Site.W2_IN, l), 0, OutputFormat.INT8);
          put(image, upRecords(l) + (long) n * Command.PPM_RECORD_BYTES,
              IsaSimulator.ppmRecord(0, params.multiplier(), 0));
        }
      }
    }
  }

  /** The SiLU C-LUT from gate codes of scale {@code sIn} to SiLU codes of scale {@code sOut}. */
  static PpuTable siluTable(double sIn, double sOut) {
    double[] ideal = new double[256];
    for (int q = -128; q <= 127; q++) {
      double x = q * sIn;
      ideal[q + 128] = x / (1 + StrictMath.exp(-x)) / sOut;
    }
    return PpuFitter.fit("silu", ideal, PpuFormat.DEFAULT, new QuantSpec(sIn, 0), new QuantSpec(sOut, 0));
  }

  /** The table that gives every INT8 code back (a requantize-only PPU pass; the lowering's up columns skip the PPM). */
  static PpuTable identityTable() {
    double[] ideal = new double[256];
    for (int q = -128; q <= 127; q++) {
      ideal[q + 128] = q;
    }
    return PpuFitter.fit("identity", ideal, PpuFormat.DEFAULT, new QuantSpec(1, 0), new QuantSpec(1, 0));
  }

  private static double weightScale(byte[] image, long at, int sigma) {
    short h = (short) ((image[(int) at] & 0xFF) | (image[(int) at + 1] & 0xFF) << 8);
    return Math.scalb(Fp16.toDouble(h), sigma);
  }

  private static byte[] record(double scale) {
    return IsaSimulator.ppmRecord(0, QuantizedMultiplier.fromScale(scale), 0);
  }

  private static void put(byte[] image, long at, byte[] bytes) {
    System.arraycopy(bytes, 0, image, (int) at, bytes.length);
  }
}
