package org.llmnpu.isa;

import org.llmnpu.isa.dsp.DspRunParameters;

/**
 * The Vector DSP commands. They are declared here and inherited by {@link Command}, so callers name them
 * {@code Command.DspTab}, {@code Command.DspIn}, {@code Command.DspOut}, {@code Command.DspRun},
 * {@code Command.DspLoad} and the constants {@code Command.DSP_TABLE_BYTES}, {@code Command.FMT_FP16},
 * {@code Command.FMT_INT8}, {@code Command.FMT_INT32}. Only {@code Command} extends this interface; it holds the
 * family's records and constants, nothing else.
 */
public sealed interface DspCommands permits Command {
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
}
