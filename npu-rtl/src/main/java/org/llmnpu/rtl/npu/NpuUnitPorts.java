package org.llmnpu.rtl.npu;

import static org.llmnpu.hdl.Hw.mux;

import org.llmnpu.hdl.Bool;
import org.llmnpu.hdl.UInt;

/**
 * The {@link NpuController}'s connections to the scratchpad's write requests, the GEMM back-end's inputs and the
 * counters' events: controller signals onto its unit-facing ports ({@link NpuController#io}), built into the
 * controller in the order of its constructor.
 */
final class NpuUnitPorts {
  private NpuUnitPorts() {
  }

  /** The scratchpad's requests: a drain line, a load4 line, a dspout element, a PPM row or a load beat. */
  static void scratchpadWrites(NpuController npu) {
    Walker sp = npu.dma.sp;
    UInt spLine = sp.address.slice(npu.lineShift + npu.lineAddrBits - 1, npu.lineShift);
    npu.dma.loadWrite = npu.wireOf("loadWrite", npu.inLoad.and(npu.resp));
    // the X copy and the DSP copies go over their own walk (a streamed GEMM's W beats use the DMA's beside them)
    Walker xw = npu.gemm.xWalk;
    UInt xLine = xw.address.slice(npu.lineShift + npu.lineAddrBits - 1, npu.lineShift);
    npu.io(npu.spad.walkLine).set(mux(npu.inState(Npu.State.GEMM_X).or(npu.inDspIn).or(npu.inDspOut), xLine,
        spLine));
    npu.io(npu.spad.dspOut.valid).set(npu.inDspOut);
    npu.io(npu.spad.dspOut.data).set(npu.dsp.unit.outData);
    npu.io(npu.spad.dspOut.mask).set(npu.dsp.unit.outMask);
    npu.io(npu.spad.ppm.valid).set(npu.ppm.write);
    npu.io(npu.spad.ppm.line).set(npu.ppm.writeLine);
    npu.io(npu.spad.ppm.data).set(npu.ppm.unit.outData);
    npu.io(npu.spad.ppm.mask).set(npu.ppm.writeMask);
    npu.io(npu.spad.load.valid).set(npu.dma.loadWrite);
    npu.io(npu.spad.load.data).set(npu.dma.loadData());
    npu.io(npu.spad.load.mask).set(npu.dma.beatMask());
  }

  /** The GEMM back-end's inputs: the dispatch, the engine's results, the scratchpad's old line, a STORE's range. */
  static void backEnd(NpuController npu) {
    npu.io(npu.back.gemmStart).set(npu.gemm.engineStarts());
    npu.io(npu.back.take).set(npu.gemmTake);
    npu.io(npu.back.resultAddress).set(npu.fetch.words.get(5));
    npu.io(npu.back.resultStride).set(npu.fetch.words.get(7));
    npu.io(npu.back.resultEnd).set(npu.dec.resultEnd);
    npu.io(npu.back.accumulateIn).set(npu.dec.accumulate);
    npu.io(npu.back.ppmIn).set(npu.wireOf("decode_gemmPpm", npu.fetch.words.get(2).slice(21, 21).eq(1)));
    if (npu.back.gatedIn != null) {
      npu.io(npu.back.gatedIn).set(npu.wireOf("decode_gemmGate", npu.fetch.words.get(2).slice(24, 24).eq(1)));
    }
    npu.io(npu.back.ppmBankIn).set(npu.wireOf("decode_gemmPpmBank", npu.fetch.words.get(2).slice(23, 23).eq(1)));
    npu.io(npu.back.m).set(npu.gemm.m);
    npu.io(npu.back.n).set(npu.gemm.n);
    // the scratchpad's one write port: a LOAD's or DSPOUT's writes hold the drain's start (a DSPOUT's pause a running
    // drain); its one read port: a DSPIN's reads (DSP_IN) hold the start of a drain that reads the scratchpad, or pause it
    npu.io(npu.back.loadBusy).set(npu.inState(Npu.State.LOAD).or(npu.inState(Npu.State.LOAD4))
        .or(npu.inState(Npu.State.LOAD4_END)).or(npu.inState(Npu.State.DSP_OUT))
        .or(npu.inState(Npu.State.DSP_IN).and(npu.io(npu.back.drainReadsY))));
    // a DSPOUT clear of the results waiting to dispatch beside a drain through the PPM (not one that faults) stops
    // its feed and its start (GemmBackEnd#codesLanded)
    NpuDecode dec = npu.dec;
    npu.io(npu.back.holdFeed).set(npu.wireOf("dspOut_holdsFeed", npu.inState(Npu.State.DECODE)
        .or(npu.inState(Npu.State.WAIT)).and(dec.isDspOut).and(npu.io(npu.back.copyClear))
        .and(npu.io(npu.back.ppmReads)).and(npu.io(npu.back.idle).not())
        .and(dec.badShape.or(dec.badSpad).or(dec.badDsp).or(dec.badExt).not())));
    npu.io(npu.back.storeStart).set(npu.fetch.words.get(3));
    npu.io(npu.back.storeEnd).set(npu.dec.dmaSpadEnd);
    npu.io(npu.back.copyStart).set(npu.fetch.words.get(1));
    npu.io(npu.back.copyEnd).set(npu.dec.copySpadEnd);
  }

  /** The counters' events, from the units' signals; {@code busy}: the NPU runs a program. */
  static void counters(NpuController npu, NpuCounters k, Bool busy) {
    Walker sp = npu.dma.sp;
    npu.io(k.clear).set(npu.inState(Npu.State.IDLE).and(npu.start));
    npu.io(k.busy).set(busy);
    npu.io(k.decode).set(npu.inState(Npu.State.DECODE));
    NpuWeightStream ws = npu.gemm.stream;
    Bool loadBeats = npu.dma.loadWrite.or(npu.dma.load4Beat);
    npu.io(k.loadBeat).set(ws == null ? loadBeats : loadBeats.or(ws.beat));
    npu.io(k.storeBeat).set(npu.inStore.and(npu.fire));
    // a streamed W row's short beat is its last line column
    Bool rowEnd = ws == null ? sp.lastInRow() : mux(npu.gemm.inStream, ws.lastColumn(), sp.lastInRow());
    npu.io(k.partialBeat).set(npu.wireOf("partialBeat", rowEnd.and(npu.dma.remainderNow().ne(0))));
    npu.io(k.remainder).set(npu.dma.remainderNow());
    // The late events (NpuCounters: synthesis puts a condition at the head of its counter's carry chain) registered
    // before the counters' adders: the counter takes them a cycle late, which no reader sees. Each occurs only in a
    // phase of the controller's (LOAD, LOAD4, DSP_TAB, DSP_PROG, PPM_LOAD, PPM_RUN, PPM_DRAIN, DSP_OUT) or in a W
    // stream, and a reader's cycle follows a dispatch cycle (DECODE or WAIT; a snapshot and a halt wait for the
    // stream's last W write, which comes at least a memory latency after its last read) or DONE, or ERROR, which a
    // memory phase enters through the watchdog only after watchdogCycles cycles without a request or response.
    // The DMA's read beats (its stream's decisions, the stream's pacing), the fetcher's in their cycle.
    npu.io(k.readBeat).set(npu.reg0Next("counters_readBeat", npu.fire.and(npu.mem_req_write.not())));
    npu.io(k.fetchRead).set(npu.fetch.fire);
    npu.io(k.writeBeat).set(npu.fire.and(npu.mem_req_write));
    // a streamed GEMM counts its MACs in the cycle after GEMM_START: its product register is ready by then
    Bool gemmStart = npu.inState(Npu.State.GEMM_START);
    NpuKeptX keptX = npu.gemm.keptX;
    // a GEMM that kept X (no GEMM_X: GEMM_START from one cycle after its dispatch) counts them two cycles after
    Bool copied = keptX.built() ? gemmStart.and(keptX.keeps.not()) : gemmStart;
    Bool counted = ws == null ? copied : copied.and(ws.streaming.not())
        .or(npu.reg0Next("gemm_streamStarted", copied.and(ws.streaming)));
    npu.io(k.gemmStart).set(!keptX.built() ? counted : counted.or(npu.reg0Next("gemm_keptStarted2",
        npu.reg0Next("gemm_keptStarted", gemmStart.and(keptX.keeps)))));
    npu.io(k.macs).set(npu.gemm.macsRegister());
    npu.io(k.denseMacs).set(npu.gemm.denseMacs());
    npu.io(k.drainStart).set(npu.io(npu.back.drainStarts));
    npu.io(k.psumWritebacks).set(npu.io(npu.gemm.engine.psumWritebacks));
    NpuDsp unit = npu.dsp.unit;
    Bool copies = npu.inStore.and(npu.fire).or(npu.inState(Npu.State.GEMM_X));
    if (npu.config().weightRowsPerCycle() == 1) {
      npu.io(k.spadRead).set(copies.or(npu.inState(Npu.State.GEMM_W)).or(npu.inDspIn.and(unit.lineStart))
          .or(npu.inPpmRun));
    } else {
      // the W copy reads several lines a cycle
      npu.io(k.spadRead).set(copies.or(npu.inDspIn.and(unit.lineStart)).or(npu.inPpmRun));
      npu.io(k.weightCopy).set(npu.inState(Npu.State.GEMM_W));
      npu.io(k.weightLines).set(npu.gemm.weightLinesRead());
    }
    // with ppmGate: a gate line counts once for its 4 drain lines
    Bool drainRead = npu.back.drainReadCounted != null ? npu.back.drainReadCounted : npu.back.drainReads;
    npu.io(k.drainRead).set(npu.io(drainRead));
    // the LOAD's writes (the response's routing between the fetcher and the DMA), the PPM's and the DSPOUT's (which
    // writes a line chunk by chunk: one line write when it starts a line) registered; the back-end's and load4's
    // writes in their cycle (the scratchpad has one write port: one of them a cycle)
    npu.io(k.spadWrite).set(npu.reg0Next("counters_spadWrite", npu.dma.loadWrite.or(npu.ppm.write)
        .or(npu.inDspOut.and(unit.lineStart))));
    NpuLoad4 load4 = npu.dma.load4;
    npu.io(k.backWrite).set(npu.io(npu.back.write.valid).or(npu.io(load4.first.valid))
        .or(npu.io(load4.second.valid)));
    npu.io(k.fetchCycle).set(npu.inFetch.or(npu.inState(Npu.State.DECODE)));
    npu.io(k.dmaCycle).set(npu.inLoad.or(npu.inStore).or(npu.inLoad4).or(npu.inLoad4End).or(npu.inSnap));
    npu.io(k.gemmCycle).set(npu.state.ge(Npu.st(Npu.State.GEMM_X)).and(npu.state.le(Npu.st(Npu.State.GEMM_START)))
        .or(npu.gemm.inStream).or(npu.io(npu.back.idle).not()));
    npu.io(k.arrayCycle).set(npu.gemm.engineStarts().or(npu.io(npu.back.running)));
    npu.io(k.memStall).set(npu.mem_req_valid.and(npu.mem_req_ready.not()));
    // an issue (the DSP's interlock decoded from its execute stages, the run's limit) registered before the counter's
    // adder, as dspElement: the counter takes it a cycle late, which no reader sees (the run's last issue is at the
    // latest in the cycle that leaves DSP_RUN; a snapshot's first cycle or DONE is two cycles later at the earliest)
    npu.io(k.dspInstruction).set(npu.reg0Next("counters_dspInstruction", npu.inDspRun.and(npu.io(unit.dsp.busy))
        .and(npu.io(unit.dsp.stalled).not()).and(npu.dsp.runExpired.not())));
    // a copy's element count (its row's last chunk compared on the DMA's walk) registered before the counter's adder:
    // the counter takes it a cycle late, which no reader sees (a copy is followed by DSP_DRAIN and FETCH)
    npu.io(k.dspElement).set(npu.reg0Next("counters_dspElement", npu.inDspIn.or(npu.inDspOut)));
    npu.io(k.dspElements).set(npu.regNextOf("counters_dspElements", npu.dsp.count));
    npu.io(k.dspCycle).set(npu.inDspTab.or(npu.inDspProg).or(npu.inDspRun).or(npu.inDspIn).or(npu.inDspOut)
        .or(npu.inState(Npu.State.DSP_DRAIN)));
    // a PPM run's row ends on the DMA's walk (its beat compare) registered; a gemm ppm=1 result row in its cycle
    int laneBits = k.ppmLanes.width();
    npu.io(k.ppmRow).set(npu.reg0Next("counters_ppmRow", npu.inPpmRun.and(sp.lastInRow())));
    // (its lanes, a register of the dispatch, hold through PPM_DRAIN: the same in the cycle after the row)
    npu.io(k.ppmLanes).set(npu.ppm.lanes.resize(laneBits));
    npu.io(k.ppmResultRow).set(npu.io(npu.back.ppmRowFed));
    npu.io(k.ppmResultLanes).set(npu.gemm.n.resize(laneBits));
    npu.io(k.ppmCycle).set(npu.inPpmLoad.or(npu.inPpmRun).or(npu.inPpmDrain));
  }
}
