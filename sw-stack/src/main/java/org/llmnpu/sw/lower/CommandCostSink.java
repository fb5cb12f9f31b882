package org.llmnpu.sw.lower;

import java.util.HashMap;
import java.util.Map;
import org.llmnpu.isa.Command;
import org.llmnpu.isa.Counter;
import org.llmnpu.isa.CycleModel;
import org.llmnpu.isa.EngineRecurrence;
import org.llmnpu.isa.MachineParams;
import org.llmnpu.isa.StreamedWeights;
import org.llmnpu.isa.dsp.DspProgram;
import org.llmnpu.numerics.gemm.Sparsity;
import org.llmnpu.numerics.gemm.TiledGemm;
import org.llmnpu.numerics.gemm.TiledGemmConfig;

/**
 * Costs a command stream without data: each command is fetched, decoded and dispatched on {@code npu-isa}'s
 * {@link CycleModel} and counted as the golden ISA simulator counts it ({@code CommandExecution}: DRAM beats and DMA
 * bytes, scratchpad lines, MACs, partial-sum write-backs, DSP instructions and elements; the command words the
 * cycle model's fetcher reads, also ahead of the program, are added by {@link CycleModel#fill}). It is a
 * {@link Command.Visitor}, so a new command kind does not compile until it is costed here. A {@code dsprun}'s
 * cycles and issued instructions come from its {@link DspProgram} (static: the DSP has no data-dependent
 * branches), computed once per program.
 */
final class CommandCostSink implements CommandSink, Command.Visitor<Void> {
  private final MachineParams p;
  private final int line;
  private final CycleModel cm;
  private final long[] counts = new long[Counter.values().length];
  private final Map<DspProgram, long[]> programs;
  private final TiledGemmConfig denseTiles;
  private final TiledGemmConfig sparseTiles;
  /** A GEMM the engine runs in N-tile pairs (streamed INT4): one K tile a group ({@code EngineRecurrence.icAccumDepth}). */
  private final TiledGemmConfig pairTiles;

  /** A fresh program on {@code p}; {@code programs} caches each DSP program's {size, cycles, issued}. */
  CommandCostSink(MachineParams p, Map<DspProgram, long[]> programs) {
    this.p = p;
    this.line = p.lineBytes();
    this.cm = new CycleModel(p);
    this.programs = programs;
    int depth = p.icAccumDepth() == 0 ? TiledGemmConfig.ALL_K_TILES : p.icAccumDepth();
    this.denseTiles = new TiledGemmConfig(p.rows(), p.rows(), p.mTile(), p.accWidth(), depth, Sparsity.NONE);
    this.sparseTiles = new TiledGemmConfig(p.rows(), p.rows(), p.mTile(), p.accWidth(), depth, Sparsity.S2_4);
    this.pairTiles = new TiledGemmConfig(p.rows(), p.rows(), p.mTile(), p.accWidth(), 1, Sparsity.NONE);
  }

  CommandCostSink(MachineParams p) {
    this(p, new HashMap<>());
  }

  /** The layers emitted per block and the model's layers: the last emitted one stands for the rest. */
  private int emittedLayers = Integer.MAX_VALUE;
  private int modelLayers;
  private PhaseCost layerStart;
  private PhaseCost scaled;

  /**
   * The stream holds {@code emitted} of the model's {@code layers} layers per block: each block's last emitted layer
   * is counted {@code layers − emitted} more times ({@link #cost}).
   */
  void scaleLayers(int emitted, int layers) {
    this.emittedLayers = emitted;
    this.modelLayers = layers;
  }

  @Override
  public void layerStart(int layer) {
    if (layer == emittedLayers - 1 && emittedLayers < modelLayers) {
      layerStart = snapshot();
    }
  }

  @Override
  public void layerEnd(int layer) {
    if (layer == emittedLayers - 1 && emittedLayers < modelLayers) {
      PhaseCost one = snapshot().minus(layerStart);
      scaled = scaled == null ? one.scale(modelLayers - emittedLayers) : scaled.plus(one, modelLayers - emittedLayers);
    }
  }

  /** The counters so far, the cycle model's filled in, plus the layers not emitted ({@link #scaleLayers}). */
  PhaseCost cost() {
    PhaseCost now = snapshot();
    return scaled == null ? now : now.plus(scaled, 1);
  }

  private PhaseCost snapshot() {
    long[] c = counts.clone();
    cm.fill(c);
    return new PhaseCost(c, line);
  }

  @Override
  public void command(Command c) {
    fetch();
    c.accept(this);
  }

  @Override
  public void dspRun(long address, DspProgram program) {
    fetch();
    long[] cost = cost(program);
    cm.dispatchBeside();
    long beats = (8L * cost[0] + line - 1) / line;
    add(Counter.EXT_READ_BEATS, beats);
    add(Counter.DSP_INSTRUCTIONS, cost[2]);
    cm.dspRun(beats, cost[1]);
  }

  @Override
  public void dspLoad(long address, DspProgram program, long at) {
    command(new Command.DspLoad(address, program.size(), at));
  }

  @Override
  public void dspRunResident(DspProgram program, long entry) {
    fetch();
    long[] cost = cost(program);
    cm.dispatchResidentRun();
    add(Counter.DSP_INSTRUCTIONS, cost[2]);
    cm.dspRun(0, cost[1]);
  }

  /** {size, cycles, issued} of {@code program}. */
  private long[] cost(DspProgram program) {
    return programs.computeIfAbsent(program, q -> new long[] {q.size(), q.cycles(p.dsp().pipeline()), q.issued()});
  }

  private void fetch() {
    cm.fetchAndDecode();
    add(Counter.COMMANDS, 1);
  }

  private void add(Counter c, long v) {
    counts[c.ordinal()] += v;
  }

  private long beats(long rowBytes, long rows) {
    return rows * ((rowBytes + line - 1) / line);
  }

  @Override
  public Void visitLoad(Command.Load l) {
    return load(l.rowBytes(), l.rows());
  }

  @Override
  public Void visitLoadMx(Command.LoadMx l) {
    return load(l.rowBytes(), l.rows()); // the MX decoders add no cycle
  }

  private Void load(long rowBytes, long rows) {
    cm.dispatch(true, false);
    long beats = beats(rowBytes, rows);
    add(Counter.DMA_LOAD_BYTES, rows * rowBytes);
    add(Counter.EXT_READ_BEATS, beats);
    add(Counter.SPAD_WRITES, beats);
    cm.load(beats);
    return null;
  }

  @Override
  public Void visitLoad4(Command.Load4 l) {
    cm.dispatch(true, false);
    long beats = beats(l.rowBytes(), l.rows());
    add(Counter.DMA_LOAD_BYTES, l.rows() * l.rowBytes());
    add(Counter.EXT_READ_BEATS, beats);
    add(Counter.SPAD_WRITES, beats(2 * l.rowBytes(), l.rows()));
    cm.load4(beats);
    return null;
  }

  @Override
  public Void visitStore(Command.Store s) {
    boolean independent = !cm.resultsOverlap(s.spad(), s.spad() + (s.rows() - 1) * s.spadStride() + s.rowBytes());
    cm.dispatch(false, independent);
    long beats = beats(s.rowBytes(), s.rows());
    add(Counter.DMA_STORE_BYTES, s.rows() * s.rowBytes());
    add(Counter.EXT_WRITE_BEATS, beats);
    add(Counter.SPAD_READS, beats);
    cm.store(beats);
    return null;
  }

  @Override
  public Void visitGemm(Command.Gemm g) {
    cm.dispatch(false, false);
    int m = (int) g.m();
    int k = (int) g.k();
    int n = (int) g.n();
    boolean sparse = g.sparsity() != Command.DENSE;
    long groups = (k + g.group() - 1) / g.group();
    long drainLines = (4L * n + line - 1) / line;
    add(Counter.MACS, sparse ? (long) m * n * g.kept() * groups : (long) m * k * n);
    add(Counter.DENSE_MACS, (long) m * k * n);
    add(Counter.PSUM_WRITEBACKS, TiledGemm.psumWritebacks(EngineRecurrence.pairOrder(p, g) ? pairTiles
        : sparse ? sparseTiles : denseTiles, m, k, n));
    add(Counter.SPAD_READS, (g.keepsX() ? 0 : m * ((k + (long) line - 1) / line))
        + (g.streamsWeights() ? 0 : g.wRows() * ((n + (long) line - 1) / line)));
    add(Counter.SPAD_WRITES, g.throughPpm() ? p.ppmDrainLines(m, n) : m * drainLines);
    if (g.accumulates()) {
      add(Counter.SPAD_READS, m * drainLines);
    }
    if (g.throughPpm()) {
      add(Counter.PPM_ELEMENTS, (long) m * n);
    }
    if (g.gated()) {
      add(Counter.SPAD_READS, m * ((n + (long) line - 1) / line));
    }
    long yStart = g.y();
    long yEnd = g.y() + (m - 1) * g.yStride() + (g.throughPpm() ? n : 4L * n);
    if (g.streamsWeights()) {
      // W's bytes and beats count as a load's (npu-isa StreamedWeights)
      long rows = StreamedWeights.rows(g);
      add(Counter.EXT_READ_BEATS, StreamedWeights.beatColumns(g, line) * rows);
      add(Counter.DMA_LOAD_BYTES, rows * StreamedWeights.rowBytes(g));
      cm.streamedGemm(m, k, n, g.int4Weights(), sparse ? rows : 0, g.groupScaledWeights(), g.keepsX(), yStart, yEnd);
    } else {
      cm.gemm(m, k, n, (int) g.wRows(), sparse, g.keepsX(), yStart, yEnd);
    }
    if (g.throughPpm()) {
      cm.drainThroughPpm(g.ppmBank());
    }
    if (g.accumulates() || g.gated()) {
      // its drain reads Y over the scratchpad's read port: every STORE waits for it, a DSPIN pauses it while it reads
      cm.drainReadsY();
    }
    return null;
  }

  @Override
  public Void visitFence(Command.Fence f) {
    cm.dispatch(false, false);
    return null;
  }

  @Override
  public Void visitHalt(Command.Halt h) {
    cm.dispatch(false, false);
    return null;
  }

  @Override
  public Void visitDspTab(Command.DspTab t) {
    cm.dispatchBeside();
    long beats = Command.DSP_TABLE_BYTES / line;
    add(Counter.EXT_READ_BEATS, beats);
    cm.dspTable(beats);
    return null;
  }

  @Override
  public Void visitDspIn(Command.DspIn d) {
    cm.dispatchDspCopy(true, d.spad(), d.spad() + (d.rows() - 1) * d.spadStride() + d.rowElems() * elementBytes(d.format()));
    add(Counter.SPAD_READS, beats(d.rowElems() * elementBytes(d.format()), d.rows()));
    add(Counter.DSP_ELEMENTS, d.rows() * d.rowElems());
    cm.dspCopy(d.rows(), d.rowElems(), elementBytes(d.format()), true);
    return null;
  }

  @Override
  public Void visitDspOut(Command.DspOut d) {
    cm.dispatchDspCopy(false, d.spad(), d.spad() + (d.rows() - 1) * d.spadStride() + d.rowElems() * elementBytes(d.format()));
    add(Counter.SPAD_WRITES, beats(d.rowElems() * elementBytes(d.format()), d.rows()));
    add(Counter.DSP_ELEMENTS, d.rows() * d.rowElems());
    cm.dspCopy(d.rows(), d.rowElems(), elementBytes(d.format()), false);
    return null;
  }

  @Override
  public Void visitDspRun(Command.DspRun r) {
    throw new IllegalArgumentException("a dsprun is costed with its program (CommandSink.dspRun)");
  }

  @Override
  public Void visitDspLoad(Command.DspLoad l) {
    cm.dispatchBeside();
    long beats = beats(8 * l.words(), 1);
    add(Counter.EXT_READ_BEATS, beats);
    cm.dspLoad(beats);
    return null;
  }

  @Override
  public Void visitSnapshot(Command.Snapshot sn) {
    cm.dispatch(false, false);
    long beats = (8L * Counter.values().length + line - 1) / line;
    add(Counter.EXT_WRITE_BEATS, beats);
    cm.store(beats);
    return null;
  }

  @Override
  public Void visitPpmCfg(Command.PpmCfg cfg) {
    cm.dispatchPpmCfg((int) cfg.bank());
    add(Counter.EXT_READ_BEATS, beats(Command.PPM_RECORD_BYTES * cfg.channels(), 1));
    cm.ppmLoad(cfg.channels(), Command.PPM_RECORD_BYTES);
    return null;
  }

  @Override
  public Void visitPpuTab(Command.PpuTab t) {
    cm.dispatch(false, false);
    int bytes = org.llmnpu.isa.IsaSimulator.ppuTableBytes();
    add(Counter.EXT_READ_BEATS, beats(bytes, 1));
    cm.ppmLoad(bytes / 2, 2);
    return null;
  }

  @Override
  public Void visitPpm(Command.Ppm q) {
    cm.dispatch(false, false);
    long linesPerRow = beats(4 * q.n(), 1);
    add(Counter.SPAD_READS, q.m() * linesPerRow);
    // the PPM writes each source line's codes as one partial line
    add(Counter.SPAD_WRITES, q.m() * linesPerRow);
    add(Counter.PPM_ELEMENTS, q.m() * q.n());
    cm.ppm(q.m(), linesPerRow);
    return null;
  }

  /** Bytes of a {@code dspin}/{@code dspout} element: INT8 1, FP16 2, INT32 4. */
  private static int elementBytes(long format) {
    return format == Command.FMT_INT8 ? 1 : format == Command.FMT_FP16 ? 2 : 4;
  }
}
