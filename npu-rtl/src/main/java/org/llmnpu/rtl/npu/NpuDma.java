package org.llmnpu.rtl.npu;

import static org.llmnpu.hdl.Hw.bool;
import static org.llmnpu.hdl.Hw.boolLit;
import static org.llmnpu.hdl.Hw.mux;
import static org.llmnpu.hdl.Hw.uintLit;

import java.util.List;
import org.llmnpu.hdl.Bits;
import org.llmnpu.hdl.Bool;
import org.llmnpu.hdl.UInt;
import org.llmnpu.isa.Opcode;

/**
 * The {@link NpuController}'s end of the DMA ({@link NpuDmaUnit}, instance {@code dma}): its two walks as the
 * controller sees them — {@link #ext} over the memory, {@link #sp} over the scratchpad (also the operand walk of the
 * GEMM and DSP copies), whose begin and advance are pulses to the unit — the shape the commands' dispatches set
 * (next values of the unit's shape registers, each held by default), and the steps of the controller's DMA states.
 * {@code load}: one read request per beat as the memory accepts it, each response written to the scratchpad in the
 * cycle it arrives (byte mask on a row's last beat, {@link #beatMask}); {@code store}: one scratchpad read and one
 * masked write request per beat; {@code load4}: the reads of {@link NpuLoad4}, at most one every other cycle;
 * {@code loadmx}: a {@code load} whose responses pass the element decoders of {@link NpuLoadMx}. The streams of
 * {@code dsptab}, {@code dsprun}'s program and {@code snapshot} are one-row walks of line beats. The memory port
 * (in the unit) serves the running stream first, else the fetch ({@link NpuFetchUnit}). Cycles:
 * {@code org.llmnpu.isa.CycleModel} ({@code load}, {@code store}, {@code load4}).
 */
final class NpuDma {
  final Walker ext;
  final Walker sp;
  final Bool isLoad;
  final UInt lineConst;
  /**
   * Walk shape, as next values (set by a dispatch; else the current value): rows, beats per row,
   * {@code rowBytes mod line}, strides and the scratchpad step. Read the current values with {@link #rowsNow},
   * {@link #remainderNow}.
   */
  final UInt rows;
  final UInt beats;
  final UInt remainder;
  final UInt extStride;
  final UInt spadStride;
  final UInt spadStep;
  /** The memory walk's step within a row: a line, or a streamed GEMM's {@code wStride} ({@link NpuGemm}). */
  final UInt extStep;
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
  private final NpuController npu;
  private final NpuDmaUnit unit;

  NpuDma(NpuController npu) {
    this.npu = npu;
    unit = npu.units.dma;
    ext = new Walker(remote(unit.extBegin, unit.extBase, unit.extAdvance, null, unit.extLast), null, null, null);
    // the walk's byte address: its line, the bits below it 0 (every walk over the DMA's is line-aligned)
    UInt spadAddress = NpuGemm.join(npu.io(unit.spadLine), npu.lineAddrBits, uintLit(0, Math.max(1, npu.lineShift)),
        npu.lineShift);
    sp = new Walker(remote(unit.spadBegin, unit.spadBase, unit.spadAdvance, unit.spadLastInRow, unit.spadLast),
        spadAddress, npu.io(unit.spadRow), npu.io(unit.spadBeat));
    isLoad = npu.wireOf("isLoad", npu.fetch.opcode.eq(Opcode.LOAD.code()).or(npu.fetch.opcode.eq(Opcode.LOADMX.code())));
    lineConst = uintLit(npu.line, Npu.ADDR);
    rows = held(unit.rowsNext, unit.rows);
    beats = held(unit.beatsNext, unit.beats);
    remainder = held(unit.remainderNext, unit.remainder);
    extStride = held(unit.extStrideNext, unit.extStride);
    spadStride = held(unit.spadStrideNext, unit.spadStride);
    spadStep = held(unit.spadStepNext, unit.spadStep);
    extStep = held(unit.extStepNext, unit.extStep);
    dispatch = npu.p.mxLoad() ? npu.wireOf("dma_dispatch", bool()) : null;
    if (dispatch != null) {
      dispatch.set(boolLit(false));
    }
  }

  /** The controller's port driving the unit's shape input {@code next}: by default the current value. */
  private UInt held(UInt next, UInt current) {
    UInt mine = npu.io(next);
    mine.set(npu.io(current));
    return mine;
  }

  /** A walk of the unit seen through its ports: begin and advance as pulses (a begin wins over an advance). */
  private Walker.Remote remote(Bool begin, UInt base, Bool advance, Bool lastInRow, Bool last) {
    Bool beginPulse = npu.io(begin);
    UInt basePort = npu.io(base);
    Bool advancePulse = npu.io(advance);
    beginPulse.set(boolLit(false));
    basePort.set(uintLit(0, Npu.ADDR));
    advancePulse.set(boolLit(false));
    return new Walker.Remote() {
      @Override
      public void begin(UInt at) {
        beginPulse.set(boolLit(true));
        basePort.set(at);
      }

      @Override
      public void advance() {
        advancePulse.set(boolLit(true));
      }

      @Override
      public Bool lastInRow() {
        if (lastInRow == null) {
          throw new IllegalStateException("the DMA's memory walk does not expose lastInRow");
        }
        return npu.io(lastInRow);
      }

      @Override
      public Bool last() {
        return npu.io(last);
      }
    };
  }

  /** The walks' current row count. */
  UInt rowsNow() {
    return npu.io(unit.rows);
  }

  /** The current {@code rowBytes mod line} (0: whole lines). */
  UInt remainderNow() {
    return npu.io(unit.remainder);
  }

  /** The byte mask of the scratchpad walk's beat (a row's last beat: its remainder). */
  Bits beatMask() {
    return npu.io(unit.beatMask);
  }

  /** The {@code load4} unpacker (two INT4 per source byte). */
  void load4() {
    justFired = npu.io(unit.justFired);
    load4Beat = npu.wireOf("load4Beat", npu.inLoad4.and(npu.resp));
    load4 = npu.units.load4;
    npu.io(load4.beat).set(load4Beat);
    npu.io(load4.data).set(npu.mem_resp_data);
    npu.io(load4.rowEnd).set(sp.lastInRow());
    npu.io(load4.remainder).set(remainderNow());
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
   * The DMA unit's memory phase: the running stream's beat requests (read or write) and the phase that keeps the
   * port from the fetcher (a stream state with beats left to request, pacing gaps included); the write data.
   */
  void memoryPort(NpuSnapshot snapshot) {
    Bool streams = npu.wireOf("dma_streams", npu.inLoad.or(npu.inStore).or(npu.inDspTab).or(npu.inDspProg)
        .or(npu.inSnap).or(npu.inLoad4.and(justFired.not())).or(npu.inPpmLoad.and(npu.ppm.unit.mayRequest))
        .or(npu.gemm.streamRequests(justFired)));
    npu.io(unit.requests).set(streams);
    npu.io(unit.wants).set(npu.inLoad.or(npu.inStore).or(npu.inDspTab).or(npu.inDspProg)
        .or(npu.inSnap).or(npu.inLoad4).or(npu.inPpmLoad).or(npu.gemm.inStream));
    npu.io(unit.write).set(npu.inStore.or(npu.inSnap));
    npu.fire.set(npu.io(unit.fire));
    npu.io(snapshot.beat).set(sp.beat);
    npu.io(unit.writeData).set(mux(npu.inSnap, npu.io(snapshot.line), npu.io(npu.spad.readData)));
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
