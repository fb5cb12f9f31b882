package org.llmnpu.isa;

/**
 * The GEMM and post-processing (PPM, PPU) commands. They are declared here and inherited by {@link Command}, so
 * callers name them {@code Command.Gemm}, {@code Command.PpmCfg}, {@code Command.PpuTab}, {@code Command.Ppm} and
 * the constants {@code Command.DENSE}, {@code Command.S2_4}, {@code Command.S4_8}, {@code Command.PPM_RECORD_BYTES}.
 * Only {@code Command} extends this interface; it holds the family's records and constants, nothing else.
 */
public sealed interface GemmCommands permits Command {
  /**
   * GEMM: X is M rows of K INT8 at scratchpad byte {@code x} (row stride {@code xStride}), W is K rows
   * of N INT8 at {@code w} (stride {@code wStride}); Y (M rows of N little-endian INT32) goes to
   * {@code y} (stride {@code yStride}). {@code sparsity} ({@link #DENSE}, {@link #S2_4}, {@link #S4_8}):
   * with an N:M mode W is compressed: {@code S = E·ceil(K/G)} value rows (row {@code g·E + j} holds
   * entry j of K group g for every column, N INT8) at {@code w + r·wStride}, followed by S metadata rows
   * at {@code w + (S + r)·wStride} (N bytes: the entry's position 0..G−1 in its group, low bits), E
   * kept of G = 2 of 4 or 4 of 8. {@code accumulate} (0 or 1, word 2 bit 16): 1 adds the results to the INT32
   * values already at Y, {@code Y = wrap32(Y + X·W)} (two's-complement wraparound of the sum; X·W itself is the
   * array's result, saturated per K tile at the accumulator width as without the flag).
   *
   * <p>Fused-datapath flags (word 2; see {@code npu-isa/README.md}): {@code wStream} (bit 19) 1 reads W from
   * external memory at {@code w} (stride {@code wStride}) and streams it into the array instead of from the
   * scratchpad; {@code wInt4} (bit 20, only with {@code wStream}) 1 says the streamed W bytes each hold two
   * signed INT4 entries, 2 (bit 22 instead) that they are group-scaled INT4 ({@link StreamedWeights}: each group of
   * 32 W rows preceded by two rows of per-column multipliers, the entries widened to INT8 on the stream);
   * {@code ppm} (bit 21) 1 routes the results through the PPM (per-column parameters of parameter bank 0) and
   * writes INT8 codes to Y instead of INT32; 2 (bits 21 and 23) does so with parameter bank 1 ({@link PpmCfg});
   * {@code gate} (bit 24, only with {@code ppm}) 1 multiplies each result in the PPM by the INT8 gate code already at its
   * Y byte (the SwiGLU gate, in place: {@code numerics.ppu.Ppm.processGated}; an NPU with
   * {@link MachineParams#ppmGate()}); {@code xKeep} (bit 25) 1 copies no X: the passes use the engine's X buffer as the
   * last X copy left it ({@code x} and {@code xStride} are not read; {@link HeldX}; an NPU with
   * {@link MachineParams#xKeep()}).
   */
  record Gemm(long m, long k, long n, long x, long xStride, long w, long wStride, long y, long yStride,
              long sparsity, long accumulate, long wStream, long wInt4, long ppm, long gate, long xKeep)
      implements Command {
    /** A GEMM that copies its X ({@code xKeep} 0). */
    public Gemm(long m, long k, long n, long x, long xStride, long w, long wStride, long y, long yStride,
                long sparsity, long accumulate, long wStream, long wInt4, long ppm, long gate) {
      this(m, k, n, x, xStride, w, wStride, y, yStride, sparsity, accumulate, wStream, wInt4, ppm, gate, 0);
    }

    /** A GEMM without the gate operand. */
    public Gemm(long m, long k, long n, long x, long xStride, long w, long wStride, long y, long yStride,
                long sparsity, long accumulate, long wStream, long wInt4, long ppm) {
      this(m, k, n, x, xStride, w, wStride, y, yStride, sparsity, accumulate, wStream, wInt4, ppm, 0);
    }

    /** A GEMM without the fused-datapath flags. */
    public Gemm(long m, long k, long n, long x, long xStride, long w, long wStride, long y, long yStride,
                long sparsity, long accumulate) {
      this(m, k, n, x, xStride, w, wStride, y, yStride, sparsity, accumulate, 0, 0, 0);
    }

    /** A dense GEMM. */
    public Gemm(long m, long k, long n, long x, long xStride, long w, long wStride, long y, long yStride) {
      this(m, k, n, x, xStride, w, wStride, y, yStride, DENSE);
    }

    /** A GEMM that overwrites Y. */
    public Gemm(long m, long k, long n, long x, long xStride, long w, long wStride, long y, long yStride,
                long sparsity) {
      this(m, k, n, x, xStride, w, wStride, y, yStride, sparsity, 0);
    }

    /** Whether the results are added to Y (the accumulate-into flag). */
    public boolean accumulates() {
      return accumulate != 0;
    }

    /** Whether W streams from external memory (word 2 bit 19). */
    public boolean streamsWeights() {
      return wStream != 0;
    }

    /** Whether the streamed W bytes hold two INT4 entries each (word 2 bit 20, or bit 22 group-scaled). */
    public boolean int4Weights() {
      return wInt4 != 0;
    }

    /** Whether the streamed INT4 W is group-scaled ({@code wInt4=2}, word 2 bit 22; {@link StreamedWeights}). */
    public boolean groupScaledWeights() {
      return wInt4 == 2;
    }

    /** Whether the results go through the PPM and land as INT8 codes (word 2 bit 21). */
    public boolean throughPpm() {
      return ppm != 0;
    }

    /** The PPM parameter bank a {@code ppm=1} (0) or {@code ppm=2} (1, word 2 bit 23) GEMM reads. */
    public int ppmBank() {
      return ppm == 2 ? 1 : 0;
    }

    /** Whether the PPM multiplies each result by the gate code at its Y byte (word 2 bit 24, the SwiGLU gate). */
    public boolean gated() {
      return gate != 0;
    }

    /** Whether the GEMM uses the X the engine's X buffer holds instead of copying X (word 2 bit 25). */
    public boolean keepsX() {
      return xKeep != 0;
    }

    /** The same GEMM with {@code xKeep} set to {@code keep} (1: use the X buffer as the last X copy left it). */
    public Gemm withXKeep(long keep) {
      return new Gemm(m, k, n, x, xStride, w, wStride, y, yStride, sparsity, accumulate, wStream, wInt4, ppm, gate, keep);
    }

    /** Whether any fused-datapath flag is set. */
    public boolean fused() {
      return wStream != 0 || wInt4 != 0 || ppm != 0 || gate != 0;
    }

    @Override
    public Opcode opcode() {
      return Opcode.GEMM;
    }

    @Override
    public <R> R accept(Visitor<R> visitor) {
      return visitor.visitGemm(this);
    }

    /** Kept entries per group (1 dense, 2 for 2:4, 4 for 4:8). */
    public int kept() {
      return sparsity == S2_4 ? 2 : sparsity == S4_8 ? 4 : 1;
    }

    /** K elements per group (1 dense, 4, 8). */
    public int group() {
      return sparsity == S2_4 ? 4 : sparsity == S4_8 ? 8 : 1;
    }

    /** Rows of W in the scratchpad: K dense; value rows + metadata rows {@code 2·E·ceil(K/G)} with N:M. */
    public long wRows() {
      return sparsity == DENSE ? k : 2L * kept() * ((k + group() - 1) / group());
    }
  }

  /** GEMM sparsity codes (word 2 bits 18:17). */
  int DENSE = 0;
  int S2_4 = 1;
  int S4_8 = 2;

  /** Bytes of one {@link PpmCfg} channel record. */
  int PPM_RECORD_BYTES = 16;

  /**
   * Loads the PPM's per-channel parameter memory, channels {@code first .. first+channels−1} (the memory holds
   * {@code max(rows, maxN)} channels; channel j requantizes output column j of a {@link Ppm} and of a
   * {@link Gemm} with {@code ppm=1}) from {@code channels} records of {@link #PPM_RECORD_BYTES} bytes at
   * {@code ext} (line-aligned): bytes 0..3 the INT32 bias (little-endian), 4..7 the Q0.31 multiplier (bits 30:0;
   * 0 or 2^30..2^31−1), byte 8 the shift (bits 5:0, signed, −31..31, positive = left), byte 9 the output zero
   * point (INT8), bytes 10..15 ignored. The other channels keep their values (0 after reset). {@code first}
   * (word 3) is 0 unless given. The PPM holds two such <b>parameter banks</b>: {@code bank} (word 4, 0 or 1,
   * default 0) is the one written; a {@code gemm ppm=1} reads bank 0, {@code ppm=2} bank 1, a {@code ppm} bank 0. A
   * {@code ppmcfg} of the bank the running GEMM's PPM does not read goes beside that GEMM's back-end.
   */
  record PpmCfg(long ext, long channels, long first, long bank) implements Command {
    /** Channels 0..channels−1 of bank 0. */
    public PpmCfg(long ext, long channels) {
      this(ext, channels, 0);
    }

    /** Channels first..first+channels−1 of bank 0. */
    public PpmCfg(long ext, long channels, long first) {
      this(ext, channels, first, 0);
    }

    @Override
    public Opcode opcode() {
      return Opcode.PPMCFG;
    }

    @Override
    public <R> R accept(Visitor<R> visitor) {
      return visitor.visitPpmCfg(this);
    }
  }

  /**
   * Loads the PPU's C-LUT from the table image at {@code ext} (line-aligned): {@code lutEntries}
   * 16-bit little-endian signed entries in the PPM's address order (the segments−1 INT8 boundaries,
   * the coefficients segment-major, the degree+1 fractional bits), {@code 2·lutEntries} bytes (132 for
   * the NPU's 16-segment degree-2 table). Only on an NPU built with the PPU.
   */
  record PpuTab(long ext) implements Command {
    @Override
    public Opcode opcode() {
      return Opcode.PPUTAB;
    }

    @Override
    public <R> R accept(Visitor<R> visitor) {
      return visitor.visitPpuTab(this);
    }
  }

  /**
   * Requantizes {@code m} rows of {@code n} (1..rows) INT32 accumulators, row i at
   * {@code src + i·srcStride} (little-endian), to INT8 codes at {@code dst + i·dstStride}: element j is
   * {@code numerics.ppu.Ppm.process(acc, bias_j, params_j, table)} with lane j's {@link PpmCfg}
   * parameters (activation NONE: clamp to INT8) and, on an NPU with the PPU, the loaded {@link PpuTab}
   * table. Bytes of the destination rows beyond n are unchanged.
   */
  record Ppm(long src, long srcStride, long dst, long dstStride, long m, long n) implements Command {
    @Override
    public Opcode opcode() {
      return Opcode.PPM;
    }

    @Override
    public <R> R accept(Visitor<R> visitor) {
      return visitor.visitPpm(this);
    }
  }
}
