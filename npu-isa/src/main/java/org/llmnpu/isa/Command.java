package org.llmnpu.isa;

import org.llmnpu.isa.dsp.DspRunParameters;

/**
 * One NPU command. Binary form: {@link #BYTES} bytes, eight little-endian 32-bit words; word 0
 * bits 7:0 hold the opcode, the other bits of word 0 are reserved (zero). The operand words of
 * each command are listed in {@code npu-isa/README.md} and in {@link CommandCodec}.
 */
public sealed interface Command permits Command.Load, Command.Store, Command.Gemm, Command.Fence, Command.Halt,
    Command.Load4, Command.DspTab, Command.DspIn, Command.DspOut, Command.DspRun, Command.DspLoad, Command.Snapshot,
    Command.PpmCfg, Command.PpuTab, Command.Ppm, Command.LoadMx {
  /** Bytes per command in memory. */
  int BYTES = 32;

  Opcode opcode();

  /** Calls {@code visitor}'s method for this command's kind and returns its result. */
  <R> R accept(Visitor<R> visitor);

  /**
   * A computation over commands with one method per command kind. Code that treats each kind its own way (encode,
   * check, execute, disassemble, cost) implements it instead of testing kinds one by one, so that a new kind does
   * not compile until every such place handles it.
   *
   * @param <R> the result of a visit
   */
  interface Visitor<R> {
    R visitLoad(Load c);

    R visitStore(Store c);

    R visitGemm(Gemm c);

    R visitFence(Fence c);

    R visitHalt(Halt c);

    R visitLoad4(Load4 c);

    R visitDspTab(DspTab c);

    R visitDspIn(DspIn c);

    R visitDspOut(DspOut c);

    R visitDspRun(DspRun c);

    R visitDspLoad(DspLoad c);

    R visitSnapshot(Snapshot c);

    R visitPpmCfg(PpmCfg c);

    R visitPpuTab(PpuTab c);

    R visitPpm(Ppm c);

    R visitLoadMx(LoadMx c);
  }

  /**
   * DMA external memory → scratchpad: {@code rows} rows of {@code rowBytes} bytes; row r is read at
   * {@code ext + r·extStride} and written at {@code spad + r·spadStride}. Addresses and strides
   * are bytes and must be multiples of the line (the memory port width).
   */
  record Load(long ext, long extStride, long spad, long spadStride, long rowBytes, long rows) implements Command {
    @Override
    public Opcode opcode() {
      return Opcode.LOAD;
    }

    @Override
    public <R> R accept(Visitor<R> visitor) {
      return visitor.visitLoad(this);
    }
  }

  /** DMA scratchpad → external memory, fields as in {@link Load}. */
  record Store(long ext, long extStride, long spad, long spadStride, long rowBytes, long rows) implements Command {
    @Override
    public Opcode opcode() {
      return Opcode.STORE;
    }

    @Override
    public <R> R accept(Visitor<R> visitor) {
      return visitor.visitStore(this);
    }
  }

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
   * {@link MachineParams#ppmGate()}).
   */
  record Gemm(long m, long k, long n, long x, long xStride, long w, long wStride, long y, long yStride,
              long sparsity, long accumulate, long wStream, long wInt4, long ppm, long gate) implements Command {
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

  /** Waits for all earlier commands. */
  record Fence() implements Command {
    @Override
    public Opcode opcode() {
      return Opcode.FENCE;
    }

    @Override
    public <R> R accept(Visitor<R> visitor) {
      return visitor.visitFence(this);
    }
  }

  /** Ends the program. */
  record Halt() implements Command {
    @Override
    public Opcode opcode() {
      return Opcode.HALT;
    }

    @Override
    public <R> R accept(Visitor<R> visitor) {
      return visitor.visitHalt(this);
    }
  }

  /**
   * DMA external memory → scratchpad with INT4 unpacking: {@code rows} rows of {@code rowBytes} source
   * bytes; each source byte holds two signed INT4 values, the low nibble first, which land as two
   * sign-extended INT8 bytes, so row r fills {@code 2·rowBytes} bytes from {@code spad + r·spadStride}.
   * Alignment rules as for {@link Load}.
   */
  record Load4(long ext, long extStride, long spad, long spadStride, long rowBytes, long rows) implements Command {
    @Override
    public Opcode opcode() {
      return Opcode.LOAD4;
    }

    @Override
    public <R> R accept(Visitor<R> visitor) {
      return visitor.visitLoad4(this);
    }
  }

  /**
   * Loads the Vector DSP's polynomial tables from the {@link #DSP_TABLE_BYTES}-byte image at {@code ext}
   * (line-aligned): FP16 little-endian entry {@code (slot·128 + segment·8 + field)}, slot 0 exp,
   * 1 reciprocal, 2 rsqrt, segment 0..15, field 0 the segment's start and 1 + k coefficient k. The
   * DSP keeps the entries of its {@code tableSegments} segments and {@code tableDegree + 1}
   * coefficients and ignores the rest. Until the first {@code dsptab} the tables are undefined.
   */
  record DspTab(long ext) implements Command {
    @Override
    public Opcode opcode() {
      return Opcode.DSPTAB;
    }

    @Override
    public <R> R accept(Visitor<R> visitor) {
      return visitor.visitDspTab(this);
    }
  }

  /** Bytes of the DSP table image of {@link DspTab}. */
  int DSP_TABLE_BYTES = 3 * 128 * 2;

  /**
   * Scratchpad → DSP buffer: {@code rows} rows of {@code rowElems} elements, row r at
   * {@code spad + r·spadStride} (line-aligned). Element e of row r becomes FP16 element
   * {@code dst·lanes + r·rowElems + e} of the DSP buffer (buffer row {@code dst}, rows packed one
   * after the other, so a matrix becomes a flat vector). {@code format}: {@link #FMT_FP16} (2 bytes,
   * copied), {@link #FMT_INT8} (1 byte, exact), {@link #FMT_INT32} (4 bytes little-endian: the FP16
   * nearest to {@code v·2^shift}, ties to even, overflow to ±∞, as {@code Fp16.fromInt(v, 2^shift)}).
   * {@code shift} is in −24..15 (only used with INT32). {@code dstStride} (word 6 bits 15:0, default 0): 0 packs the
   * rows flat as above; k ≥ 1 puts row r at buffer row {@code dst + r·k} instead (element
   * {@code (dst + r·k)·lanes + e}: each row from lane 0, k rows apart; rows may not overlap, {@code rowElems ≤ k·lanes}
   * when {@code rows > 1}).
   */
  record DspIn(long spad, long spadStride, long rowElems, long rows, long dst, long format, long shift, long dstStride)
      implements Command {
    /** The flat (unstrided) form: {@code dstStride} 0. */
    public DspIn(long spad, long spadStride, long rowElems, long rows, long dst, long format, long shift) {
      this(spad, spadStride, rowElems, rows, dst, format, shift, 0);
    }

    @Override
    public Opcode opcode() {
      return Opcode.DSPIN;
    }

    @Override
    public <R> R accept(Visitor<R> visitor) {
      return visitor.visitDspIn(this);
    }
  }

  /** Element formats of {@link DspIn} and {@link DspOut}. */
  int FMT_FP16 = 0;
  int FMT_INT8 = 1;
  int FMT_INT32 = 2;

  /**
   * DSP buffer → scratchpad, the reverse of {@link DspIn}: element {@code src·lanes + r·rowElems + e}
   * goes to row r, element e, at {@code spad + r·spadStride}. {@code format}: {@link #FMT_FP16} (the
   * 2-byte element) or {@link #FMT_INT8} (the element's low byte, as a DSP {@code TOINT} to INT8
   * leaves it). Bytes of the scratchpad rows beyond {@code rowElems} elements are left unchanged. {@code srcStride}
   * (word 6 bits 15:0, default 0) as {@link DspIn}'s {@code dstStride}: k ≥ 1 reads row r from buffer row
   * {@code src + r·k}, lane 0 on.
   */
  record DspOut(long spad, long spadStride, long rowElems, long rows, long src, long format, long srcStride)
      implements Command {
    /** The flat (unstrided) form: {@code srcStride} 0. */
    public DspOut(long spad, long spadStride, long rowElems, long rows, long src, long format) {
      this(spad, spadStride, rowElems, rows, src, format, 0);
    }

    @Override
    public Opcode opcode() {
      return Opcode.DSPOUT;
    }

    @Override
    public <R> R accept(Visitor<R> visitor) {
      return visitor.visitDspOut(this);
    }
  }

  /**
   * Loads {@code words} 64-bit DSP instruction words (little-endian) from external memory at
   * {@code prog} (line-aligned) into DSP program memory addresses 0..words−1 (the rest keep their
   * contents) and runs the DSP from address {@code entry} until it executes {@code HALT}. With
   * {@code words} 0 (the resident form) it loads nothing ({@code prog} is ignored) and runs the program
   * memory as it is from {@code entry}. The DSP's registers and buffer persist between runs. {@code parameters}
   * (command words 4..6) are the row bases and length a parameterized program reads ({@link DspRunParameters}).
   */
  record DspRun(long prog, long words, long entry, DspRunParameters parameters) implements Command {
    public DspRun {
      java.util.Objects.requireNonNull(parameters, "parameters");
    }

    /** Without run parameters (all zero). */
    public DspRun(long prog, long words, long entry) {
      this(prog, words, entry, DspRunParameters.NONE);
    }

    /** A {@code dsprun} that loads {@code words} words and runs from address 0. */
    public DspRun(long prog, long words) {
      this(prog, words, 0);
    }

    /** The resident form: runs the program memory from {@code entry}, loading nothing. */
    public static DspRun resident(long entry) {
      return new DspRun(0, 0, entry);
    }

    /** The resident form with run parameters: row bases and a length for a parameterized program. */
    public static DspRun resident(long entry, DspRunParameters parameters) {
      return new DspRun(0, 0, entry, parameters);
    }

    /** Loads no program words. */
    public boolean resident() {
      return words == 0;
    }

    @Override
    public Opcode opcode() {
      return Opcode.DSPRUN;
    }

    @Override
    public <R> R accept(Visitor<R> visitor) {
      return visitor.visitDspRun(this);
    }
  }

  /**
   * Loads {@code words} 64-bit DSP instruction words (little-endian) from external memory at {@code prog}
   * (line-aligned) into DSP program memory addresses {@code at .. at + words − 1} (the rest keep their contents)
   * without running them: a later resident {@link DspRun} runs them. {@code 8·at} is a multiple of the line.
   */
  record DspLoad(long prog, long words, long at) implements Command {
    @Override
    public Opcode opcode() {
      return Opcode.DSPLD;
    }

    @Override
    public <R> R accept(Visitor<R> visitor) {
      return visitor.visitDspLoad(this);
    }
  }

  /**
   * Waits for every earlier command, then writes every {@link Counter} (in {@code Counter} order, 64
   * bits little-endian each) to external memory at {@code ext} (line-aligned): the values as of the
   * snapshot's first execution cycle, its own fetch and decode counted, its own writes not.
   */
  record Snapshot(long ext) implements Command {
    @Override
    public Opcode opcode() {
      return Opcode.SNAPSHOT;
    }

    @Override
    public <R> R accept(Visitor<R> visitor) {
      return visitor.visitSnapshot(this);
    }
  }

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

  /**
   * DMA external memory → scratchpad with MX element decoding: {@code rows} rows of {@code rowBytes}
   * bytes as {@link Load}, every byte an MX element of {@code format} ({@link MxLoad#E4M3},
   * {@link MxLoad#E5M2}, {@link MxLoad#INT8}) that lands as the INT8 code {@link MxLoad#code}: the
   * element's value aligned to the format's top binade (7 magnitude bits), rounded to nearest even.
   * The blocks' E8M0 scales are not read: the software applies them with the alignment
   * ({@link MxLoad#codeExponent}) to each block's INT32 partial. Only on an NPU built with
   * {@link MachineParams#mxLoad()}.
   */
  record LoadMx(long ext, long extStride, long spad, long spadStride, long rowBytes, long rows, long format)
      implements Command {
    @Override
    public Opcode opcode() {
      return Opcode.LOADMX;
    }

    @Override
    public <R> R accept(Visitor<R> visitor) {
      return visitor.visitLoadMx(this);
    }
  }
}
