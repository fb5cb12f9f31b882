package org.llmnpu.rtl.npu;

import static org.llmnpu.hdl.Hw.bits;
import static org.llmnpu.hdl.Hw.bitsLit;
import static org.llmnpu.hdl.Hw.bitsToHold;
import static org.llmnpu.hdl.Hw.bool;
import static org.llmnpu.hdl.Hw.boolLit;
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
import org.llmnpu.hdl.Mem;
import org.llmnpu.hdl.HwModule;
import org.llmnpu.hdl.UInt;
import org.llmnpu.isa.Counter;
import org.llmnpu.isa.ErrorCause;
import org.llmnpu.isa.MachineParams;
import org.llmnpu.isa.Opcode;
import org.llmnpu.rtl.mac.GemmBackend;
import org.llmnpu.rtl.mac.GemmEngine;
import org.llmnpu.rtl.mac.GemmEngineConfig;

/**
 * The NPU as one system: it fetches {@code npu-isa} commands from its external memory and runs
 * them — 2-D strided DMA between the external memory and a banked scratchpad, and INT8 GEMMs on
 * the {@link GemmEngine} (MAC array with extended IC accumulation) whose operands it loads from
 * the scratchpad and whose INT32 results it drains back — with performance counters and error
 * halts. It is bit for bit the golden {@code org.llmnpu.isa.IsaSimulator}, and its cycles are the
 * {@code org.llmnpu.isa.CycleModel} exactly.
 *
 * <p><b>Ports.</b> {@code start} (while idle) with {@code programAddress} runs the program;
 * {@code finished} (a register) rises with {@code done} or an error: {@code errorCause}
 * ({@link ErrorCause} code) and {@code errorCommand} (index of the failing command). The counter
 * chosen by {@code counterSelect} ({@link Counter} ordinal) is on {@code counterValue}. The memory
 * port {@code mem_*} moves one line of {@code rows} bytes per beat (valid/ready requests with a
 * write strobe, in-order read responses that are always accepted); the harness's C++ memory
 * model serves it in simulation.
 *
 * <p><b>Controller</b>: FETCH (beats of the 32-byte command), DECODE (one cycle: opcode, shape,
 * scratchpad and memory range checks, in that order), then the command once it may go (else
 * WAIT): LOAD issues one read per beat as the memory accepts it and writes each response to the
 * scratchpad (byte mask on a row's last beat); STORE reads the scratchpad and issues masked
 * writes; GEMM copies X lines into the engine's X buffer ({@code M·kTiles} cycles) and W rows into
 * its W buffer ({@code K·nTiles} cycles), starts the engine and fetches the next command. LOAD4
 * unpacks each beat's signed INT4 nibbles into two INT8 lines (beats at most every other cycle).
 * The Vector DSP commands ({@link NpuDsp}): DSP_TAB and DSP_PROG stream tables and program words
 * into the DSP's line-wide ports as the beats arrive, DSP_RUN waits for its {@code done} (or stops
 * it at {@code dspMaxRunCycles}: WATCHDOG), DSP_IN / DSP_OUT move one element a cycle between the
 * scratchpad and the DSP buffer (INT8/INT32 → FP16 by {@code Fp16Convert}); SNAPSHOT stores the
 * counters latched in its first cycle ({@link NpuSnapshot}).
 *
 * <p><b>GEMM back-end</b> (decoupled): the array runs while the controller goes on; at done, the
 * results drain as {@code ceil(4N / rows)} lines of little-endian INT32 per row, starting in the
 * first cycle the controller is not in a LOAD (they share the scratchpad's write port). Dispatch
 * rules: a LOAD waits while a drain starts or runs; a STORE that reads none of the running GEMM's
 * result bytes (the range is kept in a scoreboard) goes at once; GEMM, other STOREs, FENCE and
 * HALT wait until the back-end is idle. So loads of the next tile and stores of the previous one
 * overlap the array, and the results equal in-order execution (a program must not LOAD into a
 * running GEMM's result bytes). Cycle formulas: {@code org.llmnpu.isa.CycleModel}.
 *
 * <p><b>Watchdog.</b> Every wait for the memory (a request not accepted, a read not answered)
 * counts cycles without progress; at {@code watchdogCycles} the NPU halts with
 * {@link ErrorCause#WATCHDOG}.
 */
public final class Npu extends HwModule {
  private static final int ADDR = 32;
  private static final int WIDE = 52;
  private static final int COUNTER_BITS = 48;

  public final Bool start = in(bool());
  public final UInt programAddress = in(uint(ADDR));
  public final UInt counterSelect = in(uint(5));
  public final Bool finished = out(bool());
  public final Bool done = out(bool());
  public final UInt errorCause = out(uint(3));
  public final UInt errorCommand = out(uint(32));
  public final UInt counterValue = out(uint(64));
  public final Bool mem_req_valid = out("mem_req_valid", bool());
  public final Bool mem_req_ready = in("mem_req_ready", bool());
  public final Bool mem_req_write = out("mem_req_write", bool());
  public final UInt mem_req_addr = out("mem_req_addr", uint(ADDR));
  public final UInt mem_req_wdata;
  public final Bits mem_req_wstrb;
  public final Bool mem_resp_valid = in("mem_resp_valid", bool());
  public final UInt mem_resp_data;
  private final NpuConfig config;

  enum State { IDLE, FETCH, DECODE, WAIT, LOAD, STORE, GEMM_X, GEMM_W, GEMM_START, DONE, ERROR, LOAD4, LOAD4_END,
    DSP_TAB, DSP_PROG, DSP_RUN, DSP_IN, DSP_OUT, SNAPSHOT }

  /** The GEMM back-end: the array runs and its results drain while the controller goes on. */
  enum Back { IDLE, RUN, DRAIN }

  public NpuConfig config() {
    return config;
  }

  public Npu(NpuConfig c) {
    config = c;
    MachineParams p = c.machine();
    int line = p.lineBytes();
    int lineBits = 8 * line;
    int lineShift = Integer.numberOfTrailingZeros(line);
    mem_req_wdata = out("mem_req_wdata", uint(lineBits));
    mem_req_wstrb = out("mem_req_wstrb", bits(line));
    mem_resp_data = in("mem_resp_data", uint(lineBits));

    UInt state = reg0("state", uint(5));
    UInt pc = reg0("pc", uint(ADDR));
    UInt index = reg0("commandIndex", uint(32));
    UInt cause = reg0("cause", uint(3));
    UInt cmd = reg0("command", uint(256));
    Bool fire = wire("fire", mem_req_valid.and(mem_req_ready));
    Bool in = wire("busy", state.ne(st(State.IDLE)).and(state.ne(st(State.DONE))).and(state.ne(st(State.ERROR))));

    // ---------------------------------------------------------------- scratchpad
    int spadLines = p.spadBytes() / line;
    int lineAddrBits = Integer.numberOfTrailingZeros(spadLines);
    NpuScratchpad spad = new NpuScratchpad(this, p);
    UInt spadReadLine = spad.readLine;
    Bool spadWrite = spad.write;
    UInt spadWriteLine = spad.writeLine;
    UInt spadWriteData = spad.writeData;
    Bits spadWriteMask = spad.writeMask;
    UInt spadReadData = spad.readData;

    // ---------------------------------------------------------------- command fields
    List<UInt> w = new ArrayList<>();
    for (int i = 0; i < 8; i++) {
      w.add(wire("word" + i, cmd.slice(32 * i + 31, 32 * i)));
    }
    UInt opcode = wire("opcode", w.get(0).lsbs(8));
    NpuDecode dec = new NpuDecode(this, p, w, NpuSnapshot.BYTES);

    // ---------------------------------------------------------------- walkers
    int countBits = 16;
    Walker ext = section2("ext", () -> new Walker(this, ADDR, countBits));
    Walker sp = section2("spadWalk", () -> new Walker(this, ADDR, countBits, false));
    Bool isLoad = wire("isLoad", opcode.eq(Opcode.LOAD.code()));
    Bool isLoad4 = dec.isLoad4;
    UInt lineConst = uintLit(line, ADDR);
    // DMA: ext walks the memory side, sp the scratchpad side (same shape).
    UInt rowsReg = reg0("dmaRows", uint(16));
    UInt beatsReg = reg0("dmaBeats", uint(16));
    UInt remReg = reg0("dmaRemainder", uint(lineShift + 1));
    UInt extStride = reg0("extStride", uint(ADDR));
    UInt spadStride = reg0("spadStride", uint(ADDR));
    UInt spadStep = reg0("spadStep", uint(ADDR));
    GemmEngineConfig gc = c.gemm();
    UInt gemmM = reg0("gemmM", uint(bitsToHold(gc.maxM())));
    UInt gemmK = reg0("gemmK", uint(bitsToHold(gc.maxK())));
    UInt gemmN = reg0("gemmN", uint(bitsToHold(gc.maxN())));
    UInt yAddr = reg0("gemmY", uint(ADDR));
    UInt yStride = reg0("gemmYStride", uint(ADDR));
    UInt back = reg0("back_state", uint(2));
    Walker drain = section2("drainWalk", () -> new Walker(this, ADDR, countBits, false));
    UInt drainRows = reg0("drain_rows", uint(16));
    UInt drainBeats = reg0("drain_beats", uint(16));
    UInt drainRem = reg0("drain_remainder", uint(lineShift + 1));
    drain.shape(yStride, lineConst, drainRows, drainBeats);
    ext.shape(extStride, lineConst, rowsReg, beatsReg);
    sp.shape(spadStride, spadStep, rowsReg, beatsReg);

    // ---------------------------------------------------------------- fetch
    int beatsPerCommand = p.beatsPerCommand();
    int bpcBits = bitsToHold(beatsPerCommand);
    UInt issued = reg0("fetch_issued", uint(bpcBits));
    UInt received = reg0("fetch_received", uint(bpcBits));
    Bool fetchFault = wire("fetch_fault", pc.resize(WIDE).add(uintLit(32, WIDE)).gt(uintLit(p.extMemBytes(), WIDE))
        .or(pc.lsbs(5).ne(0)));

    // ---------------------------------------------------------------- watchdog
    UInt watchdog = reg0("watchdog", uint(bitsToHold(p.watchdogCycles())));
    Bool progress = wire("watchdog_progress", fire.or(mem_resp_valid).or(state.ne(regNext("watchdog_state", state))));
    Bool waiting = wire("watchdog_waiting", state.eq(st(State.FETCH)).or(state.eq(st(State.LOAD)))
        .or(state.eq(st(State.STORE))).or(state.eq(st(State.LOAD4))).or(state.eq(st(State.DSP_TAB)))
        .or(state.eq(st(State.DSP_PROG))).or(state.eq(st(State.SNAPSHOT))));
    Bool bark = wire("watchdog_expired", watchdog.eq(p.watchdogCycles()));
    when(progress.or(waiting.not()), () -> watchdog.set(watchdog.sub(watchdog)))
        .otherwise(() -> watchdog.set(watchdog.add(1)));

    // ---------------------------------------------------------------- GEMM engine
    GemmBackend engine = instance("gemm", c.gemmEngine());
    engine.load.m.set(gemmM);
    engine.load.k.set(gemmK);
    engine.load.n.set(gemmN);
    engine.start.set(state.eq(st(State.GEMM_START)));
    int kTileBits = gc.kTileBits();
    int nTileBits = gc.nTileBits();
    int rowBits = gc.rowBits();
    engine.load.xWrite.set(state.eq(st(State.GEMM_X)));
    engine.load.xAddress.set(join(sp.row, gc.mBits(), sp.beat, kTileBits));
    engine.load.xData.set(spadReadData);
    engine.load.wWrite.set(state.eq(st(State.GEMM_W)));
    engine.load.wAddress.set(join(sp.row, nTileBits, sp.beat, kTileBits + rowBits));
    engine.load.wData.set(spadReadData);
    // Drain: line q of a result row holds outputs q·rows/4 .. of N tile q/4.
    UInt quarter = wire("drain_quarter", drain.beat.lsbs(2));
    UInt drainTile = nTileBits == 0 ? drain.beat : wire("drain_tile", drain.beat.slice(nTileBits + 1, 2));
    engine.yAddress.set(join(drain.row, gc.mBits(), drainTile, nTileBits));
    int per = line / 4;
    int acc = c.accWidth();
    List<UInt> quarters = new ArrayList<>();
    for (int q = 0; q < 4; q++) {
      List<HwValue> outs = new ArrayList<>();
      for (int j = 0; j < per; j++) {
        int col = q * per + j;
        outs.add(engine.yData.slice(acc * col + acc - 1, acc * col).asSInt().resize(32));
      }
      quarters.add(wire("drain_line" + q, catLsbFirst(outs).asUInt()));
    }
    UInt drainData = wire("drain_data", mux(quarter.eq(0), quarters.get(0), mux(quarter.eq(1), quarters.get(1),
        mux(quarter.eq(2), quarters.get(2), quarters.get(3)))));

    // ---------------------------------------------------------------- masks
    Bits ones = bitsLit(line == 64 ? -1L : (1L << line) - 1, line);
    UInt shortBy = wire("mask_shortBy", uintLit(line, lineShift + 1).sub(remReg));
    Bits rowEndMask = wire("mask_rowEnd", mux(remReg.eq(0), ones, ones.shiftRight(shortBy)));
    UInt drainShortBy = wire("mask_drainShortBy", uintLit(line, lineShift + 1).sub(drainRem));
    Bits drainEndMask = wire("mask_drainEnd", mux(drainRem.eq(0), ones, ones.shiftRight(drainShortBy)));

    // ---------------------------------------------------------------- datapath per state
    Bool inLoad = wire("inLoad", state.eq(st(State.LOAD)));
    Bool inStore = wire("inStore", state.eq(st(State.STORE)));
    Bool inFetch = wire("inFetch", state.eq(st(State.FETCH)));
    Bool inLoad4 = wire("inLoad4", state.eq(st(State.LOAD4)));
    Bool inLoad4End = wire("inLoad4End", state.eq(st(State.LOAD4_END)));
    Bool inDspTab = wire("inDspTab", state.eq(st(State.DSP_TAB)));
    Bool inDspProg = wire("inDspProg", state.eq(st(State.DSP_PROG)));
    Bool inDspRun = wire("inDspRun", state.eq(st(State.DSP_RUN)));
    Bool inDspIn = wire("inDspIn", state.eq(st(State.DSP_IN)));
    Bool inDspOut = wire("inDspOut", state.eq(st(State.DSP_OUT)));
    Bool inSnap = wire("inSnapshot", state.eq(st(State.SNAPSHOT)));
    Bool inDrain = wire("inDrain", back.eq(bk(Back.DRAIN)));
    Bool backIdle = wire("back_idle", back.eq(bk(Back.IDLE)));
    Bool drainStarts = wire("back_drainStarts", back.eq(bk(Back.RUN)).and(engine.done).and(inLoad.not())
        .and(inLoad4.not()).and(inLoad4End.not()));

    // ---------------------------------------------------------------- Vector DSP
    UInt dspFormat = reg0("dsp_format", uint(2));
    UInt dspScale = reg0("dsp_scale", uint(16));
    UInt dspElement = reg0("dsp_bufferElement", uint(32));
    // dsprun's word count masks the words of the last beat (lines of 16 bytes or more hold several words)
    UInt dspWords = line >= 16 ? reg0("dsp_words", uint(bitsToHold(p.dsp().programDepth()))) : null;
    NpuDsp dsp = section2("dspPath", () -> new NpuDsp(this, p, c.dsp(), sp.address, spadReadData, dspFormat, dspScale,
        dspElement, inDspIn, mem_resp_data, inDspTab.and(mem_resp_valid), inDspProg.and(mem_resp_valid), sp.beat,
        dspWords));
    long maxRun = p.dsp().maxRunCycles();
    UInt runCount = reg0("dsp_runCycles", uint(bitsToHold(maxRun)));
    Bool runExpired = wire("dsp_runExpired", runCount.eq(maxRun));
    Bool dspHalted = wire("dsp_halted", dsp.dsp.done);
    dsp.dsp.start.set(inDspProg.and(mem_resp_valid).and(sp.last()));
    dsp.dsp.stop.set(inDspRun.and(runExpired).and(dspHalted.not()));
    whenElse(inDspRun, () -> runCount.set(runCount.add(1)), () -> runCount.set(runCount.sub(runCount)));

    // ---------------------------------------------------------------- load4: two INT4 per source byte
    Bool justFired = regInit("load4_justFired", bool(), 0);
    justFired.set(fire);
    NpuLoad4 load4 = new NpuLoad4(this, p, inLoad4.and(mem_resp_valid), mem_resp_data, sp.lastInRow(), remReg,
        sp.address.slice(lineShift + lineAddrBits - 1, lineShift));
    Bool load4Beat = load4.beat;

    // ---------------------------------------------------------------- snapshot
    NpuSnapshot snapshot = new NpuSnapshot(this, line, COUNTER_BITS);
    // A LOAD writes the scratchpad on its responses, as the drain does: they never overlap.
    Bool loadMayStart = wire("loadMayStart", inDrain.or(drainStarts).not());
    Bool streams = wire("dma_streams", inLoad.or(inStore).or(inDspTab).or(inDspProg).or(inSnap)
        .or(inLoad4.and(justFired.not())));
    mem_req_valid.set(inFetch.and(issued.lt(beatsPerCommand)).and(fetchFault.not())
        .or(streams.and(ext.finished.not())));
    mem_req_write.set(inStore.or(inSnap));
    mem_req_addr.set(mux(inFetch, pc.add(issued.resize(ADDR).shiftLeft(lineShift).resize(ADDR)), ext.address));
    mem_req_wdata.set(mux(inSnap, snapshot.line(this, sp.beat), spadReadData));
    mem_req_wstrb.set(mux(sp.lastInRow(), rowEndMask, ones));
    spadReadLine.set(sp.address.slice(lineShift + lineAddrBits - 1, lineShift));
    Bool loadWrite = wire("loadWrite", inLoad.and(mem_resp_valid));
    spadWrite.set(loadWrite.or(inDrain).or(load4Beat).or(load4.pending).or(inDspOut));
    UInt spLine = sp.address.slice(lineShift + lineAddrBits - 1, lineShift);
    spadWriteLine.set(mux(inDrain, drain.address.slice(lineShift + lineAddrBits - 1, lineShift),
        mux(load4.pending, load4.pendingLine, spLine)));
    spadWriteData.set(mux(inDrain, drainData, mux(load4.pending, load4.pendingData, mux(inLoad4, load4.firstData,
        mux(inDspOut, dsp.outData, mem_resp_data)))));
    spadWriteMask.set(mux(inDrain, mux(drain.lastInRow(), drainEndMask, ones), mux(load4.pending, load4.pendingMask,
        mux(inLoad4, load4.firstMask,
        mux(inDspOut, dsp.outMask, mux(sp.lastInRow(), rowEndMask, ones))))));

    // ---------------------------------------------------------------- counters
    NpuCounters counters = new NpuCounters(this);
    counters.count(Counter.CYCLES, in);
    counters.count(Counter.COMMANDS, state.eq(st(State.DECODE)));
    UInt beatBytes = wire("beatBytes", mux(sp.lastInRow().and(remReg.ne(0)), remReg.resize(lineShift + 1),
        uintLit(line, lineShift + 1)));
    counters.add(Counter.DMA_LOAD_BYTES, loadWrite.or(load4Beat), beatBytes);
    counters.add(Counter.DMA_STORE_BYTES, inStore.and(fire), beatBytes);
    counters.count(Counter.EXT_READ_BEATS, fire.and(mem_req_write.not()));
    counters.count(Counter.EXT_WRITE_BEATS, fire.and(mem_req_write));
    UInt macs = reg0("gemm_macs", uint(48));
    counters.add(Counter.MACS, state.eq(st(State.GEMM_START)), macs);
    counters.add(Counter.PSUM_WRITEBACKS, drainStarts, engine.psumWritebacks);
    counters.count(Counter.SPAD_READS, inStore.and(fire).or(state.eq(st(State.GEMM_X))).or(state.eq(st(State.GEMM_W)))
        .or(inDspIn.and(dsp.lineStart)));
    // dspout writes a line element by element: one line write when it starts a line
    counters.count(Counter.SPAD_WRITES, spadWrite.and(inDspOut.and(dsp.lineStart.not()).not()));
    counters.count(Counter.FETCH_CYCLES, inFetch.or(state.eq(st(State.DECODE))));
    counters.count(Counter.DMA_CYCLES, inLoad.or(inStore).or(inLoad4).or(inLoad4End).or(inSnap));
    counters.count(Counter.GEMM_CYCLES, state.ge(st(State.GEMM_X)).and(state.le(st(State.GEMM_START)))
        .or(backIdle.not()));
    counters.count(Counter.ARRAY_CYCLES, state.eq(st(State.GEMM_START))
        .or(back.eq(bk(Back.RUN)).and(engine.done.not())));
    counters.count(Counter.MEM_STALL_CYCLES, mem_req_valid.and(mem_req_ready.not()));
    counters.count(Counter.DSP_INSTRUCTIONS, inDspRun.and(dsp.dsp.busy).and(runExpired.not()));
    counters.count(Counter.DSP_ELEMENTS, inDspIn.or(inDspOut));
    counters.count(Counter.DSP_CYCLES, inDspTab.or(inDspProg).or(inDspRun).or(inDspIn).or(inDspOut));
    counters.clearOn(state.eq(st(State.IDLE)).and(start));
    counterValue.set(counters.select(counterSelect));

    // ---------------------------------------------------------------- control
    Runnable nextCommand = () -> {
      pc.set(pc.add(32));
      index.set(index.add(1));
      issued.set(issued.sub(issued));
      received.set(received.sub(received));
      state.set(st(State.FETCH));
    };
    java.util.function.Consumer<ErrorCause> fail = e -> {
      cause.set(uintLit(e.code(), 3));
      state.set(st(State.ERROR));
    };
    // A command starts when its queue may go: a LOAD when no drain writes the scratchpad, every
    // other command when the GEMM back-end is idle (in-order results; the engine's buffers are free).
    Bool isHalt = wire("decode_isHalt", opcode.eq(Opcode.HALT.code()));
    Bool isFence = wire("decode_isFence", opcode.eq(Opcode.FENCE.code()));
    // A STORE also goes while the back-end runs if it reads none of the running GEMM's result bytes.
    UInt resultLo = reg0("back_resultStart", uint(52));
    UInt resultHi = reg0("back_resultEnd", uint(52));
    Bool storeClear = wire("storeClear", w.get(3).resize(52).ge(resultHi).or(dec.dmaSpadEnd.le(resultLo)));
    Bool isStore = wire("decode_isStore", opcode.eq(Opcode.STORE.code()));
    Bool mayGo = wire("mayGo", mux(isLoad.or(isLoad4), loadMayStart, mux(isStore, backIdle.or(storeClear), backIdle)));
    // A command that streams `beats` lines from or to one memory address (sp counts the beats).
    java.util.function.BiConsumer<UInt, State> stream = (beats, next) -> {
      ext.begin(w.get(1));
      sp.begin(w.get(1).sub(w.get(1)));
      extStride.set(lineConst);
      spadStride.set(lineConst);
      spadStep.set(lineConst);
      rowsReg.set(uintLit(1, 16));
      beatsReg.set(beats);
      state.set(st(next));
    };
    Runnable dispatch = () -> when(mayGo.not(), () -> state.set(st(State.WAIT)))
        .elseWhen(isHalt, () -> state.set(st(State.DONE)))
        .elseWhen(isFence, nextCommand)
        .elseWhen(dec.isDma, () -> {
          ext.begin(w.get(1));
          sp.begin(w.get(3));
          extStride.set(w.get(2));
          spadStride.set(w.get(4));
          spadStep.set(mux(isLoad4, uintLit(2 * line, ADDR), lineConst));
          rowsReg.set(w.get(6).lsbs(16));
          beatsReg.set(dec.dmaBeats);
          remReg.set(w.get(5).lsbs(lineShift).resize(lineShift + 1));
          state.set(mux(isLoad, st(State.LOAD), mux(isLoad4, st(State.LOAD4), st(State.STORE))));
        })
        .elseWhen(dec.isDspTab, () -> stream.accept(uintLit(768 / line, 16), State.DSP_TAB))
        .elseWhen(dec.isDspRun, () -> {
          stream.accept(dec.programBeats, State.DSP_PROG);
          if (dspWords != null) {
            dspWords.set(w.get(2).resize(dspWords.width()));
          }
        })
        .elseWhen(dec.isSnapshot, () -> {
          stream.accept(uintLit(NpuSnapshot.beats(line), 16), State.SNAPSHOT);
          remReg.set(uintLit(NpuSnapshot.BYTES % line, lineShift + 1));
          snapshot.capture(counters.nextValues());
        })
        .elseWhen(dec.isDspIn.or(dec.isDspOut), () -> {
          sp.begin(w.get(1));
          spadStride.set(w.get(2));
          spadStep.set(dec.elementBytes.resize(ADDR));
          rowsReg.set(dec.copyRows);
          beatsReg.set(dec.copyElems);
          dspFormat.set(w.get(5).lsbs(2));
          dspScale.set(dec.scale);
          dspElement.set(dec.bufferStart);
          state.set(mux(dec.isDspIn, st(State.DSP_IN), st(State.DSP_OUT)));
        })
        .otherwise(() -> {
          gemmM.set(dec.m.resize(gemmM.width()));
          gemmK.set(dec.k.resize(gemmK.width()));
          gemmN.set(dec.n.resize(gemmN.width()));
          macs.set(dec.macs);
          yAddr.set(w.get(5));
          yStride.set(w.get(7));
          resultLo.set(w.get(5).resize(52));
          resultHi.set(dec.resultEnd);
          // X: M rows of kTiles lines.
          sp.begin(w.get(3));
          spadStride.set(dec.xStride);
          spadStep.set(lineConst);
          rowsReg.set(dec.m);
          beatsReg.set(dec.kTiles);
          state.set(st(State.GEMM_X));
        });
    switchOn(state, s -> s
        .is(State.IDLE.ordinal(), () -> when(start, () -> {
          pc.set(programAddress);
          index.set(index.sub(index));
          cause.set(cause.sub(cause));
          issued.set(issued.sub(issued));
          received.set(received.sub(received));
          state.set(st(State.FETCH));
        }))
        .is(State.FETCH.ordinal(), () -> {
          when(fetchFault, () -> fail.accept(ErrorCause.EXT_ADDRESS))
              .elseWhen(bark, () -> fail.accept(ErrorCause.WATCHDOG))
              .otherwise(() -> {
                when(fire, () -> issued.set(issued.add(1)));
                when(mem_resp_valid, () -> {
                  UInt shifted = beatsPerCommand == 1 ? mem_resp_data.resize(256)
                      : cat(mem_resp_data, cmd.slice(255, lineBits)).asUInt();
                  cmd.set(shifted);
                  received.set(received.add(1));
                  when(received.eq(beatsPerCommand - 1), () -> state.set(st(State.DECODE)));
                });
              });
        })
        .is(State.DECODE.ordinal(), () ->
          when(dec.undefined, () -> fail.accept(ErrorCause.UNDEFINED_OPCODE))
              .elseWhen(dec.badShape, () -> fail.accept(ErrorCause.BAD_SHAPE))
              .elseWhen(dec.badSpad, () -> fail.accept(ErrorCause.SPAD_ADDRESS))
              .elseWhen(dec.badDsp, () -> fail.accept(ErrorCause.DSP_ADDRESS))
              .elseWhen(dec.badExt, () -> fail.accept(ErrorCause.EXT_ADDRESS))
              .otherwise(dispatch))
        .is(State.WAIT.ordinal(), dispatch)
        .is(State.LOAD.ordinal(), () -> when(bark, () -> fail.accept(ErrorCause.WATCHDOG)).otherwise(() -> {
          when(fire, ext::advance);
          when(loadWrite, () -> {
            sp.advance();
            when(sp.last(), nextCommand);
          });
        }))
        .is(State.STORE.ordinal(), () -> when(bark, () -> fail.accept(ErrorCause.WATCHDOG)).otherwise(() ->
            when(fire, () -> {
              ext.advance();
              sp.advance();
              when(ext.last(), nextCommand);
            })))
        .is(State.GEMM_X.ordinal(), () -> {
          sp.advance();
          when(sp.last(), () -> {
            // W: nTiles "rows" (stride one line) of K lines (step wStride).
            sp.begin(w.get(4));
            spadStride.set(lineConst);
            spadStep.set(dec.wStride);
            rowsReg.set(dec.nTiles);
            beatsReg.set(dec.k);
            state.set(st(State.GEMM_W));
          });
        })
        .is(State.GEMM_W.ordinal(), () -> {
          sp.advance();
          when(sp.last(), () -> state.set(st(State.GEMM_START)));
        })
        .is(State.GEMM_START.ordinal(), nextCommand)
        .is(State.LOAD4.ordinal(), () -> when(bark, () -> fail.accept(ErrorCause.WATCHDOG)).otherwise(() -> {
          when(fire, ext::advance);
          when(load4Beat, () -> {
            sp.advance();
            when(sp.last(), () -> state.set(st(State.LOAD4_END)));
          });
        }))
        .is(State.LOAD4_END.ordinal(), nextCommand)
        .is(State.DSP_TAB.ordinal(), () -> when(bark, () -> fail.accept(ErrorCause.WATCHDOG)).otherwise(() -> {
          when(fire, ext::advance);
          when(mem_resp_valid, () -> {
            sp.advance();
            when(sp.last(), nextCommand);
          });
        }))
        .is(State.DSP_PROG.ordinal(), () -> when(bark, () -> fail.accept(ErrorCause.WATCHDOG)).otherwise(() -> {
          when(fire, ext::advance);
          when(mem_resp_valid, () -> {
            sp.advance();
            when(sp.last(), () -> state.set(st(State.DSP_RUN)));
          });
        }))
        .is(State.DSP_RUN.ordinal(), () -> when(dspHalted, nextCommand)
            .elseWhen(runExpired, () -> fail.accept(ErrorCause.WATCHDOG)))
        .is(State.DSP_IN.ordinal(), () -> {
          sp.advance();
          dspElement.set(dspElement.add(1));
          when(sp.last(), nextCommand);
        })
        .is(State.DSP_OUT.ordinal(), () -> {
          sp.advance();
          dspElement.set(dspElement.add(1));
          when(sp.last(), nextCommand);
        })
        .is(State.SNAPSHOT.ordinal(), () -> when(bark, () -> fail.accept(ErrorCause.WATCHDOG)).otherwise(() ->
            when(fire, () -> {
              ext.advance();
              sp.advance();
              when(ext.last(), nextCommand);
            })))
        .is(State.DONE.ordinal(), () -> when(start, () -> state.set(st(State.IDLE))))
        .is(State.ERROR.ordinal(), () -> when(start, () -> state.set(st(State.IDLE))))
        .otherwise(() -> { }));

    switchOn(back, s -> s
        .is(Back.IDLE.ordinal(), () -> when(state.eq(st(State.GEMM_START)), () -> back.set(bk(Back.RUN))))
        .is(Back.RUN.ordinal(), () -> when(drainStarts, () -> {
          drain.begin(yAddr);
          drainRows.set(gemmM.resize(16));
          drainBeats.set(dec.drainLines(gemmN.resize(16)));
          drainRem.set(gemmN.lsbs(lineShift).shiftLeft(2).lsbs(lineShift).resize(lineShift + 1));
          back.set(bk(Back.DRAIN));
        }))
        .is(Back.DRAIN.ordinal(), () -> {
          drain.advance();
          when(drain.last(), () -> back.set(bk(Back.IDLE)));
        })
        .otherwise(() -> { }));

    // An error stops the controller; finished waits for a running GEMM to drain, so the counters are final.
    finished.set(state.eq(st(State.DONE)).or(state.eq(st(State.ERROR)).and(backIdle)));
    done.set(state.eq(st(State.DONE)));
    errorCause.set(cause);
    errorCommand.set(index);
  }

  /** {@code {hi[hiBits-1:0], lo[loBits-1:0]}}, either part possibly empty. */
  private static UInt join(UInt hi, int hiBits, UInt lo, int loBits) {
    if (hiBits == 0) {
      return lo.resize(loBits);
    }
    if (loBits == 0) {
      return hi.resize(hiBits);
    }
    return cat(hi.resize(hiBits), lo.resize(loBits)).asUInt();
  }

  private static UInt bk(Back b) {
    return uintLit(b.ordinal(), 2);
  }

  private static UInt st(State s) {
    return uintLit(s.ordinal(), 5);
  }

  // Package-private access to the builder verbs for the helpers (Walker, NpuDecode, NpuCounters).

  <T extends HwValue> T reg0(String name, T type) {
    return regInit(name, type, 0);
  }

  <T extends HwValue> T wireOf(String name, T value) {
    return wire(name, value);
  }

  <M extends HwModule> M instanceOf(String name, M child) {
    return instance(name, child);
  }

  <T extends HwValue> Mem<T> memOf(String name, T type, int depth) {
    return mem(name, type, depth);
  }

  void whenElse(Bool cond, Runnable then, Runnable otherwise) {
    when(cond, then).otherwise(otherwise);
  }

  void whenDo(Bool cond, Runnable then) {
    when(cond, then);
  }

  <T> T section2(String name, java.util.function.Supplier<T> body) {
    List<T> out = new ArrayList<>();
    section(name, () -> out.add(body.get()));
    return out.get(0);
  }

  @Override
  public String moduleName() {
    NpuConfig d = NpuConfig.defaults();
    String dsp = config.dspLanes() == d.dspLanes() && config.dspRows() == d.dspRows()
        && config.dspProgramDepth() == d.dspProgramDepth() ? ""
        : "_d" + config.dspLanes() + "x" + config.dspRows() + "p" + config.dspProgramDepth();
    return "Npu_r" + config.rows() + "_s" + config.spadKiB() + "k_b" + config.spadBanks() + "_M" + config.maxM()
        + "_K" + config.maxK() + "_N" + config.maxN() + dsp
        + (config.engine().equals("systolic") ? "" : "_" + config.engine().replace('-', '_'));
  }
}
