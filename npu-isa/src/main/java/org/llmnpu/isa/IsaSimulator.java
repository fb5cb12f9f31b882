package org.llmnpu.isa;

import java.util.Optional;
import org.llmnpu.numerics.gemm.Sparsity;
import org.llmnpu.numerics.gemm.TiledGemm;
import org.llmnpu.numerics.gemm.TiledGemmConfig;

/**
 * The golden ISA simulator: executes a program that sits in an external-memory image, command by
 * command, with the {@code numerics} golden models (GEMM: {@link TiledGemm} with the machine's
 * array, accumulator width and IC-accumulation depth). It is the reference the RTL must equal bit
 * for bit: the final memory image, the error status and the {@link Counter#golden() golden}
 * counters; its {@link CycleModel} predicts the cycle counters.
 *
 * <p>Checks per command, in this order (the first failing one halts with its cause and the
 * command's index): opcode defined; the unit or mode it needs ({@link ErrorCause#UNSUPPORTED}: PPM, PPU
 * and a loaded table, the GEMM's N:M sparsity, MX decoding for {@code loadmx}); shape (DMA: 1 ≤ rows, rowBytes ≤ 65535; GEMM: 1 ≤ M, K, N ≤
 * maxM, maxK, maxN); scratchpad range and line alignment; external-memory range and alignment.
 * Fetching a command past the end of memory halts with {@link ErrorCause#EXT_ADDRESS}.
 */
public final class IsaSimulator {
  /**
   * The outcome of a run.
   *
   * @param memory       the external-memory image afterwards
   * @param scratchpad   the scratchpad afterwards
   * @param error        {@link ErrorCause#NONE} when the program reached halt
   * @param errorCommand index of the command that failed (0 when none did)
   * @param counters     values indexed by {@link Counter#ordinal()}
   */
  public record Result(byte[] memory, byte[] scratchpad, ErrorCause error, int errorCommand, long[] counters) {
    public long counter(Counter c) {
      return counters[c.ordinal()];
    }
  }

  private static final long MAX_COMMANDS = 1L << 24;
  private final MachineParams p;
  private final byte[] mem;
  private final byte[] spad;
  private final long[] counters = new long[Counter.values().length];
  private final CycleModel cycles;
  private final DspUnit dsp;
  private final PpmUnit ppm;
  private final CommandChecks checks;

  private IsaSimulator(MachineParams p, EngineTiming engine, byte[] memory) {
    this.p = p;
    this.mem = memory;
    this.spad = new byte[p.spadBytes()];
    this.cycles = new CycleModel(p, engine);
    this.dsp = new DspUnit(p.dsp());
    this.ppm = new PpmUnit(p.rows());
    this.checks = new CommandChecks(p);
  }

  /** A {@link Command.PpmCfg} channel record (16 bytes) of a bias, a quantized multiplier and an INT8 zero point. */
  public static byte[] ppmRecord(int bias, org.llmnpu.numerics.requant.QuantizedMultiplier multiplier, int zeroPoint) {
    return PpmUnit.record(bias, multiplier, zeroPoint);
  }

  /** The {@link Command.PpuTab} image (132 bytes) of a 16-segment degree-2 table with 16-bit coefficients. */
  public static byte[] ppuTableImage(org.llmnpu.numerics.ppu.PpuTable table) {
    return PpmUnit.tableImage(table);
  }

  /** Bytes of a {@link Command.PpuTab} image. */
  public static int ppuTableBytes() {
    return PpmUnit.tableBytes();
  }

  /**
   * The {@link Command.DspTab} image of {@code math}'s tables (e.g. {@code DspMath.DEFAULT}, the
   * tables the compiled kernels assume).
   */
  public static byte[] dspTableImage(org.llmnpu.isa.dsp.DspMath math) {
    return DspUnit.tableImage(math);
  }

  /**
   * Runs the program at {@code programAddress} (a multiple of 32) of a copy of {@code memory}
   * ({@code extMemBytes} long) until halt or an error.
   */
  public static Result run(MachineParams p, byte[] memory, long programAddress) {
    return run(p, EngineTiming.SYSTOLIC, memory, programAddress);
  }

  /**
   * As {@link #run(MachineParams, byte[], long)} on an NPU whose GEMMs run on {@code engine}: the
   * same results (every engine computes {@code TiledGemm}), that engine's cycle counters.
   */
  public static Result run(MachineParams p, EngineTiming engine, byte[] memory, long programAddress) {
    if (memory.length != p.extMemBytes()) {
      throw new IllegalArgumentException("memory image has " + memory.length + " bytes, extMemBytes is " + p.extMemBytes());
    }
    IsaSimulator sim = new IsaSimulator(p, engine, memory.clone());
    return sim.execute(programAddress);
  }

  private Result execute(long programAddress) {
    long pc = programAddress;
    cycles.begin(programAddress);
    for (int index = 0; index < MAX_COMMANDS; index++, pc += Command.BYTES) {
      if (pc % Command.BYTES != 0 || pc + Command.BYTES > p.extMemBytes()) {
        cycles.fetchFault();
        return finish(ErrorCause.EXT_ADDRESS, index);
      }
      if (p.memLatency() > p.watchdogCycles()) {
        cycles.fetchFault();
        return finish(ErrorCause.WATCHDOG, index);
      }
      // the fetch's beats (also those read ahead) are the cycle model's: CycleModel.fill adds them
      cycles.fetchAndDecode();
      counters[Counter.COMMANDS.ordinal()]++;
      int[] words = CommandCodec.wordsAt(mem, pc);
      Optional<Command> decoded = CommandCodec.decode(words);
      if (decoded.isEmpty()) {
        cycles.decodeFault();
        return finish(ErrorCause.UNDEFINED_OPCODE, index);
      }
      Command c = decoded.get();
      ErrorCause fault = checks.check(c, ppm.tableLoaded());
      if (fault != ErrorCause.NONE) {
        cycles.decodeFault();
        return finish(fault, index);
      }
      boolean independentStore = c instanceof Command.Store st
          && !cycles.resultsOverlap(st.spad(), st.spad() + (st.rows() - 1) * st.spadStride() + st.rowBytes());
      cycles.dispatch(c instanceof Command.Load || c instanceof Command.Load4 || c instanceof Command.LoadMx,
          independentStore);
      if (c instanceof Command.Halt) {
        return finish(ErrorCause.NONE, 0);
      } else if (c instanceof Command.Load l) {
        load(l);
      } else if (c instanceof Command.Load4 l) {
        load4(l);
      } else if (c instanceof Command.LoadMx l) {
        loadMx(l);
      } else if (c instanceof Command.DspTab t) {
        dsp.loadTables(mem, (int) t.ext());
        long beats = Command.DSP_TABLE_BYTES / p.lineBytes();
        counters[Counter.EXT_READ_BEATS.ordinal()] += beats;
        cycles.dspTable(beats);
      } else if (c instanceof Command.DspIn d) {
        dsp.copyIn(spad, d);
        counters[Counter.SPAD_READS.ordinal()] += beats(d.rowElems() * DspUnit.elementBytes(d.format()), d.rows());
        counters[Counter.DSP_ELEMENTS.ordinal()] += d.rows() * d.rowElems();
        cycles.dspCopy(d.rows(), d.rowElems(), true);
      } else if (c instanceof Command.DspOut d) {
        dsp.copyOut(spad, d);
        counters[Counter.SPAD_WRITES.ordinal()] += beats(d.rowElems() * DspUnit.elementBytes(d.format()), d.rows());
        counters[Counter.DSP_ELEMENTS.ordinal()] += d.rows() * d.rowElems();
        cycles.dspCopy(d.rows(), d.rowElems(), false);
      } else if (c instanceof Command.DspRun r) {
        long beats = (8 * r.words() + p.lineBytes() - 1) / p.lineBytes();
        counters[Counter.EXT_READ_BEATS.ordinal()] += beats;
        long run = dsp.run(mem, (int) r.prog(), (int) r.words());
        if (run < 0) {
          counters[Counter.DSP_INSTRUCTIONS.ordinal()] += dsp.issued();
          cycles.dspRun(beats, p.dsp().maxRunCycles());
          return finish(ErrorCause.WATCHDOG, index);
        }
        counters[Counter.DSP_INSTRUCTIONS.ordinal()] += dsp.issued();
        cycles.dspRun(beats, run);
      } else if (c instanceof Command.Snapshot sn) {
        snapshot(sn);
      } else if (c instanceof Command.PpmCfg cfg) {
        ppm.configure(mem, (int) cfg.ext(), (int) cfg.channels());
        counters[Counter.EXT_READ_BEATS.ordinal()] += beats(Command.PPM_RECORD_BYTES * cfg.channels(), 1);
        cycles.ppmLoad(cfg.channels(), Command.PPM_RECORD_BYTES);
      } else if (c instanceof Command.PpuTab t) {
        ppm.loadTable(mem, (int) t.ext());
        counters[Counter.EXT_READ_BEATS.ordinal()] += beats(PpmUnit.tableBytes(), 1);
        cycles.ppmLoad(PpmUnit.lutEntries(), 2);
      } else if (c instanceof Command.Ppm q) {
        ppm.run(spad, q, p.ppu());
        long linesPerRow = beats(4 * q.n(), 1);
        counters[Counter.SPAD_READS.ordinal()] += q.m() * linesPerRow;
        counters[Counter.SPAD_WRITES.ordinal()] += q.m();
        counters[Counter.PPM_ELEMENTS.ordinal()] += q.m() * q.n();
        cycles.ppm(q.m(), linesPerRow);
      } else if (c instanceof Command.Store s) {
        store(s);
      } else if (c instanceof Command.Gemm g) {
        gemm(g);
      }
    }
    throw new IllegalStateException("program ran " + MAX_COMMANDS + " commands without halting");
  }

  private Result finish(ErrorCause error, int index) {
    cycles.fill(counters);
    return new Result(mem, spad, error, index, counters.clone());
  }

  private long beats(long rowBytes, long rows) {
    return rows * ((rowBytes + p.lineBytes() - 1) / p.lineBytes());
  }

  private void load(Command.Load l) {
    for (long r = 0; r < l.rows(); r++) {
      System.arraycopy(mem, (int) (l.ext() + r * l.extStride()), spad, (int) (l.spad() + r * l.spadStride()),
          (int) l.rowBytes());
    }
    long beats = beats(l.rowBytes(), l.rows());
    counters[Counter.DMA_LOAD_BYTES.ordinal()] += l.rows() * l.rowBytes();
    counters[Counter.EXT_READ_BEATS.ordinal()] += beats;
    counters[Counter.SPAD_WRITES.ordinal()] += beats;
    cycles.load(beats);
  }

  /** A {@code load} whose bytes become {@link MxLoad#code}s; counters and cycles those of a {@code load}. */
  private void loadMx(Command.LoadMx l) {
    byte[] table = MxLoad.table((int) l.format());
    for (long r = 0; r < l.rows(); r++) {
      int from = (int) (l.ext() + r * l.extStride());
      int to = (int) (l.spad() + r * l.spadStride());
      for (int b = 0; b < l.rowBytes(); b++) {
        spad[to + b] = table[mem[from + b] & 0xFF];
      }
    }
    long beats = beats(l.rowBytes(), l.rows());
    counters[Counter.DMA_LOAD_BYTES.ordinal()] += l.rows() * l.rowBytes();
    counters[Counter.EXT_READ_BEATS.ordinal()] += beats;
    counters[Counter.SPAD_WRITES.ordinal()] += beats;
    cycles.load(beats);
  }

  private void load4(Command.Load4 l) {
    for (long r = 0; r < l.rows(); r++) {
      int from = (int) (l.ext() + r * l.extStride());
      int to = (int) (l.spad() + r * l.spadStride());
      for (int b = 0; b < l.rowBytes(); b++) {
        byte v = mem[from + b];
        spad[to + 2 * b] = (byte) ((v << 28) >> 28);
        spad[to + 2 * b + 1] = (byte) (v >> 4);
      }
    }
    long beats = beats(l.rowBytes(), l.rows());
    counters[Counter.DMA_LOAD_BYTES.ordinal()] += l.rows() * l.rowBytes();
    counters[Counter.EXT_READ_BEATS.ordinal()] += beats;
    counters[Counter.SPAD_WRITES.ordinal()] += beats(2 * l.rowBytes(), l.rows());
    cycles.load4(beats);
  }

  /** Counter values as of the snapshot's first cycle, written 64 bits little-endian each. */
  private void snapshot(Command.Snapshot sn) {
    long[] now = counters.clone();
    cycles.fill(now);
    for (int i = 0; i < now.length; i++) {
      for (int b = 0; b < 8; b++) {
        mem[(int) sn.ext() + 8 * i + b] = (byte) (now[i] >>> (8 * b));
      }
    }
    long beats = (8L * now.length + p.lineBytes() - 1) / p.lineBytes();
    counters[Counter.EXT_WRITE_BEATS.ordinal()] += beats;
    cycles.store(beats);
  }

  private void store(Command.Store s) {
    for (long r = 0; r < s.rows(); r++) {
      System.arraycopy(spad, (int) (s.spad() + r * s.spadStride()), mem, (int) (s.ext() + r * s.extStride()),
          (int) s.rowBytes());
    }
    long beats = beats(s.rowBytes(), s.rows());
    counters[Counter.DMA_STORE_BYTES.ordinal()] += s.rows() * s.rowBytes();
    counters[Counter.EXT_WRITE_BEATS.ordinal()] += beats;
    counters[Counter.SPAD_READS.ordinal()] += beats;
    cycles.store(beats);
  }

  private void gemm(Command.Gemm g) {
    int m = (int) g.m();
    int k = (int) g.k();
    int n = (int) g.n();
    byte[][] x = new byte[m][k];
    for (int i = 0; i < m; i++) {
      System.arraycopy(spad, (int) (g.x() + i * g.xStride()), x[i], 0, k);
    }
    byte[][] w = SparseWeights.dense(spad, g);
    Sparsity mode = g.sparsity() == Command.S2_4 ? Sparsity.S2_4 : g.sparsity() == Command.S4_8 ? Sparsity.S4_8
        : Sparsity.NONE;
    int depth = p.icAccumDepth() == 0 ? TiledGemmConfig.ALL_K_TILES : p.icAccumDepth();
    TiledGemmConfig config = new TiledGemmConfig(p.rows(), p.rows(), p.mTile(), p.accWidth(), depth, mode);
    TiledGemm.Result r = TiledGemm.run(config, x, w);
    for (int i = 0; i < m; i++) {
      for (int j = 0; j < n; j++) {
        int a = (int) (g.y() + i * g.yStride() + 4L * j);
        int v = r.y()[i][j];
        if (g.accumulates()) {
          // Y += X·W, two's-complement wraparound
          v += (spad[a] & 0xFF) | (spad[a + 1] & 0xFF) << 8 | (spad[a + 2] & 0xFF) << 16 | spad[a + 3] << 24;
        }
        spad[a] = (byte) v;
        spad[a + 1] = (byte) (v >>> 8);
        spad[a + 2] = (byte) (v >>> 16);
        spad[a + 3] = (byte) (v >>> 24);
      }
    }
    int line = p.lineBytes();
    long kTiles = (k + line - 1) / line;
    long nTiles = (n + line - 1) / line;
    long drainLines = (4L * n + line - 1) / line;
    long groups = (k + g.group() - 1) / g.group();
    counters[Counter.MACS.ordinal()] += g.sparsity() == Command.DENSE ? (long) m * k * n : (long) m * n * g.kept() * groups;
    counters[Counter.DENSE_MACS.ordinal()] += (long) m * k * n;
    counters[Counter.PSUM_WRITEBACKS.ordinal()] += r.psumWritebacks();
    counters[Counter.SPAD_READS.ordinal()] += m * kTiles + g.wRows() * nTiles;
    counters[Counter.SPAD_WRITES.ordinal()] += m * drainLines;
    if (g.accumulates()) {
      counters[Counter.SPAD_READS.ordinal()] += m * drainLines;
    }
    // An accumulating GEMM's drain reads Y through the scratchpad's read port: every STORE waits for it.
    cycles.gemm(m, k, n, (int) g.wRows(), g.sparsity() != Command.DENSE, g.accumulates() ? 0 : g.y(),
        g.accumulates() ? Long.MAX_VALUE : g.y() + (m - 1) * g.yStride() + 4L * n);
  }
}
