package org.llmnpu.rtl.npu;

import static org.llmnpu.hdl.Hw.bits;
import static org.llmnpu.hdl.Hw.bool;
import static org.llmnpu.hdl.Hw.boolLit;
import static org.llmnpu.hdl.Hw.mux;
import static org.llmnpu.hdl.Hw.uint;
import static org.llmnpu.hdl.Hw.uintLit;

import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;
import java.util.function.Supplier;
import org.llmnpu.hdl.Bits;
import org.llmnpu.hdl.Bool;
import org.llmnpu.hdl.HwModule;
import org.llmnpu.hdl.HwValue;
import org.llmnpu.hdl.Mem;
import org.llmnpu.hdl.UInt;
import org.llmnpu.isa.Counter;
import org.llmnpu.isa.ErrorCause;
import org.llmnpu.isa.MachineParams;
import org.llmnpu.rtl.mac.GemmEngine;

/**
 * The NPU as one system: it fetches {@code npu-isa} commands from its external memory and runs
 * them — 2-D strided DMA between the external memory and a banked scratchpad, and INT8 GEMMs on
 * the {@link GemmEngine} (MAC array with extended IC accumulation) whose operands it loads from
 * the scratchpad and whose INT32 results it drains back — with performance counters and error
 * halts. It is bit for bit the golden {@code org.llmnpu.isa.IsaSimulator}, and its cycles are the
 * {@code org.llmnpu.isa.CycleModel} exactly.
 *
 * <p><b>Ports.</b> {@code start} (while idle) with {@code programAddress} runs the program;
 * {@code finished} rises with {@code done} or an error, once no memory read is outstanding: {@code errorCause}
 * ({@link ErrorCause} code) and {@code errorCommand} (index of the failing command). The counter
 * chosen by {@code counterSelect} ({@link Counter} ordinal) is on {@code counterValue}. The memory
 * port {@code mem_*} moves one line of {@code rows} bytes per beat (valid/ready requests with a
 * write strobe, in-order read responses that are always accepted); the harness's C++ memory
 * model serves it in simulation.
 *
 * <p><b>Unit modules</b> (instances in the Verilog, each its own block {@code npu-<unit>}, lint-clean and
 * synthesized alone; {@link NpuUnitGenerators}): {@link NpuScratchpad} ({@code spad}: the banked SRAM with the one
 * write arbiter, whose requests are {@link SpadWrite}s), {@link NpuBackEnd} ({@code back}: the decoupled GEMM
 * back-end, drain and scoreboard), {@link NpuLoad4} and {@link NpuLoadMx} ({@code load4}, {@code loadMx}: the load
 * path's INT4 unpacker and MX decoders), {@link NpuWatchdog}, {@link NpuSnapshot} and {@link NpuCounters}; the GEMM
 * engine ({@code gemm}), the Vector DSP and the PPM datapaths. The controller and its command units are still built
 * into this module by helper classes (one file each, in constructor order): {@link NpuControl} is the state
 * machine; {@link NpuFetch} — the fetcher, which reads commands ahead into a command queue of
 * {@code commandQueueDepth} commands while the controller runs (the memory port serves the controller first),
 * FETCH (the controller waits for its next command) and DECODE (one cycle:
 * opcode, shape, scratchpad and memory range checks, in that order, {@link NpuDecode}; the range checks are computed as the command arrives, {@link NpuPredecode}); then the
 * command runs once it may go (else WAIT). {@link NpuDma} — LOAD issues one read per beat as the
 * memory accepts it and writes each response to the scratchpad (byte mask on a row's last beat);
 * STORE reads the scratchpad and issues masked writes; a {@code loadmx} is a LOAD whose beats pass the MX
 * element decoders ({@link NpuLoadMx}, with {@code NpuConfig.mxLoad}); LOAD4 unpacks each beat's signed INT4
 * nibbles into two INT8 lines ({@link NpuLoad4}, beats at most every other cycle); the streams of
 * DSP_TAB, DSP_PROG and SNAPSHOT. {@link NpuGemm} — GEMM copies X lines into the engine's X
 * buffer ({@code M·kTiles} cycles) and W rows into its W buffer ({@code weightRowsPerCycle} rows a
 * cycle: {@code nTiles·ceil(K/weightRowsPerCycle)} cycles), starts
 * the engine and fetches the next command; a {@code gemm wStream=1} instead starts the engine right after X and
 * streams W from the memory into the engine's W buffer in GEMM_STREAM ({@link NpuWeightStream}). {@link NpuDspCommands} — the Vector DSP commands ({@link NpuDsp}): DSP_TAB and
 * DSP_PROG stream tables and program words into the DSP's line-wide ports as the beats arrive,
 * DSP_RUN waits for its {@code done} (or stops it at {@code dspMaxRunCycles}: WATCHDOG), DSP_IN /
 * DSP_OUT move one element a cycle between the scratchpad and the DSP buffer (INT8/INT32 → FP16,
 * {@code q·2^shift} rounded once), and a dspin waits one cycle in DSP_DRAIN for its last buffer write;
 * SNAPSHOT stores the counters latched in its first cycle ({@link NpuSnapshot}). {@link NpuPpmCommands} — the PPM commands ({@link NpuPpm}, checks in
 * {@link NpuPpmDecode}): PPM_LOAD feeds {@code ppmcfg} channel records or {@code pputab} C-LUT entries
 * into the PPM one a cycle as the beats arrive, PPM_RUN / PPM_DRAIN requantize INT32 rows into INT8
 * lines ({@code M·R + L} cycles, {@code L = PpmConfig.latency()}). The controller's dispatch reaches a unit module's
 * registers through a one-cycle pulse wire ({@code gemm_take}, {@code snapshot_capture}, {@code dma_dispatch}) with
 * the command's fields, so every register updates in the same cycle as before the split.
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
 * <p><b>Watchdog</b> ({@link NpuWatchdog}). Every wait for the memory (a request not accepted, a
 * read not answered) counts cycles without progress; at {@code watchdogCycles} the NPU halts with
 * {@link ErrorCause#WATCHDOG}.
 *
 * <p>The helper units create their signals in the order of this constructor, which is the declaration
 * order of the Verilog.
 */
public final class Npu extends HwModule {
  static final int ADDR = 32;
  static final int WIDE = 52;

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
    DSP_TAB, DSP_PROG, DSP_RUN, DSP_IN, DSP_OUT, SNAPSHOT, PPM_LOAD, PPM_RUN, PPM_DRAIN, DSP_DRAIN, GEMM_STREAM }


  // Shared by the units (package-private): the machine, the controller state and the units themselves.
  final MachineParams p;
  final int line;
  final int lineShift;
  final int lineAddrBits;
  final UInt state;
  /** The controller's memory request is accepted (the fetch's: {@link NpuFetch#fire}). */
  final Bool fire;
  /** A memory response for the controller (the fetch's responses are routed to {@link NpuFetch}). */
  final Bool resp;
  final NpuScratchpad spad;
  final NpuFetch fetch;
  final NpuDecode dec;
  final NpuDma dma;
  final NpuGemm gemm;
  final NpuBackEnd back;
  final NpuDspCommands dsp;
  final NpuPpmCommands ppm;
  /** The dispatch of a {@code gemm}: the back-end takes where its results go. */
  Bool gemmTake;
  /** The dispatch of a {@code snapshot}: the snapshot unit latches the counters in the next cycle. */
  Bool snapshotCapture;
  /** A PPM item (channel record, C-LUT entry) enters the PPM: progress for the watchdog. */
  final Bool ppmItem;
  final Bool inLoad;
  final Bool inStore;
  final Bool inFetch;
  final Bool inLoad4;
  final Bool inLoad4End;
  final Bool inDspTab;
  final Bool inDspProg;
  final Bool inDspRun;
  final Bool inDspIn;
  final Bool inDspOut;
  final Bool inSnap;
  final Bool inPpmLoad;
  final Bool inPpmRun;
  final Bool inPpmDrain;

  public NpuConfig config() {
    return config;
  }

  public Npu(NpuConfig c) {
    config = c;
    p = c.machine();
    line = p.lineBytes();
    int lineBits = 8 * line;
    lineShift = Integer.numberOfTrailingZeros(line);
    lineAddrBits = Integer.numberOfTrailingZeros(p.spadBytes() / line);
    mem_req_wdata = out("mem_req_wdata", uint(lineBits));
    mem_req_wstrb = out("mem_req_wstrb", bits(line));
    mem_resp_data = in("mem_resp_data", uint(lineBits));

    state = reg0("state", uint(5));
    fetch = new NpuFetch(this);
    fire = wire("fire", bool());
    resp = fetch.ctrlResp;
    Bool in = wire("busy", state.ne(st(State.IDLE)).and(state.ne(st(State.DONE))).and(state.ne(st(State.ERROR))));
    spad = instance("spad", new NpuScratchpad(c));
    dec = fetch.decode();
    dma = new NpuDma(this);
    gemm = new NpuGemm(this);
    back = instance("back", new NpuBackEnd(c));
    gemmTake = wire("gemm_take", bool());
    gemmTake.set(boolLit(false));
    fetch.beatCounters();
    ppmItem = wire("ppm_itemEntered", bool());
    NpuWatchdog watchdog = instance("watchdog", new NpuWatchdog(c));
    watchdog.state.set(state);
    watchdog.ctrlFire.set(fire);
    watchdog.fetchFire.set(fetch.fire);
    watchdog.response.set(mem_resp_valid);
    watchdog.ppmItem.set(ppmItem);
    gemm.engine(c);
    connectBackEnd();
    dma.masks();

    inLoad = wire("inLoad", state.eq(st(State.LOAD)));
    inStore = wire("inStore", state.eq(st(State.STORE)));
    inFetch = wire("inFetch", state.eq(st(State.FETCH)));
    inLoad4 = wire("inLoad4", state.eq(st(State.LOAD4)));
    inLoad4End = wire("inLoad4End", state.eq(st(State.LOAD4_END)));
    inDspTab = wire("inDspTab", state.eq(st(State.DSP_TAB)));
    inDspProg = wire("inDspProg", state.eq(st(State.DSP_PROG)));
    inDspRun = wire("inDspRun", state.eq(st(State.DSP_RUN)));
    inDspIn = wire("inDspIn", state.eq(st(State.DSP_IN)));
    inDspOut = wire("inDspOut", state.eq(st(State.DSP_OUT)));
    inSnap = wire("inSnapshot", state.eq(st(State.SNAPSHOT)));
    inPpmLoad = wire("inPpmLoad", state.eq(st(State.PPM_LOAD)));
    inPpmRun = wire("inPpmRun", state.eq(st(State.PPM_RUN)));
    inPpmDrain = wire("inPpmDrain", state.eq(st(State.PPM_DRAIN)));

    dsp = new NpuDspCommands(this, c);
    ppm = new NpuPpmCommands(this, c);
    ppmItem.set(ppm.unit.item);
    back.ppmOutValid.set(ppm.unit.outValid);
    back.ppmCodes.set(ppm.unit.outData);
    dma.load4();
    if (p.mxLoad()) {
      dma.loadMx();
    }
    NpuSnapshot snapshot = instance("snapshot", new NpuSnapshot(c));
    snapshotCapture = wire("snapshot_capture", bool());
    snapshotCapture.set(boolLit(false));
    snapshot.capture.set(snapshotCapture);
    dma.memoryPort(snapshot);
    fetch.prefetcher(in, dma.ctrlWants, fire.and(mem_req_write.not()));
    scratchpadWritePort();

    NpuCounters counters = instance("counters", new NpuCounters(c));
    connectCounters(counters, in);
    counters.select.set(counterSelect);
    counterValue.set(counters.value);
    snapshot.counters.set(counters.values);
    new NpuControl(this, watchdog.expired);

    // An error stops the controller; finished waits for a running GEMM to drain, so the counters are final, and
    // for the memory's answers to reads still outstanding (commands read ahead), so the port is quiet.
    finished.set(state.eq(st(State.DONE)).or(state.eq(st(State.ERROR)).and(back.idle)).and(fetch.quiet()));
    done.set(state.eq(st(State.DONE)));
    errorCause.set(fetch.cause);
    errorCommand.set(fetch.index);
  }

  /** The scratchpad's requests: a drain line, a load4 line, a dspout element, a PPM row or a load beat. */
  private void scratchpadWritePort() {
    Walker sp = dma.sp;
    UInt spLine = sp.address.slice(lineShift + lineAddrBits - 1, lineShift);
    dma.loadWrite = wire("loadWrite", inLoad.and(resp));
    spad.walkLine.set(spLine);
    spad.drainReads.set(back.drainReads);
    spad.drain.connectFrom(back.write);
    spad.load4Second.connectFrom(dma.load4.second);
    spad.load4First.connectFrom(dma.load4.first);
    spad.dspOut.valid.set(inDspOut);
    spad.dspOut.data.set(dsp.unit.outData);
    spad.dspOut.mask.set(dsp.unit.outMask);
    spad.ppm.valid.set(ppm.write);
    spad.ppm.line.set(ppm.writeLine);
    spad.ppm.data.set(ppm.unit.outData);
    spad.ppm.mask.set(ppm.writeMask);
    spad.load.valid.set(dma.loadWrite);
    spad.load.data.set(dma.loadData());
    spad.load.mask.set(mux(sp.lastInRow(), dma.rowEndMask, dma.ones));
  }

  /** The GEMM back-end's inputs: the dispatch, the engine's results, the scratchpad's old line, a STORE's range. */
  private void connectBackEnd() {
    back.gemmStart.set(inState(State.GEMM_START));
    back.take.set(gemmTake);
    back.resultAddress.set(fetch.words.get(5));
    back.resultStride.set(fetch.words.get(7));
    back.resultEnd.set(dec.resultEnd);
    back.accumulateIn.set(dec.accumulate);
    back.ppmIn.set(wire("decode_gemmPpm", fetch.words.get(2).slice(21, 21).eq(1)));
    back.m.set(gemm.m);
    back.n.set(gemm.n);
    back.engineDone.set(gemm.engine.done);
    back.yData.set(gemm.engine.yData);
    gemm.engine.yAddress.set(back.yAddress);
    back.loadBusy.set(inState(State.LOAD).or(inState(State.LOAD4)).or(inState(State.LOAD4_END)));
    back.oldLine.set(spad.drainOldLine);
    back.storeStart.set(fetch.words.get(3));
    back.storeEnd.set(dec.dmaSpadEnd);
  }

  /** The counters' events, from the units' signals; {@code busy}: the NPU runs a program. */
  private void connectCounters(NpuCounters k, Bool busy) {
    Walker sp = dma.sp;
    k.clear.set(inState(State.IDLE).and(start));
    k.busy.set(busy);
    k.decode.set(inState(State.DECODE));
    NpuWeightStream ws = gemm.stream;
    k.loadBeat.set(ws == null ? dma.loadWrite.or(dma.load4Beat) : dma.loadWrite.or(dma.load4Beat).or(ws.beat));
    k.storeBeat.set(inStore.and(fire));
    // a streamed W row's short beat is its last line column
    Bool rowEnd = ws == null ? sp.lastInRow() : mux(gemm.inStream, ws.lastColumn(), sp.lastInRow());
    k.partialBeat.set(wire("partialBeat", rowEnd.and(dma.remainder.ne(0))));
    k.remainder.set(dma.remainder);
    k.readBeat.set(fire.and(mem_req_write.not()).or(fetch.fire));
    k.writeBeat.set(fire.and(mem_req_write));
    // a streamed GEMM counts its MACs in its first GEMM_STREAM cycle: its product register is ready by then
    k.gemmStart.set(ws == null ? inState(State.GEMM_START) : inState(State.GEMM_START).and(ws.streaming.not())
        .or(reg0Next("gemm_streamStarted", inState(State.GEMM_START).and(ws.streaming))));
    k.macs.set(gemm.macsRegister());
    k.denseMacs.set(gemm.denseMacs());
    k.drainStart.set(back.drainStarts);
    k.psumWritebacks.set(gemm.engine.psumWritebacks);
    NpuDsp unit = dsp.unit;
    Bool copies = inStore.and(fire).or(inState(State.GEMM_X));
    if (config.weightRowsPerCycle() == 1) {
      k.spadRead.set(copies.or(inState(State.GEMM_W)).or(inDspIn.and(unit.lineStart)).or(inPpmRun));
    } else {
      // the W copy reads several lines a cycle
      k.spadRead.set(copies.or(inDspIn.and(unit.lineStart)).or(inPpmRun));
      k.weightCopy.set(inState(State.GEMM_W));
      k.weightLines.set(gemm.weightLinesRead());
    }
    k.drainRead.set(back.drainReads);
    // dspout writes a line element by element: one line write when it starts a line
    k.spadWrite.set(spad.write.and(inDspOut.and(unit.lineStart.not()).not()));
    k.fetchCycle.set(inFetch.or(inState(State.DECODE)));
    k.dmaCycle.set(inLoad.or(inStore).or(inLoad4).or(inLoad4End).or(inSnap));
    k.gemmCycle.set(state.ge(st(State.GEMM_X)).and(state.le(st(State.GEMM_START))).or(gemm.inStream)
        .or(back.idle.not()));
    k.arrayCycle.set(inState(State.GEMM_START).or(back.running));
    k.memStall.set(mem_req_valid.and(mem_req_ready.not()));
    k.dspInstruction.set(inDspRun.and(unit.dsp.busy).and(unit.dsp.stalled.not()).and(dsp.runExpired.not()));
    k.dspElement.set(inDspIn.or(inDspOut));
    k.dspCycle.set(inDspTab.or(inDspProg).or(inDspRun).or(inDspIn).or(inDspOut).or(inState(State.DSP_DRAIN)));
    k.ppmRow.set(inPpmRun.and(sp.lastInRow()).or(back.ppmRowFed));
    k.ppmLanes.set(mux(inPpmRun, ppm.lanes.resize(k.ppmLanes.width()), gemm.n.resize(k.ppmLanes.width())));
    k.ppmCycle.set(inPpmLoad.or(inPpmRun).or(inPpmDrain));
  }

  /** Statements: halt with {@code e}. */
  void fail(ErrorCause e) {
    fetch.cause.set(uintLit(e.code(), 3));
    state.set(st(State.ERROR));
  }

  /** Whether the controller is in state {@code s}. */
  Bool inState(State s) {
    return state.eq(st(s));
  }

  static UInt st(State s) {
    return uintLit(s.ordinal(), 5);
  }

  // Package-private access to the builder verbs for the units.

  /** This module as the host of a {@link Walker}. */
  Walker.Host walkerHost() {
    return new Walker.Host() {
      @Override
      public <T extends HwValue> T reg0(String name, T type) {
        return regInit(name, type, 0);
      }

      @Override
      public void whenElse(Bool cond, Runnable then, Runnable otherwise) {
        when(cond, then).otherwise(otherwise);
      }
    };
  }

  <T extends HwValue> T reg0(String name, T type) {
    return regInit(name, type, 0);
  }

  <T extends HwValue> T regNextOf(String name, T value) {
    return regNext(name, value);
  }

  <T extends HwValue> T wireOf(String name, T value) {
    return wire(name, value);
  }

  <M extends HwModule> M instanceOf(String name, M child) {
    return instance(name, child);
  }

  /**
   * A unit's registers and instances on a clock gated by {@code enable} ({@link NpuConfig#clockGating()}); the clock
   * also runs for the first {@link #GATE_WARMUP_CYCLES} cycles after reset, while the idle units' pipelines fill
   * with their idle inputs (registers without a reset value, tag pipelines), so that an idle unit's registers do
   * not change once its clock stops.
   */
  void clockGatedOf(String bank, Bool enable, Runnable body) {
    if (gateWarmup == null && config.clockGatingMode() != org.llmnpu.hdl.ClockGating.OFF) {
      UInt age = regInit("clockGates_warmup", uint(8), 0);
      gateWarmup = wire("clockGates_warm", age.ne(GATE_WARMUP_CYCLES));
      when(gateWarmup, () -> age.set(age.add(1)));
    }
    clockGated(bank, gateWarmup == null ? enable : enable.or(gateWarmup), config.clockGatingMode(), body);
  }

  /**
   * High in the {@code cycles} cycles after {@code busy} falls (a down-counter loaded while {@code busy}): a gated
   * unit's clock runs on while its pipelines settle. Without clock gating, false (no registers).
   */
  Bool trailOf(String name, Bool busy, int cycles) {
    if (config.clockGatingMode() == org.llmnpu.hdl.ClockGating.OFF) {
      return boolLit(false);
    }
    UInt left = regInit(name, uint(Integer.SIZE - Integer.numberOfLeadingZeros(cycles)), 0);
    when(busy, () -> left.set(uintLit(cycles, left.width()))).otherwise(() ->
        when(left.ne(0), () -> left.set(left.sub(1))));
    return wire(name + "_on", left.ne(0));
  }

  /** Cycles after reset during which every gated unit's clock runs (see {@link #clockGatedOf}). */
  static final int GATE_WARMUP_CYCLES = 255;
  private Bool gateWarmup;

  <T extends HwValue> Mem<T> memOf(String name, T type, int depth) {
    return mem(name, type, depth);
  }

  When whenOf(Bool cond, Runnable then) {
    return when(cond, then);
  }

  void whenElse(Bool cond, Runnable then, Runnable otherwise) {
    when(cond, then).otherwise(otherwise);
  }

  void whenDo(Bool cond, Runnable then) {
    when(cond, then);
  }

  void switchOf(HwValue subject, Consumer<org.llmnpu.hdl.Switch> arms) {
    switchOn(subject, arms);
  }

  <T> T section2(String name, Supplier<T> body) {
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
        + (config.engine().equals("systolic") ? "" : "_" + config.engine().replace('-', '_'))
        + (config.weightRowsPerCycle() == 1 ? "" : "_w" + config.weightRowsPerCycle())
        + (config.ppu() ? "" : "_noppu") + (config.mxLoad() ? "_mx" : "")
        + (config.sparsity().equals("dense") ? "" : "_" + config.sparsity().replace(':', '_'))
        + (config.commandQueueDepth() == NpuConfig.DEFAULT_COMMAND_QUEUE_DEPTH ? "" : "_q" + config.commandQueueDepth())
        + (config.dspStages() == NpuConfig.DEFAULT_DSP_STAGES ? "" : "_e" + config.dspStages())
        + (config.clockGating().equals(NpuConfig.DEFAULT_CLOCK_GATING) ? "" : "_cg" + config.clockGating());
  }

  /** A register reset to 0 that takes {@code value} every cycle (one cycle of delay). */
  @SuppressWarnings("unchecked")
  <T extends HwValue> T reg0Next(String name, T value) {
    T r = regInit(name, (T) value.copyType(), 0);
    r.set(value);
    return r;
  }
}
