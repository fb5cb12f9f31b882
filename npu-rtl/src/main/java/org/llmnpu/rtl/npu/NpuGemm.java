package org.llmnpu.rtl.npu;

import static org.llmnpu.hdl.Hw.bitsToHold;
import static org.llmnpu.hdl.Hw.cat;
import static org.llmnpu.hdl.Hw.uint;

import java.util.List;
import org.llmnpu.hdl.UInt;
import org.llmnpu.rtl.mac.GemmBackend;
import org.llmnpu.rtl.mac.GemmEngineConfig;

/**
 * The {@link Npu}'s GEMM controller: the command's shape registers, the GEMM engine
 * ({@link GemmBackend}: the systolic {@code GemmEngine} or the {@link PimGemmBackend}) and the copy
 * of its operands from the scratchpad over the DMA's scratchpad walk — GEMM_X writes X row m's
 * K-tile line t into the engine's X buffer (one line a cycle, {@code M·ceil(K/rows)} cycles),
 * GEMM_W writes W row k's N-tile line into its W buffer ({@code K·ceil(N/rows)} cycles), and
 * GEMM_START starts the engine (one cycle) and hands the run to the {@link NpuBackEnd}. Cycles:
 * {@code org.llmnpu.isa.CycleModel} ({@code gemm}).
 */
final class NpuGemm {
  final UInt m;
  final UInt k;
  final UInt n;
  GemmBackend engine;
  /** The command's M·K·N, counted when it starts. */
  UInt macs;
  private final GemmEngineConfig gc;
  private final Npu npu;

  NpuGemm(Npu npu) {
    this.npu = npu;
    gc = npu.config().gemm();
    m = npu.reg0("gemmM", uint(bitsToHold(gc.maxM())));
    k = npu.reg0("gemmK", uint(bitsToHold(gc.maxK())));
    n = npu.reg0("gemmN", uint(bitsToHold(gc.maxN())));
  }

  /** The engine and its operand ports, written from the scratchpad walk. */
  void engine(NpuConfig c) {
    Walker sp = npu.dma.sp;
    engine = npu.instanceOf("gemm", c.gemmEngine());
    engine.load.m.set(m);
    engine.load.k.set(k);
    engine.load.n.set(n);
    engine.start.set(npu.inState(Npu.State.GEMM_START));
    int kTileBits = gc.kTileBits();
    int nTileBits = gc.nTileBits();
    int rowBits = gc.rowBits();
    engine.load.xWrite.set(npu.inState(Npu.State.GEMM_X));
    engine.load.xAddress.set(join(sp.row, gc.mBits(), sp.beat, kTileBits));
    engine.load.xData.set(npu.spad.readData);
    engine.load.wWrite.set(npu.inState(Npu.State.GEMM_W));
    engine.load.wAddress.set(join(sp.row, nTileBits, sp.beat, kTileBits + rowBits));
    engine.load.wData.set(npu.spad.readData);
  }

  /** The register of the command's MAC count (for the {@code macs} counter). */
  UInt macsRegister() {
    macs = npu.reg0("gemm_macs", uint(48));
    return macs;
  }

  /** Statements of the dispatch of a {@code gemm}: shape, results to the back-end, then the X walk. */
  void dispatch() {
    List<UInt> w = npu.fetch.words;
    NpuDecode dec = npu.dec;
    NpuDma dma = npu.dma;
    m.set(dec.m.resize(m.width()));
    k.set(dec.k.resize(k.width()));
    n.set(dec.n.resize(n.width()));
    macs.set(dec.macs);
    npu.back.take(w.get(5), w.get(7), dec.resultEnd);
    // X: M rows of kTiles lines.
    dma.sp.begin(w.get(3));
    dma.spadStride.set(dec.xStride);
    dma.spadStep.set(dma.lineConst);
    dma.rows.set(dec.m);
    dma.beats.set(dec.kTiles);
    npu.state.set(Npu.st(Npu.State.GEMM_X));
  }

  /** Statements of GEMM_X: one X line a cycle, then the W walk. */
  void xStep() {
    NpuDma dma = npu.dma;
    NpuDecode dec = npu.dec;
    dma.sp.advance();
    npu.whenDo(dma.sp.last(), () -> {
      // W: nTiles "rows" (stride one line) of K lines (step wStride).
      dma.sp.begin(npu.fetch.words.get(4));
      dma.spadStride.set(dma.lineConst);
      dma.spadStep.set(dec.wStride);
      dma.rows.set(dec.nTiles);
      dma.beats.set(dec.k);
      npu.state.set(Npu.st(Npu.State.GEMM_W));
    });
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
