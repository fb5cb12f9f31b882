package org.llmnpu.sw.lower;

import java.util.ArrayList;
import java.util.List;
import org.llmnpu.isa.Command;
import org.llmnpu.isa.DspCopyRows;
import org.llmnpu.isa.MachineParams;
import org.llmnpu.isa.dsp.DspInstruction;
import org.llmnpu.isa.dsp.DspOp;
import org.llmnpu.isa.dsp.DspProgram;
import org.llmnpu.isa.dsp.DspRunParameters;

/**
 * What one command reads and writes, as ranges of the NPU's state, for {@link BlockInterleaver}'s dependence test:
 * scratchpad bytes, external-memory bytes, Vector DSP buffer elements, DSP program-memory words, and three
 * whole-unit states (the DSP's registers, length and tables; the PPM's channel parameters and table; the engine's X buffer,
 * {@link #xBuffer}; everything, for a barrier). Two commands may swap only when no range of one overlaps a range of the other on the same state with at
 * least one of them writing it.
 *
 * <p>Every range is a superset of the bytes the golden ({@code IsaSimulator}) touches: a strided access counts from
 * its first byte to its last row's end, gaps included; a streamed W its {@code K + 2·ceil(K/32)} rows (the longest
 * stream of any weight format); a DSP run every buffer row its {@code LD}/{@code ST} reach over its loop's indices,
 * every row for a data-dependent gather or scatter ({@code LDG}/{@code STG}), and always the DSP's registers (whose
 * values a later program might read). So the test may refuse a legal swap but never allows a wrong one.
 */
record CommandFootprint(List<Access> accesses) {
  /** A state of the NPU a command touches. */
  enum State { SPAD, EXT, DSP_BUFFER, DSP_PROGRAM, DSP_REGISTERS, DSP_TABLES, PPM, X_BUFFER, ALL }

  /**
   * A GEMM's use of the engine's X buffer on an NPU that keeps it ({@code MachineParams.xKeep}): written, so that GEMMs
   * keep their program order and a {@code gemm xKeep=1} reads the copy of the GEMM before it in the program.
   */
  static Access xBuffer() {
    return new Access(State.X_BUFFER, 0, 1, true);
  }

  /** The DSP's registers as {@link State#DSP_REGISTERS} indices: 0..31, then the element count {@code SETLEN} sets. */
  static final int LENGTH = DspInstruction.REGISTERS;

  /** A half-open range {@code [start, end)} of {@code state}, read or written. */
  record Access(State state, long start, long end, boolean write) {
    boolean conflicts(Access o) {
      if (state != o.state && state != State.ALL && o.state != State.ALL) {
        return false;
      }
      if (!write && !o.write) {
        return false;
      }
      return state == State.ALL || o.state == State.ALL || (start < o.end && o.start < end);
    }
  }

  /** Whether this command must stay on its side of {@code o}. */
  boolean conflicts(CommandFootprint o) {
    for (Access a : accesses) {
      for (Access b : o.accesses) {
        if (a.conflicts(b)) {
          return true;
        }
      }
    }
    return false;
  }

  /** A command that orders everything (fence, halt, snapshot, a layer boundary). */
  static CommandFootprint barrier() {
    return new CommandFootprint(List.of(new Access(State.ALL, 0, Long.MAX_VALUE, true)));
  }

  /** The footprint of {@code c} on machine {@code p} (not a {@code dsprun}: see {@link #ofRun}). */
  static CommandFootprint of(Command c, MachineParams p) {
    List<Access> a = new ArrayList<>();
    if (c instanceof Command.Load x) {
      a.add(read(State.EXT, x.ext(), x.extStride(), x.rowBytes(), x.rows()));
      a.add(write(State.SPAD, x.spad(), x.spadStride(), x.rowBytes(), x.rows()));
    } else if (c instanceof Command.Load4 x) {
      a.add(read(State.EXT, x.ext(), x.extStride(), x.rowBytes(), x.rows()));
      a.add(write(State.SPAD, x.spad(), x.spadStride(), 2 * x.rowBytes(), x.rows()));
    } else if (c instanceof Command.LoadMx x) {
      a.add(read(State.EXT, x.ext(), x.extStride(), x.rowBytes(), x.rows()));
      a.add(write(State.SPAD, x.spad(), x.spadStride(), 2 * x.rowBytes(), x.rows()));
    } else if (c instanceof Command.Store x) {
      a.add(read(State.SPAD, x.spad(), x.spadStride(), x.rowBytes(), x.rows()));
      a.add(write(State.EXT, x.ext(), x.extStride(), x.rowBytes(), x.rows()));
    } else if (c instanceof Command.Gemm g) {
      gemm(g, a);
      if (p.xKeep()) {
        a.add(xBuffer());
      }
    } else if (c instanceof Command.DspIn x) {
      long bytes = elementBytes(x.format());
      a.add(read(State.SPAD, x.spad(), x.spadStride(), x.rowElems() * bytes, x.rows()));
      long first = x.dst() * p.dsp().lanes();
      a.add(new Access(State.DSP_BUFFER, first,
          DspCopyRows.end(p.dsp().lanes(), x.dst(), x.dstStride(), x.rowElems(), x.rows()), true));
    } else if (c instanceof Command.DspOut x) {
      long first = x.src() * p.dsp().lanes();
      a.add(new Access(State.DSP_BUFFER, first,
          DspCopyRows.end(p.dsp().lanes(), x.src(), x.srcStride(), x.rowElems(), x.rows()), false));
      a.add(write(State.SPAD, x.spad(), x.spadStride(), x.rowElems() * elementBytes(x.format()), x.rows()));
    } else if (c instanceof Command.DspTab x) {
      a.add(new Access(State.EXT, x.ext(), x.ext() + 768, false));
      a.add(new Access(State.DSP_TABLES, 0, 1, true));
    } else if (c instanceof Command.DspLoad x) {
      a.add(new Access(State.EXT, x.prog(), x.prog() + 8 * x.words(), false));
      a.add(new Access(State.DSP_PROGRAM, x.at(), x.at() + x.words(), true));
    } else if (c instanceof Command.PpmCfg x) {
      a.add(new Access(State.EXT, x.ext(), x.ext() + Command.PPM_RECORD_BYTES * x.channels(), false));
      a.add(new Access(State.PPM, 0, 1, true));
    } else if (c instanceof Command.PpuTab x) {
      a.add(new Access(State.EXT, x.ext(), x.ext() + 132, false));
      a.add(new Access(State.PPM, 0, 1, true));
    } else if (c instanceof Command.Ppm x) {
      a.add(read(State.SPAD, x.src(), x.srcStride(), 4 * x.n(), x.m()));
      a.add(write(State.SPAD, x.dst(), x.dstStride(), x.n(), x.m()));
      a.add(new Access(State.PPM, 0, 1, false));
    } else {
      return barrier();
    }
    return new CommandFootprint(a);
  }

  /**
   * The footprint of a {@code dsprun} of {@code program}: from {@code address} (plain: its words loaded at 0) or
   * resident from program word {@code entry} ({@code address} −1); its register accesses are not in it
   * ({@link RegisterUse}, resolved over a window of runs by {@link BlockInterleaver}).
   */
  static CommandFootprint ofRun(DspProgram program, long address, long entry, MachineParams p) {
    return ofRun(program, DspRunParameters.NONE, address, entry, p);
  }

  /** As above for a program run with {@code params} (a row instruction's row is its immediate plus its base). */
  static CommandFootprint ofRun(DspProgram program, DspRunParameters params, long address, long entry,
                                MachineParams p) {
    List<Access> a = new ArrayList<>();
    int size = program.size();
    if (address >= 0) {
      a.add(new Access(State.EXT, address, address + 8L * size, false));
      a.add(new Access(State.DSP_PROGRAM, 0, size, true));
    } else {
      a.add(new Access(State.DSP_PROGRAM, entry, entry + size, false));
    }
    a.add(new Access(State.DSP_TABLES, 0, 1, false));
    int lanes = p.dsp().lanes();
    long all = (long) p.dsp().rows() * lanes;
    List<DspInstruction> code = program.instructions();
    int loopEnd = -1;
    long loopCount = 1;
    for (int i = 0; i < code.size(); i++) {
      DspInstruction in = code.get(i);
      long count = i < loopEnd ? loopCount : 1;
      switch (in.op()) {
        case LOOP -> {
          loopEnd = i + 1 + (in.imm() >>> 16);
          loopCount = Math.max(1, in.imm() & 0xFFFF);
        }
        case LD, ST -> a.add(rows(row(in, params, p), count, all, lanes, in.op() == DspOp.ST));
        case LDS, STS -> a.add(rows(row(in, params, p), (long) (lanes - 1) * (1L << in.aux()) + 1, all, lanes,
            in.op() == DspOp.STS));
        case LDG, STG -> a.add(new Access(State.DSP_BUFFER, 0, all, in.op() == DspOp.STG));
        default -> {
        }
      }
    }
    return new CommandFootprint(a);
  }

  /** The buffer row {@code in} (a row instruction) names first, run with {@code params}. */
  private static int row(DspInstruction in, DspRunParameters params, MachineParams p) {
    int offset = params.offsetOf(in);
    return offset == 0 ? in.imm() : Math.floorMod(in.imm() + offset, p.dsp().rows());
  }

  /** Buffer rows {@code first … first + count − 1} as elements; every row when they wrap around the buffer. */
  private static Access rows(int first, long count, long all, int lanes, boolean write) {
    long start = (long) first * lanes;
    long end = ((long) first + count) * lanes;
    return first < 0 || end > all ? new Access(State.DSP_BUFFER, 0, all, write)
        : new Access(State.DSP_BUFFER, start, end, write);
  }

  /**
   * The registers a DSP program writes ({@code written}, the element count as {@link #LENGTH}) and those it reads
   * before it writes them ({@code exposed}: values a program before it left; a masked write keeps the old value of
   * the lanes it skips, so it reads its destination; a masked instruction reads the element count), in program text
   * order (a loop body's later write does not cover an earlier read).
   */
  record RegisterUse(java.util.BitSet written, java.util.BitSet exposed) {
    static RegisterUse of(DspProgram program) {
      java.util.BitSet written = new java.util.BitSet();
      java.util.BitSet full = new java.util.BitSet();
      java.util.BitSet exposed = new java.util.BitSet();
      for (DspInstruction in : program.instructions()) {
        DspOp op = in.op();
        for (int r : reads(in)) {
          if (!full.get(r)) {
            exposed.set(r);
          }
        }
        if (in.masked() && !full.get(LENGTH)) {
          exposed.set(LENGTH);
        }
        if (op == DspOp.SETLEN) {
          written.set(LENGTH);
          full.set(LENGTH);
        } else if (op.writesRegister()) {
          if (in.masked() && !full.get(in.rd())) {
            exposed.set(in.rd());
          }
          written.set(in.rd());
          if (!in.masked()) {
            full.set(in.rd());
          }
        }
      }
      return new RegisterUse(written, exposed);
    }

    private static int[] reads(DspInstruction in) {
      return switch (in.op()) {
        case NOP, HALT, LOOP, SETLEN, LI, LD, LDS -> new int[0];
        case ST, STS, LDG, ROT, LSHIFT, BCAST, WIDEN, IHALF, EXPO, TSEG, TSTART, TCOEF, NEGABS, ABS ->
            new int[] {in.ra()};
        case FMA16, FMA32, SELNEG -> new int[] {in.ra(), in.rb(), in.rc()};
        default -> new int[] {in.ra(), in.rb()};
      };
    }
  }

  private static void gemm(Command.Gemm g, List<Access> a) {
    a.add(read(State.SPAD, g.x(), g.xStride(), g.k(), g.m()));
    if (g.streamsWeights()) {
      long rows = g.k() + 2 * ((g.k() + 31) / 32);
      a.add(new Access(State.EXT, g.w(), g.w() + rows * Math.max(g.wStride(), g.n()), false));
    } else {
      a.add(new Access(State.SPAD, g.w(), g.w() + g.wRows() * Math.max(g.wStride(), g.n()), false));
    }
    long rowBytes = g.throughPpm() ? g.n() : 4 * g.n();
    a.add(write(State.SPAD, g.y(), g.yStride(), rowBytes, g.m()));
    if (g.accumulates()) {
      a.add(read(State.SPAD, g.y(), g.yStride(), rowBytes, g.m()));
    }
    if (g.throughPpm()) {
      a.add(new Access(State.PPM, 0, 1, false));
    }
  }

  private static long elementBytes(long format) {
    return format == Command.FMT_INT32 ? 4 : format == Command.FMT_INT8 ? 1 : 2;
  }

  private static Access read(State s, long first, long stride, long rowBytes, long rows) {
    return new Access(s, first, end(first, stride, rowBytes, rows), false);
  }

  private static Access write(State s, long first, long stride, long rowBytes, long rows) {
    return new Access(s, first, end(first, stride, rowBytes, rows), true);
  }

  private static long end(long first, long stride, long rowBytes, long rows) {
    return rows <= 0 ? first : first + Math.max(0, rows - 1) * Math.max(stride, 0) + Math.max(rowBytes, stride);
  }
}
