package org.llmnpu.sw.lower;

import org.llmnpu.isa.Command;
import org.llmnpu.isa.MachineParams;

/**
 * The shape of {@link LoweredModel}'s block weights in external memory and in the scratchpad for one machine and one
 * weight format (INT8 or INT4 per channel or in groups of K, 2:4-sparse INT8, OCP MX): rows, row strides, bytes, the
 * K chunks of a GEMM ({@link KSplit}), the 2:4 streamed layout's and the group-scaled copy's rows, the dspin shift σ;
 * and the checks that the format is one the machine runs. The formats themselves are described at
 * {@link LoweredModel}'s constructors.
 */
abstract class WeightGeometry {
  /** Bits of the block weights' codes: 8 or 4. */
  final int bits;
  /** Rows of K per weight-quantization group (0: one scale per output channel). */
  final int weightGroup;
  /** The {@code loadmx} format of MX block weights ({@code MxLoad.E4M3} for mxfp8), or -1 (integer weights). */
  final int mxFormat;
  /** N:M mode of the block weights' GEMMs ({@link Command#DENSE} or {@link Command#S2_4}). */
  final int sparsity;
  /** The machine's line (bytes). */
  final int line;
  private final int maxK;

  /** Checks the weight format against {@code machine}; throws with the parameter and its allowed values. */
  WeightGeometry(MachineParams machine, int weightBits, int weightGroup, int sparsity, int mxFormat) {
    if (mxFormat >= 0 && sparsity != Command.DENSE) {
      throw new IllegalArgumentException("MX weights are dense, got sparsity " + sparsity);
    }
    if (mxFormat >= 0) {
      org.llmnpu.isa.MxLoad.type(mxFormat);
      if (weightBits != 8 || weightGroup != org.llmnpu.numerics.mx.MxBlock.SIZE) {
        throw new IllegalArgumentException("MX weights need weightBits 8 and weightGroup "
            + org.llmnpu.numerics.mx.MxBlock.SIZE + ", got " + weightBits + " and " + weightGroup);
      }
      if (!machine.mxLoad()) {
        throw new IllegalArgumentException("MX weights need an NPU with MX decoding on the load path (mxLoad = true;"
            + " npu-rtl NpuConfig.withMxLoad, -p mxLoad=true)");
      }
    }
    this.mxFormat = mxFormat;
    if (sparsity != Command.DENSE && sparsity != Command.S2_4) {
      throw new IllegalArgumentException("sparsity must be 0 (dense) or 1 (2:4), got " + sparsity);
    }
    if (sparsity == Command.S2_4 && (weightBits != 8 || weightGroup != 0)) {
      throw new IllegalArgumentException("2:4-sparse weights are INT8 per channel: weightBits 8 and weightGroup 0, got "
          + weightBits + " and " + weightGroup);
    }
    if (sparsity != Command.DENSE && machine.lineBytes() % 4 != 0) {
      throw new IllegalArgumentException("2:4-sparse weights need a line (" + machine.lineBytes() + " bytes) that is a "
          + "multiple of 4: K chunks must start at group boundaries");
    }
    if (sparsity != Command.DENSE && machine.sparsity() != sparsity) {
      throw new IllegalArgumentException("2:4-sparse weights need an NPU whose MAC array is built for 2:4 "
          + "(MachineParams.sparsity 1, e.g. NpuTargets.sparse24()), got sparsity " + machine.sparsity());
    }
    this.sparsity = sparsity;
    if (weightBits != 8 && weightBits != 4) {
      throw new IllegalArgumentException("weightBits must be 8 or 4, got " + weightBits);
    }
    if (weightGroup != 0 && (weightGroup % machine.lineBytes() != 0 || weightGroup > machine.maxK())) {
      throw new IllegalArgumentException("weightGroup must be 0 (per channel) or a multiple of the line ("
          + machine.lineBytes() + " bytes) not above maxK " + machine.maxK() + ", got " + weightGroup);
    }
    this.bits = weightBits;
    this.weightGroup = weightGroup;
    line = machine.lineBytes();
    maxK = machine.maxK();
  }

  static int roundUp(long n, int to) {
    return (int) ((n + to - 1) / to * to);
  }

  /**
   * {@code n} FP16 elements rounded up to where the next vector of a layer's vector block may start: a multiple of 8
   * and of a line ({@code line/2} elements), since each vector goes to the DSP with a {@code dspin} from a line.
   */
  int padVector(int n) {
    return padVector(n, line);
  }

  /** As {@link #padVector(int)} for a {@code line}-byte line. */
  static int padVector(int n, int line) {
    return roundUp(n, Math.max(8, line / 2));
  }

  /** Rows of a K×N block weight in memory and in the scratchpad: K, or {@code roundUp(K, 4)} 2:4-compressed. */
  int weightRows(int k) {
    return sparsity == Command.S2_4 ? roundUp(k, 4) : k;
  }

  /** Memory bytes of a K×N block weight (2:4: value rows, then INT4-packed metadata rows). */
  long matrixBytes(int k, int n) {
    if (sparsity == Command.S2_4) {
      return sparseMetaOffset(k, n) + (long) SparseRows.values(k) * metaStride(n);
    }
    return (long) weightRows(k) * extStride(n);
  }

  /** Bytes from a 2:4 block weight's first value row to its first metadata row in memory. */
  long sparseMetaOffset(int k, int n) {
    return (long) SparseRows.values(k) * extStride(n);
  }

  /** Memory row stride of the packed metadata rows: {@link SparseRows#metaBytes} line-padded. */
  int metaStride(int n) {
    return roundUp(SparseRows.metaBytes(n), line);
  }

  /** How a GEMM over K is cut into chunks on this machine ({@link KSplit#of}: the largest line multiple not above maxK). */
  KSplit split(int k) {
    return KSplit.of(k, maxK, maxK / line * line);
  }

  /** Scratchpad row stride of a block weight with N columns (INT8 after {@code load4}). */
  int spadStride(int n) {
    return roundUp(n, bits == 4 ? 2 * line : line);
  }

  /** Memory row stride of a block weight with N columns (half the scratchpad's for INT4). */
  int extStride(int n) {
    return bits == 4 ? spadStride(n) / 2 : spadStride(n);
  }

  /** The σ of a GEMM over K: INT32 results times 2^σ are below 2^15 for any INT8 operands. */
  static int shift(int k) {
    long worst = 127L * 127L * k;
    int bits = 64 - Long.numberOfLeadingZeros(worst - 1);
    return 15 - bits;
  }

  /** Bytes from a streamed 2:4 weight's start to its K chunk {@code chunk} (K×N, chunks of {@link #split}). */
  long streamedSparseOffset(int k, int n, int chunk) {
    KSplit ks = split(k);
    long rows = 0;
    for (int c = 0; c < chunk; c++) {
      int v = SparseRows.values(ks.length(c));
      rows += v + (v + 3) / 4;
    }
    return rows * extStride(n);
  }

  /**
   * Whether block weights of {@code bits}, {@code group} and MX format {@code mxFormat} get group-scaled copies on
   * {@code p} ({@link LoweredModel#groupScaledStream}): INT4 in groups of 32, an NPU that streams weights, K chunks (of block
   * weights up to {@code maxK} rows of K) starting at group boundaries. The copy is for the streamed GEMMs
   * ({@code gemm wInt4=2}, {@code npu-isa StreamedWeights}): each group's INT4 codes are kept; its scale {@code s_g}
   * becomes the multiplier {@code u_g = rint(255·s_g / s_max)} (0..255, {@code s_max} the column's largest group
   * scale) of the column's scale {@code s_c = 16·s_max / 255}, so the load path hands the array the INT8 weight
   * {@code (q·u_g + 8) >> 4} and the DSP dequantizes the GEMM's INT32 result once per channel with {@code s_c}, as
   * for {@code int4}.
   */
  static boolean groupScaledStream(MachineParams p, int bits, int group, int mxFormat, int maxK) {
    int line = p.lineBytes();
    return bits == 4 && group == org.llmnpu.isa.StreamedWeights.SCALE_GROUP && mxFormat < 0 && p.weightStream()
        && (p.maxK() / line * line % group == 0 || maxK <= p.maxK());
  }

  /** The first element of the channel vectors after {@code groupVectorsEnd} elements: the next line. */
  static int channelVectorStart(int groupVectorsEnd, int line) {
    return roundUp(groupVectorsEnd, Math.max(1, line / 2));
  }

  /**
   * Rows of a group-scaled copy before W row {@code k0} (a group start; K for the whole copy): {@code k0} INT4 rows
   * and two multiplier rows a group ({@code npu-isa StreamedWeights}).
   */
  static long groupScaledRow(int k0) {
    return k0 + 2L * ((k0 + org.llmnpu.isa.StreamedWeights.SCALE_GROUP - 1) / org.llmnpu.isa.StreamedWeights.SCALE_GROUP);
  }

  /** Bytes of a K×N 2:4 block weight's whole streamed layout (every K chunk, {@link #streamedSparseOffset}). */
  long streamedSparseBytes(int k, int n) {
    return streamedSparseOffset(k, n, split(k).count());
  }

  /** Scale vectors of a block weight over K: its groups, or 1 (per channel). */
  int groups(int k) {
    return weightGroup > 0 ? (k + weightGroup - 1) / weightGroup : 1;
  }

  /** Elements from one group's scale vector of an N-wide weight to the next group's. */
  int groupStride(int n) {
    return padVector(n);
  }
}
