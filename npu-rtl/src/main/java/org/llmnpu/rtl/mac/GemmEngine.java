package org.llmnpu.rtl.mac;

import static org.llmnpu.hdl.Hw.bool;
import static org.llmnpu.hdl.Hw.uint;
import static org.llmnpu.hdl.Hw.uintLit;

import java.util.List;
import org.llmnpu.hdl.Bool;
import org.llmnpu.hdl.ClockGating;
import org.llmnpu.hdl.Mem;
import org.llmnpu.hdl.UInt;

/**
 * GEMM engine: a {@link MacArray}, its activation/weight buffers, per-column result memories and
 * the sequencer that streams a whole tiled {@code Y[M×N] = X[M×K] · W[K×N]} (INT8 in, signed
 * {@code accWidth}-bit out), bit for bit equal to {@code org.llmnpu.numerics.gemm.TiledGemm} with
 * the same {@code rows, cols, mTile, accWidth, icAccumDepth, sparsity}.
 *
 * <p><b>Buffers</b> (written through ports before {@code start}; layout in {@link GemmEngineDriver}):
 * {@code xBuffer} word {@code (m, kTile)} = the {@code kPerTile} activations of row m in that K tile,
 * lane l at bits {@code 8l..8l+7}; {@code wBuffer} word {@code (nTile, kTile, row)} = the weight
 * entries of one PE row for the N tile, column c at bits {@code e·c..} ({@code e} = 8, or 10 with
 * N:M: value then the {@code log2 M}-bit index: 10 bits with 2:4, 11 with 4:8); per column {@code c} a memory {@code psum_c} holds partial sums and
 * final results at {@code (m, nTile)}, read through {@code yAddress}/{@code yData} (column 0 in the
 * least significant bits). Weight rows past K are loaded as zero, outputs past N are not written,
 * so buffer contents beyond the shape do not matter.
 *
 * <p><b>Sequencing.</b> Passes (N tile, M chunk of {@code mTile}, K tile) in {@link PassIterator}
 * order. A loader writes pass j's weights into the shadow registers one PE row per cycle starting
 * at cycle {@code P_j}; a streamer presents its {@code Mc_j} activation rows from cycle
 * {@code S_j}. Partial sums of a group's last K tile go to {@code psum_c} (write-back) and are read
 * back by the first K tile of the next group in the same cycle the beat reaches the column, so
 * extended IC accumulation changes memory traffic, not cycles.
 *
 * <p><b>Cycle formula</b> (cycle 0 = the first cycle after {@code start}; {@code cycles} = cycles
 * until {@code done} is high = the {@code cycles} output), with {@code gap = max(cols − 1, 1)}:
 * <pre>
 *   P_0 = 0,  S_0 = 1
 *   P_{j+1} = max(P_j + rows,  S_j + gap)        weight bus busy; shadow free once every column swapped
 *   S_{j+1} = max(S_j + Mc_j,  P_{j+1} + 1)      stream busy; row 0 of the next tile loaded
 *   cycles  = S_{J−1} + Mc_{J−1} − 1 + rows + cols   last beat, fill (rows) and drain (cols)
 * </pre>
 * When every chunk has {@code Mc ≥ max(rows, cols)} the preload is hidden completely (double
 * buffering) and {@code cycles = nTiles · kTiles · M + rows + cols}, with {@code kTiles =
 * ceil(K / kPerTile)} halved by 2:4 and 4:8 ({@code kPerTile = 2·rows}). One pass alone:
 * {@code Mc + rows + cols}. {@link GemmCycleModel} evaluates it.
 *
 * <p><b>Streamed weights</b> ({@link #withWeightStream}, {@link #withDenseModeAndWeightStream}): the W buffer may
 * still be filling when the engine starts; pass j's loader then also waits until the ports {@link #wFullTiles},
 * {@link #wPartialEnd}, {@link #wKTiles} show its W tile, from cycle {@code R_j}: {@code P_0 = max(0, R_0)},
 * {@code S_0 = P_0 + 1}, {@code P_{j+1} = max(P_j + rows, S_j + gap, R_{j+1})} ({@code
 * org.llmnpu.isa.CycleFormulas#engineCyclesOverKTiles} with a {@code PassReady}). The X buffer may fill while the engine
 * runs too: the loader also waits for {@link #xKTiles} to show the pass's K tile, so {@code R_j} is the later of the
 * W tile's and the X K tile's first cycle ({@code org.llmnpu.isa.CycleModel#streamedGemm}: the NPU's X copy, K tile
 * by K tile, from the engine's start). With {@link #wPairOrder} the passes
 * go in N-tile pairs ({@link PassIterator}; {@code org.llmnpu.isa.EngineRecurrence#cycles} with {@code pairs}), each
 * its own accumulation group: the partial sums of a pass go to {@code psum_c} at {@code (m, nTile)} and the tile's
 * next pass reads them back as the beat reaches the column (the read-back port the extended IC accumulation uses),
 * so the order changes the psum traffic, not the results.
 *
 * <p><b>Handshake.</b> {@code start} (while idle) clears counters and flags and starts;
 * {@code done} rises when the last result is written and stays high until the next start.
 *
 * <p><b>Array clock gate</b> ({@link #of} with {@code arrayGating} ON or CHECKED): the {@link MacArray} (the PEs'
 * weights, activation and partial-sum pipes, the tag skew, the periphery accumulators: about 90 % of the engine's
 * flip-flops) runs on a clock of its own ({@value #ARRAY_GATE}, {@code HwModule#clockGatedPipeline}), open in the
 * launch cycle and while the engine runs ({@code running}: the cycles the {@code cycles} output counts, and the NPU's
 * {@code arrayCycles} counter: {@code engine + 1} per GEMM), and for {@code rows + cols} cycles after reset
 * ({@code arrayWarm}: the reset-less swap pipes fill with zeros). Outside a run no tag is valid (the drain ends when
 * the last column's tag has left, so the valid pipe is all zero) and no weight loads or swaps; the activation and
 * partial-sum pipes, which the ungated array clocks with whatever the X buffer's read port shows, are read only
 * under a valid tag. Inside it the PEs' registers are on gates by wavefront and by row ({@link MacArray}'s clock
 * gates). Results and cycles are those of the ungated engine; the enables add no cycle.
 *
 * <p>This class holds the ports of the variants and wires the parts: {@link GemmEngineDatapath} (X and W buffers,
 * the gated array, the psum memories) and {@link GemmEngineSequencer} (loader, streamer, drain).
 */
public final class GemmEngine extends GemmEngineSequencer {
  /**
   * With {@link #withDenseMode}: high for a dense GEMM on this N:M array, given as an N:M GEMM of
   * {@code k = 2K} whose X words hold each K tile's {@code rows} activations zero-interleaved (group g's lanes
   * {@code g·G + j} = activation {@code g·E + j} for {@code j < E}, 0 for {@code j ≥ E}) and whose PE row r holds
   * dense W row r of the tile with index {@code r mod E}; the loader then zeroes the PE rows past
   * {@code kRemain / 2} (dense rows left) instead of past {@code E·ceil(kRemain / G)}. Null otherwise.
   */
  public final Bool denseWeights;
  /**
   * With {@link #withDenseMode}: writes only the index field of the W entries at {@code wAddress} (a metadata
   * row after its value row, which {@code wWrite} wrote); the W buffer is then two memories, {@code wValues}
   * and {@code wIndex}. Null otherwise.
   */
  public final Bool wIndexWrite;
  /**
   * With {@link #withDenseMode}: writes the indices of the {@code P} entry rows from {@code wAddress} (a multiple
   * of P) from one packed metadata line in {@code wData}'s low {@code 8·cols} bits — byte c holds P fields of
   * {@code 8/P} bits (P = 4 with 2:4, 2 with 4:8), field i (low first) the index of row {@code wAddress + i},
   * column c: a streamed GEMM's packed metadata beat. Null otherwise.
   */
  public final Bool wMetaWrite;
  /**
   * With {@link #withDenseModeAndWeightStream}: {@code wWrite} writes the values only, not the index field (a streamed
   * N:M W's value rows, whose packed metadata came first). Null otherwise.
   */
  public final Bool wValuesOnly;
  /**
   * With {@link #withDenseMode}: which halves of the X word at {@code xAddress} {@code xWrite} writes (bit 0 lanes
   * {@code 0..rows−1}, bit 1 lanes {@code rows..2·rows−1}; the X buffer is then two memories, {@code xBufferLo} and
   * {@code xBufferHi}), so an N:M GEMM's two X lines of a K tile go in one at a time. Null otherwise.
   */
  public final UInt xHalves;
  /**
   * With {@link #withWeightStream} (the W buffer fills while the engine runs): the N tiles whose every W row is in
   * the buffer; the N tiles {@code [wFullTiles, wPartialEnd)} have their first {@code wKTiles} K tiles in. The
   * loader starts a pass only when its tile is in ({@code nTile < wFullTiles}, or {@code nTile < wPartialEnd} and
   * {@code kTile < wKTiles}); a GEMM whose W was written before {@code start} holds {@code wFullTiles} at all
   * ones. Null otherwise.
   */
  public final UInt wFullTiles;
  public final UInt wPartialEnd;
  public final UInt wKTiles;
  /**
   * With {@link #withWeightStream} or {@link #withDenseModeAndWeightStream} (the X buffer may also fill while the
   * engine runs: the NPU starts a streamed GEMM's engine at its X copy's first cycle): the K tiles whose X words of
   * every row are in. The loader starts a pass only when {@code kTile < xKTiles} (beside the W tile's
   * {@link #wFullTiles} rule), so pass j of K tile {@code kt} starts no earlier than the first cycle the port shows
   * {@code kt + 1}; a GEMM whose X was written before {@code start} holds it at all ones. Null otherwise.
   */
  public final UInt xKTiles;
  /**
   * With {@link #withWeightStream} on an engine of more than one N tile: {@code wPairWrite} (with {@code wWrite} at
   * an even N tile) also writes {@code wDataHigh} into the next N tile's same row, so an INT4 beat's two lines go in
   * one cycle (the W buffer is then two banks by N-tile parity, {@link #parityWeightBuffer}). Null otherwise.
   */
  public final Bool wPairWrite;
  public final UInt wDataHigh;
  /**
   * With {@link #withWeightStream} or {@link #withDenseModeAndWeightStream}: high for a GEMM (held from its start to
   * done) whose passes go in N-tile pairs ({@link PassIterator}'s pair order: pair, M chunk, K tile, N tile of the
   * pair; one K tile a group), a streamed INT4 W whose beat column holds N tiles {@code 2c} and {@code 2c + 1}, so
   * both tiles' passes follow the column's beats K tile by K tile. Null otherwise.
   */
  public final Bool wPairOrder;
  private final boolean denseMode;
  private final boolean weightStream;
  private final ClockGating arrayGating;
  /** The name of the MAC array's clock gate ({@link #of}). */
  public static final String ARRAY_GATE = "macArray";

  public GemmEngine(GemmEngineConfig c) {
    this(c, 1);
  }

  /**
   * An N:M engine with the NPU's extra ports {@link #denseWeights} and {@link #wIndexWrite} (one W row per
   * write): the cycles are the formula's for {@code k} (2K for a dense GEMM of K, the same K tiles as a dense
   * array's).
   */
  public static GemmEngine withDenseMode(GemmEngineConfig c) {
    return new GemmEngine(c, 1, true, false);
  }

  /**
   * {@link #withDenseMode} with the streamed-weight ports of {@link #withWeightStream} and {@link #wMetaWrite}: the
   * index memory is then {@code P} banks (entry rows {@code i mod P}), so a packed metadata line writes P rows'
   * indices in one cycle.
   */
  public static GemmEngine withDenseModeAndWeightStream(GemmEngineConfig c) {
    return new GemmEngine(c, 1, true, true);
  }

  /**
   * A dense engine whose W buffer may fill while it runs (the NPU's streamed weights): the ports
   * {@link #wFullTiles}, {@link #wPartialEnd}, {@link #wKTiles} say which W tiles are in, and pass j's loader waits
   * until its tile is: {@code P_j ≥ R_j}, the first cycle in which the ports show it ({@code
   * org.llmnpu.isa.CycleFormulas#engineCyclesOverKTiles} with a {@code PassReady}). With every tile in at start, the
   * cycles of the plain engine. With more than one N tile the W buffer is two banks by N-tile parity and
   * {@link #wPairWrite} writes two N tiles' rows in one cycle.
   */
  public static GemmEngine withWeightStream(GemmEngineConfig c) {
    return new GemmEngine(c, 1, false, true);
  }

  /**
   * An engine whose W buffer takes {@code weightRowsPerCycle} PE rows per write (one row bank each, see
   * {@link GemmBackend#weightBuffer}); the loader still moves one PE row a cycle into the array (the
   * swap wavefront bounds a pass to {@code max(rows, cols)} cycles anyway), so the cycles are the same.
   */
  public GemmEngine(GemmEngineConfig c, int weightRowsPerCycle) {
    this(c, weightRowsPerCycle, false, false);
  }

  /**
   * The engine of the given kind ({@code denseMode}: {@link #withDenseMode}, {@code weightStream}: {@link
   * #withWeightStream}, both: {@link #withDenseModeAndWeightStream}) with its MAC array on a clock gate of its own
   * ({@code arrayGating} ON or CHECKED; OFF: none; class comment).
   */
  public static GemmEngine of(GemmEngineConfig c, int weightRowsPerCycle, boolean denseMode, boolean weightStream,
                              ClockGating arrayGating) {
    return new GemmEngine(c, weightRowsPerCycle, denseMode, weightStream, arrayGating);
  }

  private GemmEngine(GemmEngineConfig c, int weightRowsPerCycle, boolean denseMode, boolean weightStream) {
    this(c, weightRowsPerCycle, denseMode, weightStream, ClockGating.OFF);
  }

  private GemmEngine(GemmEngineConfig c, int weightRowsPerCycle, boolean denseMode, boolean weightStream,
                     ClockGating arrayGating) {
    super(c, weightRowsPerCycle);
    this.arrayGating = java.util.Objects.requireNonNull(arrayGating, "arrayGating");
    MacArrayConfig a = c.array();
    if (denseMode && (!a.sparsity().sparse() || weightRowsPerCycle != 1)) {
      throw new IllegalArgumentException("the dense mode is for an N:M array with weightRowsPerCycle 1, got "
          + a.sparsity().cliName() + " with weightRowsPerCycle " + weightRowsPerCycle);
    }
    if (weightStream && (a.sparsity().sparse() != denseMode || weightRowsPerCycle != 1)) {
      throw new IllegalArgumentException("streamed weights need weightRowsPerCycle 1 and a dense array or the dense"
          + " mode, got " + a.sparsity().cliName() + " with weightRowsPerCycle " + weightRowsPerCycle);
    }
    this.denseMode = denseMode;
    this.weightStream = weightStream;
    denseWeights = denseMode ? in("denseWeights", bool()) : null;
    wIndexWrite = denseMode ? in("wIndexWrite", bool()) : null;
    wMetaWrite = denseMode && weightStream ? in("wMetaWrite", bool()) : null;
    wValuesOnly = denseMode && weightStream ? in("wValuesOnly", bool()) : null;
    xHalves = denseMode ? in("xHalves", uint(2)) : null;
    int tileCountBits = c.nTileBits() + 1;
    wFullTiles = weightStream ? in("wFullTiles", uint(tileCountBits)) : null;
    wPartialEnd = weightStream ? in("wPartialEnd", uint(tileCountBits)) : null;
    wKTiles = weightStream ? in("wKTiles", uint(c.kTileBits() + 1)) : null;
    xKTiles = weightStream ? in("xKTiles", uint(c.kTileBits() + 1)) : null;
    boolean pairs = weightStream && !denseMode && c.nTileBits() > 0;
    wPairWrite = pairs ? in("wPairWrite", bool()) : null;
    wDataHigh = pairs ? in("wDataHigh", uint(load.wData.width())) : null;
    wPairOrder = weightStream ? in("wPairOrder", bool()) : null;
    List<Mem<UInt>> xBuffer = activationBuffer(a, denseMode, xHalves);
    WeightStore weights = weightStore(a, denseMode, pairs, weightStream, wIndexWrite, wMetaWrite, wValuesOnly,
        wPairWrite, wDataHigh);

    Bool running = regInit("running", bool(), 0);
    Bool doneQ = regInit("doneQ", bool(), 0);
    Bool launch = wire("launch", start.and(running.not()));
    MacArray array = gatedArray(a, c, running.or(launch), arrayGating);
    PassIterator loadPass = instance("loadPass", new PassIterator(c, weightStream));
    PassIterator streamPass = instance("streamPass", new PassIterator(c, weightStream));
    for (PassIterator it : List.of(loadPass, streamPass)) {
      if (weightStream) {
        it.pairOrder.set(wPairOrder);
      }
      it.restart.set(launch);
      it.m.set(load.m);
      it.k.set(load.k);
      it.n.set(load.n);
    }
    Bool pending = regInit("pending", bool(), 0);
    Bool loaderStarts = wire("loaderStarts", bool());
    Bool streamStarts = wire("streamStarts", bool());

    Control ctl = new Control(running, doneQ, launch, pending, loaderStarts, streamStarts);
    loader(c, ctl, loadPass, array, weights, denseWeights,
        weightStream ? new TilesIn(wFullTiles, wPartialEnd, wKTiles, xKTiles) : null);
    streamer(c, ctl, streamPass, array, xBuffer);
    resultMemories(a, array);
    UInt cycleCount = regInit("cycleCount", uint(32), 0);
    when(launch, () -> cycleCount.set(uintLit(0, 32))).elseWhen(running, () -> cycleCount.set(cycleCount.add(1)));
    busy.set(running);
    done.set(doneQ);
    overflow.set(array.overflow);
    psumWritebacks.set(array.psumWritebacks);
    psumReadbacks.set(array.psumReadbacks);
    cycles.set(cycleCount);
  }

  @Override
  public String moduleName() {
    GemmEngineConfig config = config();
    return "GemmEngine_" + config.array().tag() + "_M" + config.maxM() + "_K" + config.maxK() + "_N" + config.maxN()
        + (weightRowsPerCycle() == 1 ? "" : "_w" + weightRowsPerCycle()) + (denseMode ? "_dm" : "")
        + (weightStream ? "_ws" : "") + (arrayGating == ClockGating.OFF ? "" : "_ga");
  }
}
