package org.llmnpu.rtl.npu;

import static org.llmnpu.hdl.Hw.bitsToHold;
import static org.llmnpu.hdl.Hw.cat;
import static org.llmnpu.hdl.Hw.catLsbFirst;
import static org.llmnpu.hdl.Hw.mux;
import static org.llmnpu.hdl.Hw.uint;
import static org.llmnpu.hdl.Hw.uintLit;

import java.util.ArrayList;
import java.util.List;
import org.llmnpu.hdl.HwValue;
import org.llmnpu.hdl.UInt;
import org.llmnpu.rtl.mac.GemmBackend;
import org.llmnpu.rtl.mac.GemmEngineConfig;

/**
 * The {@link Npu}'s GEMM controller: the command's shape registers, the GEMM engine
 * ({@link GemmBackend}: the systolic {@code GemmEngine} or the {@link PimGemmBackend}) and the copy
 * of its operands from the scratchpad — GEMM_X writes X row m's K-tile line t into the engine's X buffer over
 * its own scratchpad walk ({@link #xWalk}; one line a cycle, {@code M·ceil(K/rows)} cycles, K tile by K tile: line
 * {@code t·M + m}, an N:M GEMM's K tile two such lines; a streamed GEMM's W beats go beside it over the DMA's
 * walks, {@link NpuWeightStream}, and its engine starts in the copy's first cycle, {@link #engineStarts}, each pass
 * waiting for its K tile's lines, {@link #xKTiles}), over the DMA's scratchpad walk
 * GEMM_W writes W row k's N-tile line into its W buffer ({@code K·ceil(N/rows)} cycles; with
 * {@code R = weightRowsPerCycle > 1}, rows {@code k..k+R−1} together through R scratchpad read ports,
 * {@code ceil(N/rows)·ceil(K/R)} cycles, the rows past K of the last group are don't-cares), and
 * GEMM_START starts the engine of a scratchpad GEMM (one cycle) and hands the run to the {@link NpuBackEnd}. A
 * {@code gemm xKeep=1} on an NPU built with {@code xKeep} skips GEMM_X ({@link NpuKeptX}). Cycles:
 * {@code org.llmnpu.isa.CycleModel} ({@code gemm}). On an N:M array ({@code NpuConfig.sparsity}) the copies
 * are {@link NpuGemmNm}'s (same cycles: one line a cycle; the W walk covers the value and metadata rows).
 */
final class NpuGemm {
  final UInt m;
  final UInt k;
  final UInt n;
  GemmBackend engine;
  /** The command's M·K·N, counted when it starts. */
  UInt macs;
  /** The K of {@link #macs}: the {@code k} register on a dense array, else the value rows of an N:M GEMM. */
  private final UInt macsK;
  /** On an N:M array: the running GEMM is in the array's N:M mode (else dense); null on a dense array. */
  final org.llmnpu.hdl.Bool sparseCommand;
  private final GemmEngineConfig gc;
  private final NpuController npu;
  /** A streamed GEMM's W beats run (from its X copy's first cycle until its last W row is written). */
  final org.llmnpu.hdl.Bool inStream;
  /** The streamed weights, on an NPU built for them ({@code NpuConfig.weightStream}); null otherwise. */
  final NpuWeightStream stream;
  /**
   * The X copy's scratchpad walk (M rows of {@code kTiles} lines), its own so that a streamed GEMM's W beats (over
   * the DMA's walks) go beside it.
   */
  final Walker xWalk;
  private final UInt xRows;
  private final UInt xBeats;
  private final UInt xStride;
  /** The walk's step within a row: X row stride for the X copy, a chunk's bytes for a DSP copy ({@link #beginCopy}). */
  private final UInt xStepBytes;
  /**
   * The K tiles of the running GEMM's X copy whose M lines are all in the engine's X buffer (the engine's
   * {@code xKTiles}): counted up at each K tile's last line (an N:M GEMM's: its odd line's, or the copy's last).
   * Null on an NPU without streamed weights.
   */
  private final UInt xKTiles;
  /** The engine starts this cycle ({@link #engineStarts}); built once. */
  private org.llmnpu.hdl.Bool engineStarts;
  /** The kept X buffer ({@code gemm xKeep=1}): its DECODE flags, held shape and dispatch. */
  final NpuKeptX keptX;

  NpuGemm(NpuController npu) {
    this.npu = npu;
    gc = npu.config().gemm();
    m = npu.reg0("gemmM", uint(bitsToHold(gc.maxM())));
    k = npu.reg0("gemmK", uint(bitsToHold(gc.maxK())));
    n = npu.reg0("gemmN", uint(bitsToHold(gc.maxN())));
    sparseCommand = npu.config().weightSparsity().sparse() ? npu.reg0("gemmSparse", org.llmnpu.hdl.Hw.bool()) : null;
    macsK = sparseCommand == null ? k : npu.reg0("gemmMacsK", uint(16));
    xWalk = npu.section2("xWalk", () -> new Walker(npu.walkerHost(), Npu.ADDR, 16, false));
    xRows = npu.reg0("xWalk_rows", uint(16));
    xBeats = npu.reg0("xWalk_beats", uint(16));
    xStride = npu.reg0("xWalk_stride", uint(Npu.ADDR));
    xStepBytes = npu.reg0("xWalk_step", uint(Npu.ADDR));
    xWalk.shape(xStride, xStepBytes, xRows, xBeats);
    // the walk runs only in GEMM_X, DSP_IN and DSP_OUT (xStep, NpuDspCommands.copyStep: one step in each of their
    // cycles; each is entered only from a dispatch, in DECODE or WAIT, which begins the walk): row and beat rest at 0
    // outside them, so the late dispatch writes only the walk's address (the readers: #xInLastKTile)
    xWalk.restAtZero(npu.wireOf("xWalk_runs", npu.inState(Npu.State.GEMM_X).or(npu.inState(Npu.State.DSP_IN))
        .or(npu.inState(Npu.State.DSP_OUT))));
    if (npu.config().weightStream()) {
      // a streamed GEMM's W beats run from the X copy's first cycle until its last W row is written, beside the
      // controller once the engine started (a back-end phase over the DMA's walks)
      org.llmnpu.hdl.Bool streamOn = npu.reg0("wStream_running", org.llmnpu.hdl.Hw.bool());
      inStream = npu.wireOf("inGemmStream", streamOn);
      stream = new NpuWeightStream(npu, inStream, streamOn);
      xKTiles = npu.reg0("gemm_xKTiles", uint(gc.kTileBits() + 1));
    } else {
      xKTiles = null;
      inStream = org.llmnpu.hdl.Hw.boolLit(false);
      stream = null;
    }
    keptX = new NpuKeptX(npu);
  }

  /** The engine and its operand ports, written from the scratchpad walk. */
  void engine(NpuConfig c) {
    Walker sp = npu.dma.sp;
    // the engine's clock runs while the GEMM unit is busy (the GEMM_CYCLES counter's condition): operand copies,
    // start, array run and drain; its registers and buffers change in no other cycle
    org.llmnpu.hdl.Bool busy = npu.state.ge(Npu.st(Npu.State.GEMM_X)).and(npu.state.le(Npu.st(Npu.State.GEMM_START)))
        .or(npu.io(npu.back.idle).not());
    npu.gateEnable("gemmEngine", busy);
    engine = npu.units.engine;
    npu.io(engine.load.m).set(m);
    if (sparseCommand == null) {
      npu.io(engine.load.k).set(k);
    }
    npu.io(engine.load.n).set(n);
    npu.io(engine.start).set(engineStarts());
    int kTileBits = gc.kTileBits();
    int nTileBits = gc.nTileBits();
    int rowBits = gc.rowBits();
    if (stream != null) {
      stream.writes();
      npu.io(((org.llmnpu.rtl.mac.GemmEngine) engine).xKTiles).set(xKTiles);
    }
    if (c.weightSparsity().sparse()) {
      new NpuGemmNm(npu, this, c.weightSparsity()).connect((org.llmnpu.rtl.mac.GemmEngine) engine, stream);
      return;
    }
    npu.io(engine.load.xWrite).set(npu.inState(Npu.State.GEMM_X));
    // the X copy goes K tile by K tile: walk row = K tile, beat = X row
    npu.io(engine.load.xAddress).set(join(xWalk.beat, gc.mBits(), xWalk.row, kTileBits));
    npu.io(engine.load.xData).set(npu.io(npu.spad.readData));
    if (stream != null) {
      stream.connect((org.llmnpu.rtl.mac.GemmEngine) engine, npu.inState(Npu.State.GEMM_W), npu.io(npu.spad.readData));
      return;
    }
    npu.io(engine.load.wWrite).set(npu.inState(Npu.State.GEMM_W));
    int groupShift = Integer.numberOfTrailingZeros(c.weightRowsPerCycle());
    npu.io(engine.load.wAddress).set(join(sp.row, nTileBits, sp.beat, kTileBits + rowBits - groupShift));
    if (c.weightRowsPerCycle() == 1) {
      npu.io(engine.load.wData).set(npu.io(npu.spad.readData));
      return;
    }
    // W rows k + i (i = 1..R-1) of the group: the walk's address plus i·wStride.
    List<HwValue> group = new ArrayList<>();
    group.add(npu.io(npu.spad.readData));
    UInt address = sp.address;
    for (int i = 0; i < c.weightRowsPerCycle() - 1; i++) {
      address = address.add(npu.dec.wStride);
      npu.io(npu.spad.extraReadLines.get(i)).set(address.slice(npu.lineShift + npu.lineAddrBits - 1, npu.lineShift));
      group.add(npu.io(npu.spad.extraReadData.get(i)));
    }
    npu.io(engine.load.wData).set(catLsbFirst(group).asUInt());
  }

  /** Scratchpad lines the W copy reads this cycle: R, or on an N tile's last group the rows of K left. */
  UInt weightLinesRead() {
    int r = npu.config().weightRowsPerCycle();
    int shift = Integer.numberOfTrailingZeros(r);
    UInt lastGroup = npu.dec.k.sub(1).lsbs(shift).resize(shift + 1).add(1).resize(shift + 1);
    return mux(npu.dma.sp.lastInRow(), lastGroup, uintLit(r, shift + 1));
  }

  /**
   * The register of the command's MAC count {@code M·macsK·N} (for the {@code macs} counter), off the decode
   * path: the product is taken from the shape registers set at dispatch in two free-running stages
   * ({@code M·macsK}, then {@code ·N}), valid two cycles after dispatch; the counter adds it in GEMM_START, at
   * least three cycles after dispatch (GEMM_X and GEMM_W take a cycle or more each), or a cycle after it (a streamed
   * GEMM), or two cycles after it (a GEMM that kept X, {@link NpuKeptX}: no GEMM_X, so GEMM_START may be the cycle
   * after dispatch; the shape registers hold until the next GEMM's dispatch, which waits for the engine). No cycle
   * changes.
   */
  UInt macsRegister() {
    macs = product("gemm_macs", macsK);
    return macs;
  }

  /** The command's dense-equivalent M·K·N: {@link #macs} on a dense array, else its own register (as {@link #macs}). */
  UInt denseMacs() {
    return sparseCommand == null ? macs : product("gemm_denseMacs", k);
  }

  /** {@code m·kk·n} two cycles after the shape registers change. */
  private UInt product(String name, UInt kk) {
    UInt mk = npu.reg0(name + "_mk", uint(32));
    mk.set(m.resize(16).mul(kk.resize(16)).resize(32));
    UInt p = npu.reg0(name, uint(48));
    p.set(mk.mul(n.resize(16)).resize(48));
    return p;
  }

  /**
   * Statements of the dispatch of a {@code gemm}: shape, results to the back-end, then the X walk (GEMM_X), or with
   * {@code xKeep=1} the W copy (GEMM_W) or a streamed GEMM's start (GEMM_START).
   */
  void dispatch() {
    List<UInt> w = npu.fetch.words;
    NpuDecode dec = npu.dec;
    NpuDma dma = npu.dma;
    m.set(dec.m.resize(m.width()));
    k.set(dec.k.resize(k.width()));
    n.set(dec.n.resize(n.width()));
    if (sparseCommand != null) {
      sparseCommand.set(dec.sparseGemm);
      macsK.set(dec.macsK.resize(macsK.width()));
    }
    npu.gemmTake.set(org.llmnpu.hdl.Hw.boolLit(true));
    if (stream != null) {
      stream.dispatch();
      // a streamed GEMM's W walks start now: its beats go beside the X copy
      npu.whenDo(dec.wStream, stream::walks);
    }
    // X, over the X copy's own walk: ceil(K/rows) "rows" (lines of K, one line apart) of M lines (X rows, xStride
    // apart), so a streamed GEMM's engine, started with the copy, finds its K tiles in one after the other (an N:M
    // GEMM's K tile is two lines, NpuGemmNm)
    beginCopy(w.get(3), uintLit(npu.line, Npu.ADDR), dec.xStride, dec.kTiles.resize(16), dec.m.resize(16));
    if (xKTiles != null) {
      xKTiles.set(uintLit(0, xKTiles.width()));
    }
    if (!keptX.built()) {
      npu.state.set(Npu.st(Npu.State.GEMM_X));
      return;
    }
    // xKeep=1: no X copy — every K tile's X is in; a streamed GEMM starts now, a scratchpad-W GEMM copies its W
    keptX.dispatch();
    org.llmnpu.hdl.Bool keep = keptX.flag();
    npu.whenOf(keep.not(), () -> npu.state.set(Npu.st(Npu.State.GEMM_X))).otherwise(() -> {
      if (xKTiles != null) {
        xKTiles.set(uintLit((1L << xKTiles.width()) - 1, xKTiles.width()));
      }
      if (stream == null) {
        beginWeightCopy();
      } else {
        npu.whenElse(dec.wStream, () -> npu.state.set(Npu.st(Npu.State.GEMM_START)), this::beginWeightCopy);
      }
    });
  }

  /**
   * The engine starts this cycle: a streamed GEMM's in its X copy's first cycle (the cycle after its dispatch; its
   * loader then waits for each K tile's X, {@link #xKTiles}, and W), any other GEMM's in GEMM_START. The back-end
   * runs from the cycle after ({@code NpuBackEnd.gemmStart}); the counters' {@code arrayCycles} count this cycle and
   * the engine's run.
   */
  org.llmnpu.hdl.Bool engineStarts() {
    if (engineStarts == null) {
      org.llmnpu.hdl.Bool atStart = npu.inState(Npu.State.GEMM_START);
      engineStarts = npu.wireOf("gemm_engineStarts", stream == null ? atStart
          : atStart.and(stream.streaming.not()).or(npu.reg0Next("gemm_xFirst", npu.gemmTake).and(stream.streaming)));
    }
    return engineStarts;
  }

  /**
   * Statements: the operand walk {@link #xWalk} starts at {@code base} over {@code rows} rows ({@code stride} apart)
   * of {@code beats} steps of {@code step} bytes — a GEMM's X copy, or a {@code dspin}/{@code dspout}
   * ({@link NpuDspCommands}), which thus leave the DMA's walks to a streamed GEMM's W beats running beside them.
   */
  void beginCopy(UInt base, UInt stride, UInt step, UInt rows, UInt beats) {
    xWalk.begin(base);
    xStride.set(stride);
    xStepBytes.set(step);
    xRows.set(rows);
    xBeats.set(beats);
  }

  /**
   * The X copy writes its last line of K (of every X row). Meaningful only in GEMM_X: the walk's row and beat are 0
   * outside its runs ({@link Walker#restAtZero}), and every reader of them goes with its state — the engine's X
   * buffer writes ({@code xAddress}, and on an N:M array {@link NpuGemmNm}'s line, halves and K tile, with
   * {@code xWrite} = GEMM_X), the K tiles counted in {@link #xStep}, and a DSP copy's chunk count ({@link
   * NpuDspCommands#count}: taken into the DSP's copy pipeline in DSP_IN, written out in DSP_OUT).
   */
  org.llmnpu.hdl.Bool xInLastKTile() {
    return npu.wireOf("gemm_xLastKTile", xWalk.row.eq(xRows.sub(1)));
  }

  /** Statements of GEMM_X: one X line a cycle (a streamed GEMM's W beats beside it), then the W walk or the start. */
  void xStep() {
    xWalk.advance();
    if (xKTiles != null) {
      // a K tile's last line puts it in (an N:M GEMM's K tile: its odd line of K, or the last line)
      org.llmnpu.hdl.Bool tileEnds = sparseCommand == null ? xWalk.lastInRow()
          : xWalk.lastInRow().and(sparseCommand.not().or(xWalk.row.lsbs(1).eq(1)).or(xWalk.last()));
      npu.whenDo(tileEnds, () -> xKTiles.set(xKTiles.add(1)));
    }
    // a streamed GEMM starts the engine right after X; its W stream goes on beside the next commands
    npu.whenDo(xWalk.last(), stream == null ? this::beginWeightCopy
        : () -> npu.whenElse(stream.streaming, () -> npu.state.set(Npu.st(Npu.State.GEMM_START)),
            this::beginWeightCopy));
  }

  /**
   * Statements: the W copy from the scratchpad starts over the DMA's walk (GEMM_W): {@code nTiles} "rows" (stride one
   * line) of {@code ceil(K / R)} groups of R lines (step {@code R·wStride}).
   */
  private void beginWeightCopy() {
    NpuDma dma = npu.dma;
    NpuDecode dec = npu.dec;
    int shift = Integer.numberOfTrailingZeros(npu.config().weightRowsPerCycle());
    dma.sp.begin(npu.fetch.words.get(4));
    dma.spadStride.set(dma.lineConst);
    dma.spadStep.set(shift == 0 ? dec.wStride : dec.wStride.shiftLeft(shift).resize(Npu.ADDR));
    dma.rows.set(dec.nTiles);
    dma.beats.set(shift == 0 ? dec.wRows : dec.k.resize(17).add((1 << shift) - 1).shiftRight(shift).resize(16));
    npu.state.set(Npu.st(Npu.State.GEMM_W));
  }

  /**
   * Statements of GEMM_START: the engine starts; then the next command (a streamed GEMM's W beats go on beside it,
   * {@link #streamStep}).
   */
  void startStep() {
    npu.fetch.next();
  }

  /**
   * Statements of every cycle, whatever the controller's state: a streamed GEMM's W stream steps while it runs (from
   * its dispatch to its last W row's write; the controller meanwhile runs the commands that need neither the memory
   * port, the DMA's walks nor the GEMM's results, {@link NpuControl}).
   */
  void streamStep() {
    if (stream != null) {
      stream.step();
    }
  }

  /** The W stream runs (its walks and the memory port are taken); false on an NPU without streamed weights. */
  org.llmnpu.hdl.Bool streamBusy() {
    return inStream;
  }

  /** The W stream requests a beat this cycle (never on an NPU without streamed weights). */
  org.llmnpu.hdl.Bool streamRequests(org.llmnpu.hdl.Bool justFired) {
    return stream == null ? org.llmnpu.hdl.Hw.boolLit(false) : stream.requests(justFired);
  }

  /** Statements of GEMM_W: one W row line a cycle, then GEMM_START. */
  void wStep() {
    npu.dma.sp.advance();
    npu.whenDo(npu.dma.sp.last(), () -> npu.state.set(Npu.st(Npu.State.GEMM_START)));
  }

  /** {@code {hi[hiBits-1:0], lo[loBits-1:0]}}, either part possibly empty. */
  static UInt join(UInt hi, int hiBits, UInt lo, int loBits) {
    if (hiBits == 0) {
      return lo.resize(loBits);
    }
    if (loBits == 0) {
      return hi.resize(hiBits);
    }
    return cat(hi.resize(hiBits), lo.resize(loBits)).asUInt();
  }
}
