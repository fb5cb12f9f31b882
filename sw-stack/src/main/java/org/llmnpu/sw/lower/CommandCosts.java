package org.llmnpu.sw.lower;

import java.util.Map;
import org.llmnpu.isa.Counter;
import org.llmnpu.isa.CycleModel;
import org.llmnpu.isa.EngineRecurrence;
import org.llmnpu.isa.MachineParams;
import org.llmnpu.numerics.gemm.Sparsity;
import org.llmnpu.numerics.gemm.TiledGemm;
import org.llmnpu.numerics.gemm.TiledGemmConfig;

/**
 * The per-command accounting under {@link PhaseCostModel}: each command's fetch and dispatch and
 * its work fed to {@code npu-isa}'s {@link CycleModel}, and the counts the golden ISA simulator keeps for it (DRAM
 * beats and DMA bytes, scratchpad line reads and writes, MACs, partial-sum write-backs, DSP instructions and
 * elements, commands; the command words the cycle model's fetcher reads, also ahead of the program, are added by
 * {@link CycleModel#fill}). The DSP runs are {@link DspRunCosts}' (its subclass): they may be held to be joined,
 * and every other command first issues the held ones ({@link #flushRuns}).
 */
abstract class CommandCosts {
  final MachineParams p;
  final int line;
  CycleModel cm;
  private long[] counts;
  private final TiledGemmConfig denseTiles;
  private final TiledGemmConfig sparseTiles;
  /** A GEMM the engine runs in N-tile pairs (streamed INT4): one K tile a group ({@code EngineRecurrence.icAccumDepth}). */
  private final TiledGemmConfig pairTiles;
  /** Where the cycles go ({@link #profile}, {@link CostProfile#besideWindow}, {@link CostProfile#backEndWaits}). */
  private final CostProfile where = new CostProfile();
  /** The order the costed commands reach the cycle model in: {@link CostOrder#NOW}, or a {@link WalkSchedule}. */
  CostOrder order = CostOrder.NOW;

  CommandCosts(MachineParams p) {
    this.p = p;
    this.line = p.lineBytes();
    int depth = p.icAccumDepth() == 0 ? TiledGemmConfig.ALL_K_TILES : p.icAccumDepth();
    this.denseTiles = new TiledGemmConfig(p.rows(), p.rows(), p.mTile(), p.accWidth(), depth, Sparsity.NONE);
    this.sparseTiles = new TiledGemmConfig(p.rows(), p.rows(), p.mTile(), p.accWidth(), depth, Sparsity.S2_4);
    this.pairTiles = new TiledGemmConfig(p.rows(), p.rows(), p.mTile(), p.accWidth(), 1, Sparsity.NONE);
  }

  /** Starts a program: a fresh cycle model, zero counts. */
  final void reset() {
    cm = new CycleModel(p);
    counts = new long[Counter.values().length];
    clearRuns();
    where.reset();
    programStarts();
  }

  /** A program starts ({@link #reset}): what a walk keeps of the scratchpad's contents is forgotten. */
  void programStarts() {
  }

  /** Where the cycles went since {@link #reset}: the profile rows, the beside window and the back-end waits. */
  final CostProfile where() {
    return where;
  }

  /** Issues the held DSP runs ({@link DspRunCosts}): before any other command, and before a snapshot. */
  abstract void flushRuns();

  /** Forgets the held runs, the resident placements and the run forms seen (a fresh program). */
  abstract void clearRuns();

  /** {@code cost}, run (now or later, as {@link #order} says) under the operator of now. */
  final Runnable held(Runnable cost) {
    String of = where.operator();
    return () -> {
      String current = where.operator();
      where.operator(of);
      cost.run();
      where.operator(current);
    };
  }

  /** {@code cost} {@link #held} after the runs held to be joined are issued (before any other command). */
  private Runnable costed(Runnable cost) {
    flushRuns();
    return held(cost);
  }

  /** Dispatches the decoded command ({@code how}) and counts the cycles it waited. */
  private void dispatch(Runnable how) {
    long decoded = cm.now();
    how.run();
    where.waited(cm.now() - decoded, cm.now());
  }

  private void noteBesideWindow() {
    where.beside(cm.backEndIdleFrom() - cm.now());
  }

  /** The commands issued from now on belong to {@code name} (a profile row's first half). */
  final void operator(String name) {
    where.operator(name);
  }

  /** The operator the commands issued now belong to. */
  final String operator() {
    return where.operator();
  }

  /** The profile so far: "operator / kind" → {cycles, commands, waited} (empty when not started). */
  final Map<String, long[]> profile() {
    charge(null);
    return where.rows();
  }

  /** Charges the previous command's cycles to its row and starts {@code kind}'s (null: none). */
  private void charge(String kind) {
    if (cm != null) {
      where.charge(kind, cm.now(), cm.backEndIdleFrom());
    }
  }

  /** The counts so far with the cycle model's counters (and its fetcher's reads) filled in. */
  final PhaseCost snapshot() {
    flushRuns();
    order.flush();
    long[] c = counts.clone();
    cm.fill(c);
    return new PhaseCost(c, line);
  }

  final void add(Counter c, long v) {
    counts[c.ordinal()] += v;
  }

  private long beats(long rows, long rowBytes) {
    return rows * ((rowBytes + line - 1) / line);
  }

  /** The {@code dsptab} of {@code beats} beats (its command already counted). */
  final void dspTable(long beats) {
    order.barrier(held(() -> {
      add(Counter.EXT_READ_BEATS, beats);
      cm.dspTable(beats);
    }));
  }

  final void command(boolean isLoad) {
    command(isLoad, isLoad ? "load" : "other");
  }

  /** A DSP copy's fetch and dispatch: beside a running GEMM unless it reads result buffer {@code tag} (0: none). */
  private void copyCommand(boolean in, long tag, long tagEnd) {
    charge(in ? "dspin" : "dspout");
    add(Counter.COMMANDS, 1);
    cm.fetchAndDecode();
    dispatch(() -> cm.dispatchDspCopy(in, tag, tagEnd));
  }

  /** A command costed as {@code kind} ("other": one that orders everything when the walk is interleaved). */
  final void command(boolean isLoad, String kind) {
    order.barrier(costed(() -> issue(isLoad, kind)));
  }

  final void issue(boolean isLoad, String kind) {
    charge(kind);
    add(Counter.COMMANDS, 1);
    cm.fetchAndDecode();
    if (kind.equals("dsprun") || kind.equals("dsptab") || kind.equals("dspld")) {
      dispatch(cm::dispatchBeside);
    } else {
      dispatch(() -> cm.dispatch(isLoad, false));
    }
  }

  /** A resident {@code dsprun}'s fetch and dispatch: beside a running GEMM and its W stream. */
  final void issueResidentRun() {
    charge("dsprun");
    add(Counter.COMMANDS, 1);
    cm.fetchAndDecode();
    dispatch(cm::dispatchResidentRun);
  }

  final void load(long rows, long rowBytes) {
    load(rows, rowBytes, false);
  }

  /** A {@code load} from the external bytes a step writes (the K/V cache's rows, Kᵀ's lines). */
  final void cacheLoad(long rows, long rowBytes) {
    load(rows, rowBytes, true);
  }

  private void load(long rows, long rowBytes, boolean fromWritten) {
    order.load(operator(), fromWritten, costed(() -> {
      issue(true, "load");
      long beats = beats(rows, rowBytes);
      add(Counter.DMA_LOAD_BYTES, rows * rowBytes);
      add(Counter.EXT_READ_BEATS, beats);
      add(Counter.SPAD_WRITES, beats);
      cm.load(beats);
    }));
  }

  /** A {@code load4} of {@code rows} source rows of {@code rowBytes} bytes (each byte two scratchpad bytes). */
  final void load4(long rows, long rowBytes) {
    order.load(operator(), false, costed(() -> {
      issue(true, "load4");
      long beats = beats(rows, rowBytes);
      add(Counter.DMA_LOAD_BYTES, rows * rowBytes);
      add(Counter.EXT_READ_BEATS, beats);
      add(Counter.SPAD_WRITES, beats(rows, 2 * rowBytes));
      cm.load4(beats);
    }));
  }

  final void store(long rows, long rowBytes) {
    order.store(operator(), costed(() -> {
      charge("store");
      add(Counter.COMMANDS, 1);
      cm.fetchAndDecode();
      // it reads none of a running GEMM's results (the order keeps them apart); a drain that reads the scratchpad
      // holds the read port, and then it waits for the back-end
      dispatch(() -> cm.dispatch(false, !cm.drainReadsScratchpad()));
      long beats = beats(rows, rowBytes);
      add(Counter.DMA_STORE_BYTES, rows * rowBytes);
      add(Counter.EXT_WRITE_BEATS, beats);
      add(Counter.SPAD_READS, beats);
      cm.store(beats);
    }));
  }

  /**
   * The walk's stand-in for scratchpad ranges (the DSP copies beside a GEMM, {@code CycleModel#dispatchDspCopy}): a
   * GEMM's results are buffer {@link #resultTag} (range {@code [tag, tag + 1)}); a {@code dspin} of INT32 reads the
   * results of the buffer it names (by default {@link #RESULTS}: the last GEMM's), every other copy touches none of a
   * running GEMM's results (INT8/FP16 scratchpad rows are not where a GEMM drains INT32; the lowering emits no GEMM
   * that accumulates). A K split's chunk ci drains into its own buffer {@code RESULTS + ci}.
   */
  static final long RESULTS = 1;
  /** The result buffer of the GEMMs issued from now on ({@link #RESULTS} + a K chunk), or its first row. */
  long resultTag = RESULTS;
  /** Rows of the GEMMs issued from now on from {@link #resultTag} (1 unless a row-exact region is named). */
  long resultRows = 1;
  /** The GEMMs issued from now on copy no X ({@code gemm xKeep=1}: an N tile after the first of the same X). */
  boolean keepX;
  /** Added to the result tags now: a second block in flight has its own buffers ({@link BlockLane}). */
  long laneTags;
  /** A lane's result buffers ({@link #laneTags}) lie this far apart. */
  static final long LANE_TAGS = 1L << 40;

  /** Result buffer {@code tag} of the block issuing now (0, every result, stays 0). */
  private long laneTag(long tag) {
    return tag == 0 ? 0 : tag + laneTags;
  }

  /** A {@code dspin} of {@code rows} rows of {@code elems} elements of {@code elemBytes} bytes (FP16 2, INT32 4). */
  final void dspIn(long rows, long elems, int elemBytes) {
    dspIn(rows, elems, elemBytes, RESULTS);
  }

  /** As above; an INT32 one reads result buffer {@code tag} ({@link #RESULTS}). */
  final void dspIn(long rows, long elems, int elemBytes, long tag) {
    dspIn(rows, elems, elemBytes, tag, tag + 1);
  }

  /** As above; an INT32 one reads the results in {@code [tag, tagEnd)} (rows of several GEMMs' results). */
  final void dspIn(long rows, long elems, int elemBytes, long tag, long tagEnd) {
    long from = elemBytes == 4 ? laneTag(tag) : 0;
    long to = elemBytes == 4 ? laneTag(tagEnd) : 1;
    order.copy(operator(), true, rows, elems, elemBytes, from, to, costed(() -> {
      copyCommand(true, from, to);
      add(Counter.SPAD_READS, beats(rows, elems * elemBytes));
      add(Counter.DSP_ELEMENTS, rows * elems);
      cm.dspCopy(rows, elems, elemBytes, true);
    }));
  }

  /** A {@code dspout} of {@code rows} rows of {@code elems} elements of {@code elemBytes} bytes (INT8 1, FP16 2). */
  final void dspOut(long rows, long elems, int elemBytes) {
    order.copy(operator(), false, rows, elems, elemBytes, 0, 1, costed(() -> {
      copyCommand(false, 0, 1);
      add(Counter.SPAD_WRITES, beats(rows, elems * elemBytes));
      add(Counter.DSP_ELEMENTS, rows * elems);
      cm.dspCopy(rows, elems, elemBytes, false);
    }));
  }

  /** A GEMM whose W streams from memory ({@code gemm wStream=1}; {@code int4}: {@code wInt4=1}; {@code sparse}: 2:4). */
  final void streamedGemm(int m, int k, int n, boolean int4, boolean sparse) {
    streamedGemm(m, k, n, int4, sparse, false);
  }

  /** As above; {@code groupScaled}: group-scaled INT4 ({@code wInt4=2}, two multiplier rows a group of 32). */
  final void streamedGemm(int m, int k, int n, boolean int4, boolean sparse, boolean groupScaled) {
    streamedGemm(m, k, n, int4, sparse, groupScaled, false, () -> { });
  }

  private void streamedGemm(int m, int k, int n, boolean int4, boolean sparse, boolean groupScaled,
                            boolean ppmDrain, Runnable drain) {
    long tag = laneTag(resultTag);
    long tagRows = resultRows;
    long streamBeats = (sparse ? (k * 5L + 7) / 8 : k) * (((int4 ? (n + 1L) / 2 : n) + line - 1) / line);
    boolean keep = keepX;
    order.gemm(operator(), tag, tagRows, streamBeats, ppmDrain, costed(() -> {
      streamedGemmCost(m, k, n, int4, sparse, groupScaled, ppmDrain, keep, tag, tagRows);
      drain.run();
    }));
  }

  private void streamedGemmCost(int m, int k, int n, boolean int4, boolean sparse, boolean groupScaled,
                                boolean ppmDrain, boolean keep, long tag, long tagRows) {
    issue(false, "gemm wStream");
    long values = sparse ? 2L * ((k + 3) / 4) : k;
    long rows = sparse ? values + (values + 3) / 4 : groupScaled ? LoweredModel.groupScaledRow(k) : k;
    add(Counter.MACS, sparse ? (long) m * n * values : (long) m * k * n);
    add(Counter.DENSE_MACS, (long) m * k * n);
    add(Counter.PSUM_WRITEBACKS, TiledGemm.psumWritebacks(EngineRecurrence.pairOrder(p, int4, n) ? pairTiles
        : sparse ? sparseTiles : denseTiles, m, k, n));
    long rowBytes = int4 ? (n + 1L) / 2 : n;
    add(Counter.EXT_READ_BEATS, (rowBytes + line - 1) / line * rows);
    add(Counter.DMA_LOAD_BYTES, rows * rowBytes);
    add(Counter.SPAD_READS, keep ? 0 : m * ((k + (long) line - 1) / line));
    add(Counter.SPAD_WRITES, ppmDrain ? p.ppmDrainLines(m, n) : m * ((4L * n + line - 1) / line));
    cm.streamedGemm(m, k, n, int4, sparse ? rows : 0, groupScaled, keep, tag, tag + tagRows);
    if (!ppmDrain) {
      noteBesideWindow();
    }
  }

  final void gemm(int m, int k, int n, boolean sparse) {
    gemm(m, k, n, sparse, () -> { });
  }

  /** As above; {@code after}: more of the same command's cost. */
  private void gemm(int m, int k, int n, boolean sparse, Runnable after) {
    long tag = laneTag(resultTag);
    long tagRows = resultRows;
    boolean keep = keepX;
    order.gemm(operator(), tag, tagRows, -1, false, costed(() -> {
      gemmCost(m, k, n, sparse, keep, tag, tagRows);
      after.run();
    }));
  }

  private void gemmCost(int m, int k, int n, boolean sparse, boolean keep, long tag, long tagRows) {
    issue(false, "gemm");
    int wRows = sparse ? 4 * ((k + 3) / 4) : k;
    add(Counter.MACS, sparse ? (long) m * n * (wRows / 2) : (long) m * k * n);
    add(Counter.DENSE_MACS, (long) m * k * n);
    add(Counter.PSUM_WRITEBACKS, TiledGemm.psumWritebacks(sparse ? sparseTiles : denseTiles, m, k, n));
    long drainLines = (4L * n + line - 1) / line;
    add(Counter.SPAD_READS, (keep ? 0 : m * ((k + (long) line - 1) / line)) + wRows * ((n + (long) line - 1) / line));
    add(Counter.SPAD_WRITES, m * drainLines);
    cm.gemm(m, k, n, wRows, sparse, keep, tag, tag + tagRows);
    noteBesideWindow();
  }
  /**
   * A GEMM adding its results to Y ({@code accumulate = 1}): each drain line reads the old Y line too, over the
   * scratchpad's read port ({@code CycleModel#drainReadsY}: a store waits for it, a copy clear of its results goes as a
   * load and holds its drain's start while it reads).
   */
  final void accumulatingGemm(int m, int k, int n) {
    gemm(m, k, n, false, () -> {
      add(Counter.SPAD_READS, m * ((4L * n + line - 1) / line));
      cm.drainReadsY();
    });
  }

  /**
   * A streamed GEMM (2:4 with {@code sparse}) whose results drain through the PPM into INT8 codes ({@code gemm wStream=1
   * ppm=1}); {@code gate}: times the gate codes at Y ({@code gate=1}), whose drain reads a gate line a row per line of
   * codes over the read port (as {@link #accumulatingGemm}: its results keep their tag, {@code CycleModel#drainReadsY}).
   */
  final void streamedPpmGemm(int m, int k, int n, boolean int4, boolean sparse, int bank, boolean gate) {
    streamedGemm(m, k, n, int4, sparse, false, true, () -> {
      add(Counter.PPM_ELEMENTS, (long) m * n);
      add(Counter.SPAD_READS, gate ? m * ((n + (long) line - 1) / line) : 0);
      cm.drainThroughPpm(bank);
      if (gate) {
        cm.drainReadsY();
      }
      noteBesideWindow();
    });
  }

  /** A {@code ppmcfg} of {@code items} 16-byte records, or a {@code pputab} (66 entries of 2 bytes). */
  final void ppmLoad(long items, int itemBytes) {
    order.ppm(costed(() -> {
      issue(false, "ppmcfg");
      add(Counter.EXT_READ_BEATS, beats(1, items * itemBytes));
      cm.ppmLoad(items, itemBytes);
    }));
  }

  /** A {@code ppmcfg} of {@code items} 16-byte records into parameter bank {@code bank} (beside a GEMM reading the other). */
  final void ppmCfg(long items, int bank) {
    order.ppm(costed(() -> {
      charge("ppmcfg");
      add(Counter.COMMANDS, 1);
      cm.fetchAndDecode();
      dispatch(() -> cm.dispatchPpmCfg(bank));
      add(Counter.EXT_READ_BEATS, beats(1, items * org.llmnpu.isa.Command.PPM_RECORD_BYTES));
      cm.ppmLoad(items, org.llmnpu.isa.Command.PPM_RECORD_BYTES);
    }));
  }

}
