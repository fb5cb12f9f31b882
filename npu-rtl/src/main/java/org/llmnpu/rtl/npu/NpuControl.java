package org.llmnpu.rtl.npu;

import static org.llmnpu.hdl.Hw.boolLit;
import static org.llmnpu.hdl.Hw.mux;
import static org.llmnpu.hdl.Hw.uintLit;

import java.util.List;
import org.llmnpu.hdl.Bool;
import org.llmnpu.hdl.UInt;
import org.llmnpu.isa.ErrorCause;
import org.llmnpu.isa.Opcode;

/**
 * The {@link Npu}'s controller: its state machine over the units' steps (IDLE → FETCH → DECODE →
 * the command's states → DECODE when the next command is queued, else FETCH …, DONE or ERROR; {@link NpuFetch}). DECODE halts on the first failing check of
 * {@link NpuDecode} and {@link NpuPpmDecode} (opcode, unit/mode, then shape, scratchpad, DSP range, memory: these
 * computed on the command's arrival, {@link NpuPredecode}); else the command is dispatched
 * when its queue may go — a LOAD or LOAD4 when no drain writes the scratchpad, a STORE that reads none of the
 * running GEMM's result bytes at once (unless the drain reads the scratchpad), a DSPIN or DSPOUT that touches none of
 * them at once (the drain pauses while the copy holds its port; a DSPOUT beside a drain through the PPM once no code is
 * in flight, {@link NpuBackEnd#holdFeed}), DSPRUN and DSPTAB at once (they touch
 * no scratchpad byte), a PPMCFG of the parameter bank the running GEMM's PPM does not read at once (it writes only
 * that bank), every other command when the GEMM back-end is
 * idle (in-order results; the engine's buffers are free) — and, while a streamed GEMM's W beats still run
 * ({@link NpuWeightStream}: they hold the memory port and the DMA's walks), only a DSPIN or DSPOUT goes beside them,
 * every other command waiting for the stream's last W write; it waits in WAIT until then. A state
 * that waits for the memory halts with WATCHDOG when {@link NpuWatchdog} expires.
 */
final class NpuControl {
  private final NpuController npu;
  private final Bool bark;

  /** Builds the state machine (after every unit, whose steps it calls). */
  NpuControl(NpuController npu, Bool bark) {
    this.npu = npu;
    this.bark = bark;
    NpuFetch fetch = npu.fetch;
    NpuDecode dec = npu.dec;
    NpuDma dma = npu.dma;
    NpuDspCommands dsp = npu.dsp;
    NpuPpmCommands ppm = npu.ppm;
    UInt state = npu.state;
    int line = npu.line;
    List<UInt> w = fetch.words;
    UInt opcode = fetch.opcode;
    Bool isHalt = npu.wireOf("decode_isHalt", opcode.eq(Opcode.HALT.code()));
    Bool isFence = npu.wireOf("decode_isFence", opcode.eq(Opcode.FENCE.code()));
    Bool storeClear = npu.io(npu.back.storeClear);
    Bool isStore = npu.wireOf("decode_isStore", opcode.eq(Opcode.STORE.code()));
    Bool idle = npu.io(npu.back.idle);
    Bool loadMayStart = npu.io(npu.back.loadMayStart);
    Bool copyClear = npu.io(npu.back.copyClear);
    // beside the back-end: a DSPIN or DSPOUT that touches none of its results (the copy then has the scratchpad's
    // port and the drain's start waits, or the drain pauses, NpuBackEnd#loadBusy) — a DSPOUT beside a drain through
    // the PPM once no code is in flight (it holds the feed from its decode, NpuBackEnd#holdFeed), DSPRUN, DSPLD and
    // DSPTAB always
    Bool codesInFlight = npu.io(npu.back.codesInFlight);
    Bool backEndMayGo = npu.wireOf("backEndMayGo", mux(dma.isLoad.or(dec.isLoad4), loadMayStart, mux(isStore,
        idle.or(storeClear), mux(dec.isDspIn, idle.or(copyClear),
        mux(dec.isDspOut,
        idle.or(copyClear.and(codesInFlight.not())), dec.isDspRun.or(dec.isDspLd).or(dec.isDspTab).or(idle)
        .or(ppm.dec.cfgBeside))))));
    // beside a running W stream (it holds the memory port and the DMA's walks): only DSPIN and DSPOUT, which go
    // over the operand walk and touch no memory, and a resident DSPRUN, which loads nothing; every other command
    // waits for the stream's last W write
    Bool mayGo = npu.wireOf("mayGo", backEndMayGo.and(npu.gemm.streamBusy().not().or(dec.isDspIn)
        .or(dec.isDspOut).or(dec.residentRun)));
    Runnable dispatch = () -> npu.whenOf(mayGo.not(), () -> state.set(Npu.st(Npu.State.WAIT)))
        .elseWhen(isHalt, () -> state.set(Npu.st(Npu.State.DONE)))
        .elseWhen(isFence, fetch::next)
        .elseWhen(dec.isDma, dma::dispatchTransfer)
        .elseWhen(dec.isDspTab, () -> dma.stream(uintLit(768 / line, 16), Npu.State.DSP_TAB))
        .elseWhen(dec.residentRun, dsp::dispatchResident)
        .elseWhen(dec.isDspRun.or(dec.isDspLd), () -> {
          dma.stream(dec.programBeats, Npu.State.DSP_PROG);
          dsp.takeWords();
        })
        .elseWhen(dec.isSnapshot, () -> {
          dma.stream(uintLit(NpuSnapshot.beats(line), 16), Npu.State.SNAPSHOT);
          dma.remainder.set(uintLit(NpuSnapshot.BYTES % line, npu.lineShift + 1));
          npu.snapshotCapture.set(boolLit(true));
        })
        .elseWhen(dec.isDspIn.or(dec.isDspOut), dsp::dispatchCopy)
        .elseWhen(ppm.dec.isPpmCfg.or(ppm.dec.isPpuTab), ppm::dispatchLoad)
        .elseWhen(ppm.dec.isPpm, ppm::dispatchRun)
        .otherwise(npu.gemm::dispatch);
    Bool unsupported = ppm.dec.unsupported.or(dec.mxUnsupported).or(dec.streamUnsupported);
    NpuKeptX keptX = npu.gemm.keptX;
    npu.switchOf(state, s -> s
        .is(Npu.State.IDLE.ordinal(), () -> npu.whenOf(npu.start, fetch::begin))
        .is(Npu.State.FETCH.ordinal(), () -> fetch.step(bark))
        .is(Npu.State.DECODE.ordinal(), () ->
          npu.whenOf(dec.undefined.and(ppm.dec.defined.not()), () -> npu.fail(ErrorCause.UNDEFINED_OPCODE))
              .elseWhen(keptX.built() ? unsupported : unsupported.or(keptX.unsupported),
                  () -> npu.fail(ErrorCause.UNSUPPORTED))
              .elseWhen(keptX.built() ? dec.badShape.or(keptX.badShape) : dec.badShape,
                  () -> npu.fail(ErrorCause.BAD_SHAPE))
              .elseWhen(dec.badSpad, () -> npu.fail(ErrorCause.SPAD_ADDRESS))
              .elseWhen(dec.badDsp, () -> npu.fail(ErrorCause.DSP_ADDRESS))
              .elseWhen(dec.badExt, () -> npu.fail(ErrorCause.EXT_ADDRESS))
              .otherwise(dispatch))
        .is(Npu.State.WAIT.ordinal(), () -> watchdogged(dispatch))
        .is(Npu.State.LOAD.ordinal(), () -> watchdogged(dma::loadStep))
        .is(Npu.State.STORE.ordinal(), () -> watchdogged(dma::storeStep))
        .is(Npu.State.GEMM_X.ordinal(), npu.gemm::xStep)
        .is(Npu.State.GEMM_W.ordinal(), npu.gemm::wStep)
        .is(Npu.State.GEMM_START.ordinal(), npu.gemm::startStep)
        .is(Npu.State.LOAD4.ordinal(), () -> watchdogged(dma::load4Step))
        .is(Npu.State.LOAD4_END.ordinal(), fetch::next)
        .is(Npu.State.DSP_TAB.ordinal(), () -> watchdogged(() -> dma.responseStep(fetch::next)))
        .is(Npu.State.DSP_PROG.ordinal(), () -> watchdogged(
            () -> dma.responseStep(dsp::programLoaded)))
        .is(Npu.State.DSP_RUN.ordinal(), dsp::runStep)
        .is(Npu.State.DSP_IN.ordinal(), () -> dsp.copyStep(true))
        .is(Npu.State.DSP_DRAIN.ordinal(), npu.fetch::nextViaFetch)
        .is(Npu.State.DSP_OUT.ordinal(), () -> dsp.copyStep(false))
        .is(Npu.State.SNAPSHOT.ordinal(), () -> watchdogged(dma::storeStep))
        .is(Npu.State.PPM_LOAD.ordinal(), () -> watchdogged(ppm::loadStep))
        .is(Npu.State.PPM_RUN.ordinal(), ppm::runStep)
        .is(Npu.State.PPM_DRAIN.ordinal(), ppm::drainStep)
        .is(Npu.State.DONE.ordinal(), () -> npu.whenOf(npu.start, () -> state.set(Npu.st(Npu.State.IDLE))))
        .is(Npu.State.ERROR.ordinal(), () -> npu.whenOf(npu.start, () -> state.set(Npu.st(Npu.State.IDLE))))
        .otherwise(() -> { }));
    // a streamed GEMM's W stream, a back-end phase beside the controller's states
    npu.gemm.streamStep();
  }

  /** A memory-waiting state: a watchdog error, else {@code step}. */
  private void watchdogged(Runnable step) {
    npu.whenOf(bark, () -> npu.fail(ErrorCause.WATCHDOG)).otherwise(step);
  }
}
