package org.llmnpu.rtl.npu;

import static org.llmnpu.hdl.Hw.bool;
import static org.llmnpu.hdl.Hw.boolLit;
import static org.llmnpu.hdl.Hw.mux;
import static org.llmnpu.hdl.Hw.uint;
import static org.llmnpu.hdl.Hw.uintLit;

import java.util.List;
import org.llmnpu.hdl.Bits;
import org.llmnpu.hdl.Bool;
import org.llmnpu.hdl.UInt;
import org.llmnpu.isa.Opcode;

/**
 * The {@link Npu}'s DMA: two address walks of the same shape — {@link #ext} over the memory,
 * {@link #sp} over the scratchpad (also the operand walk of the GEMM and DSP copies) — and the
 * memory port. {@code load}: one read request per beat as the memory accepts it, each response
 * written to the scratchpad in the cycle it arrives (byte mask on a row's last beat, {@link
 * #rowEndMask}); {@code store}: one scratchpad read and one masked write request per beat;
 * {@code load4}: the reads of {@link NpuLoad4}, at most one every other cycle; {@code loadmx}: a
 * {@code load} whose responses pass the element decoders of {@link NpuLoadMx}. The streams of
 * {@code dsptab}, {@code dsprun}'s program and {@code snapshot} are one-row walks of line beats.
 * The memory port serves the running stream first, else the fetch ({@link NpuFetch}). Cycles:
 * {@code org.llmnpu.isa.CycleModel} ({@code load}, {@code store}, {@code load4}).
 */
final class NpuDma {
  final Walker ext;
  final Walker sp;
  final Bool isLoad;
  final UInt lineConst;
  /** Walk shape: rows, beats per row, {@code rowBytes mod line}, strides and the scratchpad step. */
  final UInt rows;
  final UInt beats;
  final UInt remainder;
  final UInt extStride;
  final UInt spadStride;
  final UInt spadStep;
  /** The memory walk's step within a row: a line, or a streamed GEMM's {@code wStride} ({@link NpuGemm}). */
  final UInt extStep;
  /** All bytes of a line; the mask of a row's last beat. */
  Bits ones;
  Bits rowEndMask;
  NpuLoad4 load4;
  /** The {@code loadmx} decoders, or null on an NPU without MX decoding. */
  NpuLoadMx loadMx;
  /** A load response is written this cycle. */
  Bool loadWrite;
  /** A {@code load4} beat arrives. */
  Bool load4Beat;
  /** A {@code load}, {@code store}, {@code load4} or {@code loadmx} is dispatched this cycle (null without MX decoding). */
  final Bool dispatch;
  private Bool justFired;
  /** The controller wants the memory port this cycle (the fetch waits). */
  Bool ctrlWants;
  private final NpuController npu;

  NpuDma(NpuController npu) {
    this.npu = npu;
    int countBits = 16;
    ext = npu.section2("ext", () -> new Walker(npu.walkerHost(), Npu.ADDR, countBits));
    sp = npu.section2("spadWalk", () -> new Walker(npu.walkerHost(), Npu.ADDR, countBits, false));
    isLoad = npu.wireOf("isLoad", npu.fetch.opcode.eq(Opcode.LOAD.code()).or(npu.fetch.opcode.eq(Opcode.LOADMX.code())));
    lineConst = uintLit(npu.line, Npu.ADDR);
    rows = npu.reg0("dmaRows", uint(16));
    beats = npu.reg0("dmaBeats", uint(16));
    remainder = npu.reg0("dmaRemainder", uint(npu.lineShift + 1));
    extStride = npu.reg0("extStride", uint(Npu.ADDR));
    spadStride = npu.reg0("spadStride", uint(Npu.ADDR));
    spadStep = npu.reg0("spadStep", uint(Npu.ADDR));
    extStep = npu.reg0("extStep", uint(Npu.ADDR));
    dispatch = npu.p.mxLoad() ? npu.wireOf("dma_dispatch", bool()) : null;
    if (dispatch != null) {
      dispatch.set(boolLit(false));
    }
    ext.shape(extStride, extStep, rows, beats);
    sp.shape(spadStride, spadStep, rows, beats);
  }

  /** The byte masks of a line. */
  void masks() {
    int line = npu.line;
    ones = NpuScratchpad.allBytes(line);
    UInt shortBy = npu.wireOf("mask_shortBy", uintLit(line, npu.lineShift + 1).sub(remainder));
    rowEndMask = npu.wireOf("mask_rowEnd", mux(remainder.eq(0), ones, ones.shiftRight(shortBy)));
  }

  /** The {@code load4} unpacker (two INT4 per source byte). */
  void load4() {
    justFired = npu.reg0("load4_justFired", bool());
    justFired.set(npu.fire);
    load4Beat = npu.wireOf("load4Beat", npu.inLoad4.and(npu.resp));
    load4 = npu.units.load4;
    npu.io(load4.beat).set(load4Beat);
    npu.io(load4.data).set(npu.mem_resp_data);
    npu.io(load4.rowEnd).set(sp.lastInRow());
    npu.io(load4.remainder).set(remainder);
    npu.io(load4.line).set(sp.address.slice(npu.lineShift + npu.lineAddrBits - 1, npu.lineShift));
  }

  /** The {@code loadmx} decoders (only on an NPU with MX decoding on the load path). */
  void loadMx() {
    loadMx = npu.units.loadMx;
    npu.io(loadMx.dispatch).set(dispatch);
    npu.io(loadMx.isLoadMx).set(npu.dec.isLoadMx);
    npu.io(loadMx.formatField).set(npu.fetch.words.get(7).lsbs(2));
    npu.io(loadMx.data).set(npu.mem_resp_data);
  }

  /** What a LOAD response writes: the read data, or its MX codes in a {@code loadmx}. */
  UInt loadData() {
    return loadMx == null ? npu.mem_resp_data : npu.io(loadMx.loadData);
  }

  /**
   * The memory port: the running stream's beats (read or write); the fetch's when the controller does not want
   * the port ({@link #ctrlWants}: a stream state with beats left to request, pacing gaps included).
   */
  void memoryPort(NpuSnapshot snapshot) {
    Bool streams = npu.wireOf("dma_streams", npu.inLoad.or(npu.inStore).or(npu.inDspTab).or(npu.inDspProg)
        .or(npu.inSnap).or(npu.inLoad4.and(justFired.not())).or(npu.inPpmLoad.and(npu.ppm.unit.mayRequest))
        .or(npu.gemm.streamRequests(justFired)));
    ctrlWants = npu.wireOf("ctrl_wantsMemory", npu.inLoad.or(npu.inStore).or(npu.inDspTab).or(npu.inDspProg)
        .or(npu.inSnap).or(npu.inLoad4).or(npu.inPpmLoad).or(npu.gemm.inStream).and(ext.finished.not()));
    Bool ctrlValid = npu.wireOf("ctrl_requests", streams.and(ext.finished.not()));
    npu.fire.set(ctrlValid.and(npu.mem_req_ready));
    npu.mem_req_valid.set(ctrlValid.or(npu.fetch.valid));
    npu.mem_req_write.set(ctrlValid.and(npu.inStore.or(npu.inSnap)));
    npu.mem_req_addr.set(mux(npu.fetch.valid, npu.fetch.requestAddress(), ext.address));
    npu.io(snapshot.beat).set(sp.beat);
    npu.mem_req_wdata.set(mux(npu.inSnap, npu.io(snapshot.line), npu.io(npu.spad.readData)));
    npu.mem_req_wstrb.set(mux(sp.lastInRow(), rowEndMask, ones));
  }

  /** Statements of the dispatch of a {@code load}, {@code store} or {@code load4}. */
  void dispatchTransfer() {
    List<UInt> w = npu.fetch.words;
    int line = npu.line;
    ext.begin(w.get(1));
    sp.begin(w.get(3));
    extStride.set(w.get(2));
    extStep.set(lineConst);
    spadStride.set(w.get(4));
    spadStep.set(mux(npu.dec.isLoad4, uintLit(2 * line, Npu.ADDR), lineConst));
    rows.set(w.get(6).lsbs(16));
    if (dispatch != null) {
      dispatch.set(boolLit(true));
    }
    beats.set(npu.dec.dmaBeats);
    remainder.set(w.get(5).lsbs(npu.lineShift).resize(npu.lineShift + 1));
    npu.state.set(mux(isLoad, Npu.st(Npu.State.LOAD), mux(npu.dec.isLoad4, Npu.st(Npu.State.LOAD4),
        Npu.st(Npu.State.STORE))));
  }

  /** Statements of the dispatch of a command that streams {@code beatCount} lines from or to word 1's address. */
  void stream(UInt beatCount, Npu.State next) {
    List<UInt> w = npu.fetch.words;
    ext.begin(w.get(1));
    sp.begin(w.get(1).sub(w.get(1)));
    extStride.set(lineConst);
    extStep.set(lineConst);
    spadStride.set(lineConst);
    spadStep.set(lineConst);
    rows.set(uintLit(1, 16));
    beats.set(beatCount);
    npu.state.set(Npu.st(next));
  }

  /** Statements of LOAD. */
  void loadStep() {
    npu.whenDo(npu.fire, ext::advance);
    npu.whenDo(loadWrite, () -> {
      sp.advance();
      npu.whenDo(sp.last(), npu.fetch::next);
    });
  }

  /** Statements of STORE and SNAPSHOT: a write beat per accepted request. */
  void storeStep() {
    npu.whenDo(npu.fire, () -> {
      ext.advance();
      sp.advance();
      npu.whenDo(ext.last(), npu.fetch::next);
    });
  }

  /** Statements of LOAD4. */
  void load4Step() {
    npu.whenDo(npu.fire, ext::advance);
    npu.whenDo(load4Beat, () -> {
      sp.advance();
      npu.whenDo(sp.last(), () -> npu.state.set(Npu.st(Npu.State.LOAD4_END)));
    });
  }

  /** Statements of a read stream (DSP_TAB, DSP_PROG): {@code atEnd} after the last response. */
  void responseStep(Runnable atEnd) {
    npu.whenDo(npu.fire, ext::advance);
    npu.whenDo(npu.resp, () -> {
      sp.advance();
      npu.whenDo(sp.last(), atEnd);
    });
  }
}
