package org.llmnpu.rtl.npu;

import static org.llmnpu.hdl.Hw.bool;
import static org.llmnpu.hdl.Hw.boolLit;
import static org.llmnpu.hdl.Hw.mux;
import static org.llmnpu.hdl.Hw.uint;
import static org.llmnpu.hdl.Hw.uintLit;

import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import java.util.function.Supplier;
import org.llmnpu.hdl.Bool;
import org.llmnpu.hdl.HwModule;
import org.llmnpu.hdl.HwValue;
import org.llmnpu.hdl.Mem;
import org.llmnpu.hdl.UInt;
import org.llmnpu.hdl.ir.Signal;
import org.llmnpu.isa.ErrorCause;
import org.llmnpu.isa.MachineParams;
import org.llmnpu.rtl.npu.Npu.State;

/**
 * The NPU's controller (instance {@code ctrl} of {@link Npu}, block {@code npu-controller}): the state machine
 * ({@link NpuControl}), the command register and the decode ({@link NpuFetch}, {@link NpuDecode}; the fetcher is
 * the unit {@link NpuFetchUnit}), the DMA's steps ({@link NpuDma}; its walks and the memory port's arbitration are
 * the unit {@link NpuDmaUnit}), the GEMM control
 * ({@link NpuGemm}, {@link NpuGemmNm}, {@link NpuWeightStream}), and the DSP and PPM command sequencers
 * ({@link NpuDspCommands}/{@link NpuDsp}, {@link NpuPpmCommands}/{@link NpuPpm}/{@link NpuPpmDecode}), built by those
 * helper classes in the order of this constructor (the declaration order of its Verilog).
 *
 * <p><b>Ports.</b> The NPU's own ports ({@code start}, {@code finished}, {@code done},
 * {@code errorCause}, {@code errorCommand}, and of the memory port {@code mem_req_ready} and the responses
 * {@code mem_resp_*}, same names and meaning as
 * {@link Npu}'s), the clock-gate enables of the gated datapath units ({@code <bank>_enable}: the unit's busy
 * condition, or the warm-up after reset; only with clock gating), and one port per unit port the controller reads
 * or drives, named {@code <unit>_<port>} ({@link #io}; units in {@link NpuUnits}): the scratchpad's read and write
 * requests, the back-end's dispatch and scoreboard, the GEMM engine's operand load and start, the Vector DSP's
 * program, table and buffer ports, the PPM's configuration and line inputs, the load path's INT4/MX units, the
 * fetcher's command stream, the DMA's walks, shape and memory phase, the snapshot's beat and line, the watchdog's events and the counters' events. The controller's logic
 * is unchanged by the split: every register and every cycle is as in the flat NPU.
 */
public final class NpuController extends WalkerHostModule {
  static final int ADDR = Npu.ADDR;

  public final Bool start = in(bool());
  public final Bool finished = out(bool());
  public final Bool done = out(bool());
  public final UInt errorCause = out(uint(3));
  public final UInt errorCommand = out(uint(32));
  public final Bool mem_req_ready = in("mem_req_ready", bool());
  public final Bool mem_resp_valid = in("mem_resp_valid", bool());
  public final UInt mem_resp_data;
  /**
   * With {@code bus=axi} only (else null): the bus answered an error ({@code org.llmnpu.rtl.npu.axi.NpuAxiMaster}'s
   * sticky read/write error); a running program halts in ERROR at once (its cause register unchanged: the AXI top
   * reports the bus error's cause).
   */
  public final Bool busAbort;
  private final NpuConfig config;
  /** The units this controller faces (instantiated by the top). */
  final NpuUnits units;
  /** Unit port → this controller's port facing it, in creation order. */
  private final Map<Signal, HwValue> mirrors = new IdentityHashMap<>();
  private final List<HwValue[]> links = new ArrayList<>();
  /** Clock-gate bank (unscoped name) → its enable output; empty without clock gating. */
  private final Map<String, Bool> gateEnables = new LinkedHashMap<>();

  public NpuConfig config() {
    return config;
  }

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
  /** The memory port's request (of the DMA or the fetcher) and whether it is a write ({@link NpuDmaUnit}). */
  final Bool mem_req_valid;
  final Bool mem_req_write;
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

  public NpuController(NpuConfig c) {
    this(c, new NpuUnits(c));
  }

  NpuController(NpuConfig c, NpuUnits u) {
    config = c;
    units = u;
    p = c.machine();
    line = p.lineBytes();
    int lineBits = 8 * line;
    lineShift = Integer.numberOfTrailingZeros(line);
    lineAddrBits = Integer.numberOfTrailingZeros(p.spadBytes() / line);
    mem_resp_data = in("mem_resp_data", uint(lineBits));
    busAbort = c.axiBus() ? in("busAbort", bool()) : null;

    state = reg0("state", uint(5));
    fetch = new NpuFetch(this);
    fire = wire("fire", bool());
    resp = fetch.ctrlResp;
    Bool in = wire("busy", state.ne(st(State.IDLE)).and(state.ne(st(State.DONE))).and(state.ne(st(State.ERROR))));
    spad = u.spad;
    dec = fetch.decode();
    dma = new NpuDma(this);
    mem_req_valid = io(u.dma.mem_req_valid);
    mem_req_write = io(u.dma.mem_req_write);
    gemm = new NpuGemm(this);
    back = u.back;
    gemmTake = wire("gemm_take", bool());
    gemmTake.set(boolLit(false));
    ppmItem = wire("ppm_itemEntered", bool());
    NpuWatchdog watchdog = u.watchdog;
    io(watchdog.state).set(state);
    io(watchdog.ctrlFire).set(fire);
    io(watchdog.fetchFire).set(fetch.fire);
    io(watchdog.response).set(mem_resp_valid);
    io(watchdog.ppmItem).set(ppmItem);
    io(watchdog.streaming).set(gemm.streamBusy());
    gemm.engine(c);
    NpuUnitPorts.backEnd(this);

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
    io(back.ppmOutValid).set(ppm.unit.outValid);
    io(back.ppmCodes).set(ppm.unit.outData);
    dma.load4();
    if (p.mxLoad()) {
      dma.loadMx();
    }
    NpuSnapshot snapshot = u.snapshot;
    snapshotCapture = wire("snapshot_capture", bool());
    snapshotCapture.set(boolLit(false));
    io(snapshot.capture).set(snapshotCapture);
    dma.memoryPort(snapshot);
    fetch.prefetcher(in);
    NpuUnitPorts.scratchpadWrites(this);

    NpuUnitPorts.counters(this, u.counters, in);
    new NpuControl(this, io(watchdog.expired));
    if (busAbort != null) {
      Bool stopped = state.eq(st(State.IDLE)).or(state.eq(st(State.DONE))).or(state.eq(st(State.ERROR)));
      when(busAbort.and(stopped.not()), () -> state.set(st(State.ERROR)));
    }

    // An error stops the controller; finished waits for a running GEMM to drain, so the counters are final, and
    // for the memory's answers to reads still outstanding (commands read ahead), so the port is quiet.
    finished.set(state.eq(st(State.DONE)).or(state.eq(st(State.ERROR)).and(io(back.idle))).and(fetch.quiet()));
    done.set(state.eq(st(State.DONE)));
    errorCause.set(fetch.cause);
    errorCommand.set(fetch.index);
  }

  /**
   * This controller's port facing the unit port {@code unitPort} (a port of one of {@link #units}): an output named
   * {@code <unit>_<port>} for a unit input (the controller drives it), an input for a unit output (the controller
   * reads it). Made on first use; {@link #connectUnits} wires each to its unit port in the top.
   */
  @SuppressWarnings("unchecked")
  <T extends HwValue> T io(T unitPort) {
    Signal s = unitPort.signal();
    HwValue mine = mirrors.get(s);
    if (mine == null) {
      String unit = units.nameOf(s.owner);
      if (unit == null || !s.isPort()) {
        throw new IllegalArgumentException("not a port of an NPU unit: " + s.displayName());
      }
      String name = unit + "_" + s.displayName();
      T type = (T) unitPort.copyType();
      mine = s.role == Signal.Role.INPUT ? out(name, type) : in(name, type);
      mirrors.put(s, mine);
      links.add(new HwValue[] {unitPort, mine});
    }
    return (T) mine;
  }

  /** Statements of the top (call after instantiating this controller and the units): each unit port to its mirror. */
  void connectUnits() {
    for (HwValue[] link : links) {
      if (link[0].signal().role == Signal.Role.INPUT) {
        link[0].set(link[1]);
      } else {
        link[1].set(link[0]);
      }
    }
  }

  /**
   * The clock-gate enable of the gated unit bank {@code bank}: an output {@code <bank>_enable}, {@code enable} or the
   * warm-up after reset ({@link Npu#GATE_WARMUP_CYCLES}); nothing without clock gating. The top puts the bank's
   * instance on a clock gated by it.
   */
  void gateEnable(String bank, Bool enable) {
    if (config.clockGatingMode() == org.llmnpu.hdl.ClockGating.OFF) {
      return;
    }
    if (gateWarmup == null) {
      UInt age = regInit("clockGates_warmup", uint(8), 0);
      gateWarmup = wire("clockGates_warm", age.ne(Npu.GATE_WARMUP_CYCLES));
      when(gateWarmup, () -> age.set(age.add(1)));
    }
    Bool on = out(bank + "_enable", bool());
    on.set(enable.or(gateWarmup));
    gateEnables.put(bank, on);
  }

  /** The enable output of the gate {@code bank} ({@link #gateEnable}). */
  Bool gateEnableOf(String bank) {
    Bool on = gateEnables.get(bank);
    if (on == null) {
      throw new IllegalArgumentException("no clock gate " + bank);
    }
    return on;
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

  /** This module as the host of a {@link Walker} (the GEMM's X copy walk; the DMA's walks are in {@link NpuDmaUnit}). */
  Walker.Host walkerHost() {
    return this;
  }

  <T extends HwValue> T regNextOf(String name, T value) {
    return regNext(name, value);
  }

  /**
   * Statements of {@code body} (its registers) on a clock gated by {@code enable} ({@link HwModule#clockGated}, in the
   * NPU's {@code clockGating} mode): {@code enable} must be high in every cycle at whose end one of them changes.
   */
  void gatedOf(String bank, Bool enable, Runnable body) {
    clockGated(bank, enable, config.clockGatingMode(), body);
  }

  /**
   * Pipeline registers of {@code body} on a clock gated by {@code enable} ({@link HwModule#clockGatedPipeline}: their
   * values matter only in the cycle after one with {@code enable} high; gated in {@code checked} too).
   */
  void gatedPipelineOf(String bank, Bool enable, Runnable body) {
    clockGatedPipeline(bank, enable, config.clockGatingMode(), body);
  }

  <T extends HwValue> T wireOf(String name, T value) {
    return wire(name, value);
  }

  <M extends HwModule> M instanceOf(String name, M child) {
    return instance(name, child);
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

  private Bool gateWarmup;

  <T extends HwValue> Mem<T> memOf(String name, T type, int depth) {
    return mem(name, type, depth);
  }

  When whenOf(Bool cond, Runnable then) {
    return when(cond, then);
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
    return "NpuController" + Npu.nameSuffix(config);
  }

  /** Synthesis maps the controller with the units it drives: its paths run through the top's wiring. */
  @Override
  public boolean flattenInSynthesis() {
    return true;
  }

  /** A register reset to 0 that takes {@code value} every cycle (one cycle of delay). */
  @SuppressWarnings("unchecked")
  <T extends HwValue> T reg0Next(String name, T value) {
    T r = regInit(name, (T) value.copyType(), 0);
    r.set(value);
    return r;
  }
}
