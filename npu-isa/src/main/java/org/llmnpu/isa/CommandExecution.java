package org.llmnpu.isa;

import java.util.Optional;
import org.llmnpu.numerics.gemm.Sparsity;
import org.llmnpu.numerics.gemm.TiledGemm;
import org.llmnpu.numerics.gemm.TiledGemmConfig;

/**
 * What each command does once its checks passed: its dispatch rule ({@link CycleModel#dispatch(boolean, boolean)}:
 * a load waits only for a drain, a store that reads none of the running GEMM's results goes at once (beside a drain
 * that reads the scratchpad, {@link CycleModel#drainReadsY}, it waits), a dspin or dspout that touches none of them
 * goes at once and shares the scratchpad's port with the drain (a dspout beside a drain through the PPM once the
 * codes in flight landed; {@link CycleModel#dispatchDspCopy}), dsprun and dsptab go at once
 * ({@link CycleModel#dispatchBeside}; a resident dsprun beside a W stream too, {@link CycleModel#dispatchResidentRun}),
 * every other command waits for the back-end), then its effect on the memory, the scratchpad, the counters and the cycle
 * model. A visit returns {@link #GO_ON} or the cause to stop with ({@link ErrorCause#NONE} at {@code halt}).
 */
final class CommandExecution implements Command.Visitor<Optional<ErrorCause>> {
  /** A command's visit: go on with the next command. */
  static final Optional<ErrorCause> GO_ON = Optional.empty();
  private final MachineParams p;
  private final byte[] mem;
  private final byte[] spad;
  private final long[] counters;
  private final CycleModel cycles;
  private final DspUnit dsp;
  private final PpmUnit ppm;
  /** Operations each of the DSP's pipelined units issued (not a hardware counter; the energy model's clock gates). */
  private final long[] dspPipeIssues = new long[org.llmnpu.isa.dsp.DspPipe.values().length];
  private final HeldX heldX = new HeldX();

  /** Executes on {@code mem} and {@code spad}, counting into {@code counters} and {@code cycles}. */
  CommandExecution(MachineParams p, byte[] mem, byte[] spad, long[] counters, CycleModel cycles, DspUnit dsp,
                   PpmUnit ppm) {
    this.p = p;
    this.mem = mem;
    this.spad = spad;
    this.counters = counters;
    this.cycles = cycles;
    this.dsp = dsp;
    this.ppm = ppm;
  }

  @Override
  public Optional<ErrorCause> visitHalt(Command.Halt h) {
    cycles.dispatch(false, false);
    return Optional.of(ErrorCause.NONE);
  }

  @Override
  public Optional<ErrorCause> visitFence(Command.Fence f) {
    cycles.dispatch(false, false);
    return GO_ON;
  }

  @Override
  public Optional<ErrorCause> visitLoad(Command.Load l) {
    cycles.dispatch(true, false);
    load(l);
    return GO_ON;
  }

  @Override
  public Optional<ErrorCause> visitLoad4(Command.Load4 l) {
    cycles.dispatch(true, false);
    load4(l);
    return GO_ON;
  }

  @Override
  public Optional<ErrorCause> visitLoadMx(Command.LoadMx l) {
    cycles.dispatch(true, false);
    loadMx(l);
    return GO_ON;
  }

  @Override
  public Optional<ErrorCause> visitStore(Command.Store st) {
    boolean independent = !cycles.resultsOverlap(st.spad(), st.spad() + (st.rows() - 1) * st.spadStride()
        + st.rowBytes());
    cycles.dispatch(false, independent);
    store(st);
    return GO_ON;
  }

  @Override
  public Optional<ErrorCause> visitGemm(Command.Gemm g) {
    cycles.dispatch(false, false);
    gemm(g);
    return GO_ON;
  }

  @Override
  public Optional<ErrorCause> visitDspTab(Command.DspTab t) {
    cycles.dispatchBeside();
    dsp.loadTables(mem, (int) t.ext());
    long beats = Command.DSP_TABLE_BYTES / p.lineBytes();
    counters[Counter.EXT_READ_BEATS.ordinal()] += beats;
    cycles.dspTable(beats);
    return GO_ON;
  }

  @Override
  public Optional<ErrorCause> visitDspIn(Command.DspIn d) {
    cycles.dispatchDspCopy(true, d.spad(), d.spad() + (d.rows() - 1) * d.spadStride()
        + d.rowElems() * DspUnit.elementBytes(d.format()));
    dsp.copyIn(spad, d);
    counters[Counter.SPAD_READS.ordinal()] += beats(d.rowElems() * DspUnit.elementBytes(d.format()), d.rows());
    counters[Counter.DSP_ELEMENTS.ordinal()] += d.rows() * d.rowElems();
    cycles.dspCopy(d.rows(), d.rowElems(), DspUnit.elementBytes(d.format()), true);
    return GO_ON;
  }

  @Override
  public Optional<ErrorCause> visitDspOut(Command.DspOut d) {
    cycles.dispatchDspCopy(false, d.spad(), d.spad() + (d.rows() - 1) * d.spadStride()
        + d.rowElems() * DspUnit.elementBytes(d.format()));
    dsp.copyOut(spad, d);
    counters[Counter.SPAD_WRITES.ordinal()] += beats(d.rowElems() * DspUnit.elementBytes(d.format()), d.rows());
    counters[Counter.DSP_ELEMENTS.ordinal()] += d.rows() * d.rowElems();
    cycles.dspCopy(d.rows(), d.rowElems(), DspUnit.elementBytes(d.format()), false);
    return GO_ON;
  }

  @Override
  public Optional<ErrorCause> visitDspRun(Command.DspRun r) {
    if (r.words() == 0) {
      cycles.dispatchResidentRun();
    } else {
      cycles.dispatchBeside();
    }
    long beats = CycleFormulas.dspProgramBeats(p, r.words());
    counters[Counter.EXT_READ_BEATS.ordinal()] += beats;
    dsp.load(mem, (int) r.prog(), (int) r.words(), 0);
    long run = dsp.run((int) r.entry(), r.parameters());
    counters[Counter.DSP_INSTRUCTIONS.ordinal()] += dsp.issued();
    long[] byPipe = dsp.issuedByPipe();
    for (int i = 0; i < byPipe.length; i++) {
      dspPipeIssues[i] += byPipe[i];
    }
    if (run < 0) {
      cycles.dspRun(beats, p.dsp().maxRunCycles());
      return Optional.of(ErrorCause.WATCHDOG);
    }
    cycles.dspRun(beats, run);
    return GO_ON;
  }

  @Override
  public Optional<ErrorCause> visitDspLoad(Command.DspLoad l) {
    cycles.dispatchBeside();
    long beats = CycleFormulas.dspProgramBeats(p, l.words());
    counters[Counter.EXT_READ_BEATS.ordinal()] += beats;
    dsp.load(mem, (int) l.prog(), (int) l.words(), (int) l.at());
    cycles.dspLoad(beats);
    return GO_ON;
  }

  @Override
  public Optional<ErrorCause> visitSnapshot(Command.Snapshot sn) {
    cycles.dispatch(false, false);
    snapshot(sn);
    return GO_ON;
  }

  @Override
  public Optional<ErrorCause> visitPpmCfg(Command.PpmCfg cfg) {
    cycles.dispatchPpmCfg((int) cfg.bank());
    ppm.configure(mem, (int) cfg.ext(), (int) cfg.channels(), (int) cfg.first(), (int) cfg.bank());
    counters[Counter.EXT_READ_BEATS.ordinal()] += beats(Command.PPM_RECORD_BYTES * cfg.channels(), 1);
    cycles.ppmLoad(cfg.channels(), Command.PPM_RECORD_BYTES);
    return GO_ON;
  }

  @Override
  public Optional<ErrorCause> visitPpuTab(Command.PpuTab t) {
    cycles.dispatch(false, false);
    ppm.loadTable(mem, (int) t.ext());
    counters[Counter.EXT_READ_BEATS.ordinal()] += beats(PpmUnit.tableBytes(), 1);
    cycles.ppmLoad(PpmUnit.lutEntries(), 2);
    return GO_ON;
  }

  @Override
  public Optional<ErrorCause> visitPpm(Command.Ppm q) {
    cycles.dispatch(false, false);
    ppm.run(spad, q, p.ppu());
    long linesPerRow = beats(4 * q.n(), 1);
    counters[Counter.SPAD_READS.ordinal()] += q.m() * linesPerRow;
    // the PPM takes one INT32 line a cycle and writes its line/4 codes as one partial line (byte enables)
    counters[Counter.SPAD_WRITES.ordinal()] += q.m() * linesPerRow;
    counters[Counter.PPM_ELEMENTS.ordinal()] += q.m() * q.n();
    cycles.ppm(q.m(), linesPerRow);
    return GO_ON;
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
    byte[][] x = g.keepsX() ? heldX.rows() : copyX(g);
    byte[][] w = g.streamsWeights() ? StreamedWeights.read(mem, g) : SparseWeights.dense(spad, g);
    Sparsity mode = g.sparsity() == Command.S2_4 ? Sparsity.S2_4 : g.sparsity() == Command.S4_8 ? Sparsity.S4_8
        : Sparsity.NONE;
    // INT4 streamed in N-tile pairs: one K tile a group (EngineRecurrence.icAccumDepth)
    int groupDepth = EngineRecurrence.icAccumDepth(p, EngineRecurrence.pairOrder(p, g));
    int depth = groupDepth == 0 ? TiledGemmConfig.ALL_K_TILES : groupDepth;
    TiledGemmConfig config = new TiledGemmConfig(p.rows(), p.rows(), p.mTile(), p.accWidth(), depth, mode);
    TiledGemm.Result r = TiledGemm.run(config, x, w);
    for (int i = 0; i < m && !g.throughPpm(); i++) {
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
    if (g.throughPpm()) {
      ppm.epilogue(spad, g, r.y(), p.ppu());
      counters[Counter.PPM_ELEMENTS.ordinal()] += (long) m * n;
    }
    int line = p.lineBytes();
    long kTiles = (k + line - 1) / line;
    long nTiles = (n + line - 1) / line;
    long drainLines = (4L * n + line - 1) / line;
    long groups = (k + g.group() - 1) / g.group();
    counters[Counter.MACS.ordinal()] += g.sparsity() == Command.DENSE ? (long) m * k * n : (long) m * n * g.kept() * groups;
    counters[Counter.DENSE_MACS.ordinal()] += (long) m * k * n;
    counters[Counter.PSUM_WRITEBACKS.ordinal()] += r.psumWritebacks();
    counters[Counter.SPAD_READS.ordinal()] += (g.keepsX() ? 0 : m * kTiles) + (g.streamsWeights() ? 0 : g.wRows() * nTiles);
    // through the PPM: one line of codes per PPM input (a wide PPM's: a whole N tile of a row, line codes)
    counters[Counter.SPAD_WRITES.ordinal()] += g.throughPpm() ? p.ppmDrainLines(m, n) : m * drainLines;
    if (g.accumulates()) {
      counters[Counter.SPAD_READS.ordinal()] += m * drainLines;
    }
    if (g.gated()) {
      // one gate line (line bytes of codes) a row per line/4 columns: read once for its 4 drain lines
      counters[Counter.SPAD_READS.ordinal()] += m * nTiles;
    }
    boolean drainReads = g.accumulates() || g.gated();
    if (g.streamsWeights()) {
      streamedGemm(g, m, k, n);
    } else {
      cycles.gemm(m, k, n, (int) g.wRows(), g.sparsity() != Command.DENSE, g.keepsX(), g.y(),
          g.y() + (m - 1) * g.yStride() + CommandChecks.yRowBytes(g));
    }
    if (drainReads) {
      // its drain reads Y through the scratchpad's read port: every STORE waits for it, a DSPIN pauses it
      cycles.drainReadsY();
    }
    if (g.throughPpm()) {
      cycles.drainThroughPpm(g.ppmBank());
    }
  }

  /** The X copy of a GEMM without {@code xKeep}: its M rows of K INT8 from the scratchpad, now in the X buffer. */
  private byte[][] copyX(Command.Gemm g) {
    byte[][] x = new byte[(int) g.m()][(int) g.k()];
    for (int i = 0; i < x.length; i++) {
      System.arraycopy(spad, (int) (g.x() + i * g.xStride()), x[i], 0, x[i].length);
    }
    heldX.copy(x, g);
    return x;
  }

  /** Counters and cycles of a GEMM whose W streams from the memory: W's bytes and beats count as a load's. */
  private void streamedGemm(Command.Gemm g, int m, int k, int n) {
    long columns = StreamedWeights.beatColumns(g, p.lineBytes());
    long rows = StreamedWeights.rows(g);
    counters[Counter.EXT_READ_BEATS.ordinal()] += columns * rows;
    counters[Counter.DMA_LOAD_BYTES.ordinal()] += rows * StreamedWeights.rowBytes(g);
    cycles.streamedGemm(m, k, n, g.int4Weights(), g.sparsity() == Command.DENSE ? 0 : rows, g.groupScaledWeights(),
        g.keepsX(), g.y(), g.y() + (m - 1) * g.yStride() + CommandChecks.yRowBytes(g));
  }

  /** The engine's X buffer as the last X copy left it (what a {@code gemm xKeep=1} reads). */
  HeldX heldX() {
    return heldX;
  }

  /** Operations each of the DSP's pipelined units issued so far, by {@link org.llmnpu.isa.dsp.DspPipe} ordinal (a copy). */
  long[] dspPipeIssues() {
    return dspPipeIssues.clone();
  }
}
