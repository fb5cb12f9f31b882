package org.llmnpu.rtl.npu;

import static org.llmnpu.hdl.Hw.cat;
import static org.llmnpu.hdl.Hw.catLsbFirst;
import static org.llmnpu.hdl.Hw.mux;
import static org.llmnpu.hdl.Hw.uint;
import static org.llmnpu.hdl.Hw.uintLit;

import java.util.ArrayList;
import java.util.List;
import org.llmnpu.hdl.Bits;
import org.llmnpu.hdl.Bool;
import org.llmnpu.hdl.HwValue;
import org.llmnpu.hdl.UInt;
import org.llmnpu.rtl.mac.GemmBackend;
import org.llmnpu.rtl.mac.GemmEngineConfig;

/**
 * The {@link Npu}'s decoupled GEMM back-end: IDLE → RUN when a GEMM starts; at the engine's
 * {@code done}, in the first cycle the controller is not in a LOAD or LOAD4 (they share the
 * scratchpad's write port), RUN → DRAIN, which writes the {@code M·ceil(4N / line)} result lines
 * (line q of a row: the sign-extended INT32 outputs {@code q·line/4 ..} of N tile {@code q/4},
 * little-endian; a row's last line byte-masked), one a cycle, then IDLE. A scoreboard holds the
 * running GEMM's result byte range so a STORE outside it may go while the back-end runs. Cycles:
 * {@code org.llmnpu.isa.CycleModel} (Overlap). A GEMM with the accumulate-into flag drains
 * {@code Y + result} (each 32-bit lane added with wraparound to the old line, read in the same cycle through
 * the scratchpad's asynchronous read port, which the drain then owns): no extra cycles; its scoreboard range
 * is the whole scratchpad, so every STORE waits for the back-end.
 */
final class NpuBackEnd {
  final UInt yAddr;
  final UInt yStride;
  final UInt state;
  final Walker drain;
  final UInt rows;
  final UInt beats;
  final UInt remainder;
  UInt drainData;
  /** The running GEMM adds its results to Y (accumulate-into). */
  final Bool accumulate;
  /** The drain reads the old Y line through the scratchpad's read port this cycle. */
  Bool drainReads;
  Bits drainEndMask;
  Bool inDrain;
  Bool idle;
  Bool drainStarts;
  /** A LOAD may start: no drain starts or runs. */
  Bool loadMayStart;
  private UInt resultLo;
  private UInt resultHi;
  private final Npu npu;

  NpuBackEnd(Npu npu) {
    this.npu = npu;
    yAddr = npu.reg0("gemmY", uint(Npu.ADDR));
    yStride = npu.reg0("gemmYStride", uint(Npu.ADDR));
    state = npu.reg0("back_state", uint(2));
    accumulate = npu.reg0("back_accumulate", org.llmnpu.hdl.Hw.bool());
    drain = npu.section2("drainWalk", () -> new Walker(npu, Npu.ADDR, 16, false));
    rows = npu.reg0("drain_rows", uint(16));
    beats = npu.reg0("drain_beats", uint(16));
    remainder = npu.reg0("drain_remainder", uint(npu.lineShift + 1));
    drain.shape(yStride, uintLit(npu.line, Npu.ADDR), rows, beats);
  }

  /** The engine's result port and the drained line of this cycle. */
  void drainData(GemmBackend engine, int acc) {
    GemmEngineConfig gc = npu.config().gemm();
    int nTileBits = gc.nTileBits();
    // Drain: line q of a result row holds outputs q·rows/4 .. of N tile q/4.
    UInt quarter = npu.wireOf("drain_quarter", drain.beat.lsbs(2));
    UInt drainTile = nTileBits == 0 ? drain.beat : npu.wireOf("drain_tile", drain.beat.slice(nTileBits + 1, 2));
    engine.yAddress.set(NpuGemm.join(drain.row, gc.mBits(), drainTile, nTileBits));
    int per = npu.line / 4;
    List<UInt> quarters = new ArrayList<>();
    for (int q = 0; q < 4; q++) {
      List<HwValue> outs = new ArrayList<>();
      for (int j = 0; j < per; j++) {
        int col = q * per + j;
        outs.add(engine.yData.slice(acc * col + acc - 1, acc * col).asSInt().resize(32));
      }
      quarters.add(npu.wireOf("drain_line" + q, catLsbFirst(outs).asUInt()));
    }
    UInt results = npu.wireOf("drain_results", mux(quarter.eq(0), quarters.get(0), mux(quarter.eq(1), quarters.get(1),
        mux(quarter.eq(2), quarters.get(2), quarters.get(3)))));
    // accumulate-into: old Y (this line, read now) + results, lane by lane, wrapping at 32 bits; a carry-select
    // sum (both upper halves formed while the lower half's carry ripples), since the old line comes from the
    // scratchpad's read in the same cycle
    // (the old line's bank is selected by the drain address itself, not through the read port's address mux)
    UInt oldLine = npu.spad.readDataAt(drain.address.slice(npu.lineShift + npu.lineAddrBits - 1, npu.lineShift),
        "drain_oldLine");
    List<HwValue> sums = new ArrayList<>();
    for (int j = 0; j < per; j++) {
      UInt old = oldLine.slice(32 * j + 31, 32 * j).asUInt();
      UInt add = results.slice(32 * j + 31, 32 * j).asUInt();
      UInt low = old.lsbs(16).addExpand(add.lsbs(16));
      UInt high = old.msbs(16).add(add.msbs(16));
      UInt highCarried = old.msbs(16).add(add.msbs(16).add(1));
      sums.add(cat(mux(low.bit(16), highCarried, high), low.lsbs(16)).asUInt());
    }
    UInt accumulated = npu.wireOf("drain_accumulated", catLsbFirst(sums).asUInt());
    drainData = npu.wireOf("drain_data", mux(accumulate, accumulated, results));
  }

  /** The byte mask of a result row's last line. */
  void drainMask(Bits ones) {
    UInt drainShortBy = npu.wireOf("mask_drainShortBy", uintLit(npu.line, npu.lineShift + 1).sub(remainder));
    drainEndMask = npu.wireOf("mask_drainEnd", mux(remainder.eq(0), ones, ones.shiftRight(drainShortBy)));
  }

  /** The back-end's state flags. */
  void flags() {
    inDrain = npu.wireOf("inDrain", state.eq(Npu.bk(Npu.Back.DRAIN)));
    drainReads = npu.wireOf("drainReads", inDrain.and(accumulate));
    idle = npu.wireOf("back_idle", state.eq(Npu.bk(Npu.Back.IDLE)));
    drainStarts = npu.wireOf("back_drainStarts", state.eq(Npu.bk(Npu.Back.RUN)).and(npu.gemm.engine.done)
        .and(npu.inLoad.not()).and(npu.inLoad4.not()).and(npu.inLoad4End.not()));
  }

  /** A LOAD writes the scratchpad on its responses, as the drain does: they never overlap. */
  void loadRule() {
    loadMayStart = npu.wireOf("loadMayStart", inDrain.or(drainStarts).not());
  }

  /** The scoreboard: whether a STORE reading from {@code spad} (its word 3) touches none of the running GEMM's results. */
  Bool scoreboard(UInt spad) {
    resultLo = npu.reg0("back_resultStart", uint(52));
    resultHi = npu.reg0("back_resultEnd", uint(52));
    return npu.wireOf("storeClear", spad.resize(52).ge(resultHi).or(npu.dec.dmaSpadEnd.le(resultLo)));
  }

  /** Statements of a GEMM's dispatch: where its results go. */
  void take(UInt y, UInt stride, UInt resultEnd, Bool accumulates) {
    yAddr.set(y);
    yStride.set(stride);
    accumulate.set(accumulates);
    resultLo.set(mux(accumulates, uintLit(0, 52), y.resize(52)));
    resultHi.set(mux(accumulates, uintLit((1L << 52) - 1, 52), resultEnd));
  }

  /** The back-end's state machine. */
  void stateMachine() {
    int lineShift = npu.lineShift;
    NpuGemm gemm = npu.gemm;
    npu.switchOf(state, s -> s
        .is(Npu.Back.IDLE.ordinal(), () -> npu.whenDo(npu.inState(Npu.State.GEMM_START),
            () -> state.set(Npu.bk(Npu.Back.RUN))))
        .is(Npu.Back.RUN.ordinal(), () -> npu.whenDo(drainStarts, () -> {
          drain.begin(yAddr);
          rows.set(gemm.m.resize(16));
          beats.set(npu.dec.drainLines(gemm.n.resize(16)));
          remainder.set(gemm.n.lsbs(lineShift).shiftLeft(2).lsbs(lineShift).resize(lineShift + 1));
          state.set(Npu.bk(Npu.Back.DRAIN));
        }))
        .is(Npu.Back.DRAIN.ordinal(), () -> {
          drain.advance();
          npu.whenDo(drain.last(), () -> state.set(Npu.bk(Npu.Back.IDLE)));
        })
        .otherwise(() -> { }));
  }
}
