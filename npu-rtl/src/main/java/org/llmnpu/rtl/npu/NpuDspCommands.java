package org.llmnpu.rtl.npu;

import static org.llmnpu.hdl.Hw.bitsToHold;
import static org.llmnpu.hdl.Hw.cat;
import static org.llmnpu.hdl.Hw.mux;
import static org.llmnpu.hdl.Hw.uint;
import static org.llmnpu.hdl.Hw.uintLit;

import java.util.List;
import org.llmnpu.hdl.Bool;
import org.llmnpu.hdl.UInt;
import org.llmnpu.isa.CycleFormulas;
import org.llmnpu.isa.ErrorCause;
import org.llmnpu.isa.MachineParams;

/**
 * The {@link Npu}'s Vector DSP commands around the {@link NpuDsp} datapath: {@code dsprun}'s run
 * (started with the last program word, stopped after {@code dspMaxRunCycles} cycles: WATCHDOG)
 * and the element copies {@code dspin} / {@code dspout}: a chunk of up to {@code E = min(line / elementBytes,
 * lanes)} elements a cycle over the GEMM's operand walk ({@link NpuGemm#xWalk}, step {@code E·elementBytes} bytes, {@code ceil(rowElems / E)}
 * steps a row, the row's last chunk the rest), the buffer element counting up by the chunk's elements; with a DSP row
 * stride k (word 6, {@code Command.DspIn#dstStride}) the next row starts at lane 0 of the row k rows on instead
 * ({@link #rowStart} + {@code k·lanes}), in the same cycle as the flat count. Cycles:
 * {@code org.llmnpu.isa.CycleModel} ({@code dsprun}, {@code dspin}, {@code dspout}).
 */
final class NpuDspCommands {
  final NpuDsp unit;
  final UInt format;
  final UInt shift;
  final UInt element;
  /**
   * A strided copy's first buffer element of the current row and its row step {@code k·lanes} (in the buffer's element
   * bits: every element a copy touches is below the buffer's size), and whether the copy is strided (k ≠ 0).
   */
  final UInt rowStart;
  private final UInt rowStep;
  private final Bool strided;
  /** Elements of a full chunk and of a row's last chunk (set at dispatch). */
  final UInt chunkElems;
  final UInt lastElems;
  /** Elements of this cycle's chunk. */
  final UInt count;
  /** dsprun's word count masks the words of the last beat (lines of 16 bytes or more hold several words). */
  final UInt words;
  final Bool runExpired;
  final Bool halted;
  /** The program stream is a {@code dspld}'s (no run after it). */
  final Bool loadOnly;
  /** The program memory row the stream's first beat writes ({@code dspld}'s {@code at / (line / 8)}; 0 for dsprun). */
  final UInt progBase;
  /** A resident {@code dsprun} dispatches this cycle: the DSP starts at its entry. */
  final Bool residentStart;
  /** The entry of a loading {@code dsprun} (the DSP starts with its last beat). */
  private final UInt entry;
  /** A loading {@code dsprun}'s run parameters (words 5·4 and 6), kept for the start with its last beat. */
  private final UInt runBases;
  private final UInt runLength;
  private final NpuController npu;

  NpuDspCommands(NpuController npu, NpuConfig c) {
    this.npu = npu;
    MachineParams p = npu.p;
    // the copies walk the scratchpad over the GEMM's operand walk (the DMA's walks may carry a W stream)
    Walker sp = npu.gemm.xWalk;
    // program loads (dsprun, dspld) stream over the DMA's scratchpad walk (they wait for a W stream)
    Walker prog = npu.dma.sp;
    format = npu.reg0("dsp_format", uint(2));
    shift = npu.reg0("dsp_shift", uint(6));
    element = npu.reg0("dsp_bufferElement", uint(32));
    int elementBits = bitsToHold(p.dsp().elements() - 1);
    rowStart = npu.reg0("dsp_rowStart", uint(elementBits));
    rowStep = npu.reg0("dsp_rowStep", uint(elementBits));
    strided = npu.reg0("dsp_strided", org.llmnpu.hdl.Hw.bool());
    int countBits = bitsToHold(NpuDsp.slots(p));
    chunkElems = npu.reg0("dsp_chunkElems", uint(countBits));
    lastElems = npu.reg0("dsp_lastElems", uint(countBits));
    count = npu.wireOf("dsp_count", mux(sp.lastInRow(), lastElems, chunkElems));
    words = npu.line >= 16 ? npu.reg0("dsp_words", uint(bitsToHold(p.dsp().programDepth()))) : null;
    int pcBits = Integer.numberOfTrailingZeros(p.dsp().programDepth());
    int wordShift = Integer.numberOfTrailingZeros(NpuDsp.programWords(npu.line));
    loadOnly = npu.reg0("dsp_loadOnly", org.llmnpu.hdl.Hw.bool());
    progBase = npu.reg0("dsp_progBase", uint(Math.max(1, pcBits - wordShift)));
    entry = npu.reg0("dsp_entry", uint(pcBits));
    int rowBits = Integer.numberOfTrailingZeros(p.dsp().rows());
    runBases = npu.reg0("dsp_runBases", uint(4 * rowBits));
    runLength = npu.reg0("dsp_runLength", uint(32));
    NpuDecode dec = npu.dec;
    residentStart = npu.wireOf("dsp_residentStart", npu.inState(Npu.State.DECODE).and(dec.residentRun)
        .and(dec.badShape.or(dec.badSpad).or(dec.badDsp).or(dec.badExt).not()));
    UInt entryNow = npu.fetch.words.get(3).lsbs(pcBits);
    unit = npu.section2("dspPath", () -> new NpuDsp(npu, p, c.dsp(), sp.address, npu.io(npu.spad.readData), format,
        shift, element, count, npu.inDspIn, npu.mem_resp_data, npu.inDspTab.and(npu.resp),
        npu.inDspProg.and(npu.resp), prog.beat, words, progBase, residentStart));
    long maxRun = p.dsp().maxRunCycles();
    UInt runCount = npu.reg0("dsp_runCycles", uint(bitsToHold(maxRun)));
    runExpired = npu.wireOf("dsp_runExpired", runCount.eq(maxRun));
    halted = npu.wireOf("dsp_halted", npu.io(unit.dsp.done));
    npu.io(unit.dsp.start).set(npu.inDspProg.and(npu.resp).and(prog.last()).and(loadOnly.not()).or(residentStart));
    npu.io(unit.dsp.entry).set(mux(residentStart, entryNow, entry));
    // run parameters (DspRunParameters): a resident run's from its command words now, a loading run's as kept
    List<UInt> w = npu.fetch.words;
    npu.io(unit.dsp.runBases).set(mux(residentStart, rowBases(w), runBases));
    npu.io(unit.dsp.runLength).set(mux(residentStart, w.get(6), runLength));
    npu.io(unit.dsp.stop).set(npu.inDspRun.and(runExpired).and(halted.not()));
    npu.whenElse(npu.inDspRun, () -> runCount.set(runCount.add(1)), () -> runCount.set(uintLit(0, runCount.width())));
  }

  /**
   * Statements of the dispatch of a {@code dsprun} or {@code dspld} (besides its program stream): keep the word count,
   * the entry (dsprun) or the first program row (dspld: {@code at / (line / 8)}) and whether a run follows.
   */
  void takeWords() {
    List<UInt> w = npu.fetch.words;
    if (words != null) {
      words.set(w.get(2).resize(words.width()));
    }
    Bool ld = npu.dec.isDspLd;
    loadOnly.set(ld);
    int pcBits = Integer.numberOfTrailingZeros(npu.p.dsp().programDepth());
    int wordShift = Integer.numberOfTrailingZeros(NpuDsp.programWords(npu.line));
    progBase.set(mux(ld, w.get(3).lsbs(pcBits).shiftRight(wordShift).resize(progBase.width()),
        uintLit(0, progBase.width())));
    entry.set(mux(ld, uintLit(0, entry.width()), w.get(3).lsbs(pcBits)));
    runBases.set(rowBases(w));
    runLength.set(w.get(6));
  }

  /** The DSP's {@code run_bases} of command words {@code w}: the low log2(rows) bits of bases 3, 2, 1, 0 (words 5, 4). */
  private UInt rowBases(List<UInt> w) {
    int rowBits = runBases.width() / 4;
    return cat(w.get(5).slice(16 + rowBits - 1, 16), w.get(5).lsbs(rowBits), w.get(4).slice(16 + rowBits - 1, 16),
        w.get(4).lsbs(rowBits)).asUInt();
  }

  /** Statements of the dispatch of a resident {@code dsprun}: the DSP starts this cycle ({@link #residentStart}). */
  void dispatchResident() {
    npu.state.set(Npu.st(Npu.State.DSP_RUN));
  }

  /** Statements after a program stream's last beat: a dsprun runs (the DSP started with that beat), a dspld ends. */
  void programLoaded() {
    npu.whenOf(loadOnly, npu.fetch::next).otherwise(() -> npu.state.set(Npu.st(Npu.State.DSP_RUN)));
  }

  /** Statements of the dispatch of a {@code dspin} or {@code dspout}. */
  void dispatchCopy() {
    List<UInt> w = npu.fetch.words;
    NpuDecode dec = npu.dec;
    // per format (FP16, INT8, INT32): E elements a chunk, the row's chunks and last chunk's elements
    MachineParams p = npu.p;
    UInt f = w.get(5).lsbs(2);
    UInt rowElems = dec.copyElems;
    int[] bytes = {2, 1, 4};
    UInt step = null;
    UInt chunks = null;
    UInt last = null;
    UInt full = null;
    for (int k = 0; k < 3; k++) {
      int e = (int) CycleFormulas.dspElementsPerCycle(p, bytes[k]);
      int eShift = Integer.numberOfTrailingZeros(e);
      UInt s = uintLit((long) e * bytes[k], Npu.ADDR);
      UInt c = rowElems.resize(17).add(e - 1).shiftRight(eShift).resize(16);
      UInt l = e == 1 ? uintLit(1, chunkElems.width())
          : rowElems.sub(1).lsbs(eShift).resize(chunkElems.width()).add(1);
      UInt n = uintLit(e, chunkElems.width());
      Bool is = f.eq(k);
      step = step == null ? s : mux(is, s, step);
      chunks = chunks == null ? c : mux(is, c, chunks);
      last = last == null ? l : mux(is, l, last);
      full = full == null ? n : mux(is, n, full);
    }
    npu.gemm.beginCopy(w.get(1), w.get(2), step, dec.copyRows.resize(16), chunks);
    chunkElems.set(full);
    lastElems.set(last);
    format.set(f);
    shift.set(dec.shift);
    element.set(dec.bufferStart);
    int laneShift = Integer.numberOfTrailingZeros(p.dsp().lanes());
    UInt stride = w.get(6).lsbs(16);
    rowStart.set(dec.bufferStart.lsbs(rowStart.width()));
    rowStep.set(stride.resize(16 + laneShift).shiftLeft(laneShift).resize(16 + laneShift).lsbs(rowStep.width()));
    strided.set(stride.ne(0));
    npu.state.set(mux(dec.isDspIn, Npu.st(Npu.State.DSP_IN), Npu.st(Npu.State.DSP_OUT)));
  }

  /** Statements of DSP_RUN. */
  void runStep() {
    npu.whenOf(halted, npu.fetch::next).elseWhen(runExpired, () -> npu.fail(ErrorCause.WATCHDOG));
  }

  /**
   * Statements of DSP_IN ({@code in}) and DSP_OUT. After a dspin's last element one cycle in DSP_DRAIN, then FETCH:
   * the next command starts four cycles after the last element, when its buffer write is done; after a dspout,
   * FETCH.
   */
  void copyStep(boolean in) {
    npu.gemm.xWalk.advance();
    UInt nextRow = rowStart.add(rowStep);
    npu.whenElse(strided.and(npu.gemm.xWalk.lastInRow()), () -> {
      rowStart.set(nextRow);
      element.set(nextRow.resize(32));
    }, () -> element.set(element.add(count.resize(32))));
    npu.whenDo(npu.gemm.xWalk.last(), in ? () -> npu.state.set(Npu.st(Npu.State.DSP_DRAIN)) : npu.fetch::nextViaFetch);
  }
}
