package org.llmnpu.rtl.npu;

import static org.llmnpu.hdl.Hw.bits;
import static org.llmnpu.hdl.Hw.bool;
import static org.llmnpu.hdl.Hw.uint;
import static org.llmnpu.hdl.Hw.uintLit;

import org.llmnpu.hdl.Bits;
import org.llmnpu.hdl.Bool;
import org.llmnpu.hdl.HwModule;
import org.llmnpu.hdl.UInt;
import org.llmnpu.isa.Counter;
import org.llmnpu.isa.ErrorCause;
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
 * <p><b>A wiring list of units.</b> This module holds no logic of its own: its ports, the instances below, the
 * connections between them and the clock gates around the datapath instances (their enables are controller
 * outputs). Each instance is a block of its own ({@code npu-<unit>}, {@link NpuUnitGenerators}), lint-clean and
 * synthesized alone; the PPA flow flattens them into the top ({@code flattenInSynthesis}) so that paths across
 * their ports are mapped whole. Units, what each holds, and its ports:
 * <ul>
 *   <li>{@code ctrl}, {@link NpuController} — the state machine ({@link NpuControl}), the command register and
 *       the decode ({@link NpuFetch}, {@link NpuDecode}), the DMA's steps ({@link NpuDma}: load, store, load4,
 *       loadmx beats, the DSP and PPM load streams, the snapshot's stores), the GEMM control ({@link NpuGemm},
 *       {@link NpuGemmNm}, {@link NpuWeightStream}) and the DSP and PPM command sequencers
 *       ({@link NpuDspCommands}/{@link NpuDsp}, {@link NpuPpmCommands}/{@link NpuPpm}/{@link NpuPpmDecode}).
 *       Ports: the NPU's {@code start}, status, {@code mem_req_ready} and responses; the gate enables
 *       {@code <bank>_enable}; and one port per unit port it drives or reads, {@code <unit>_<port>}
 *       ({@link NpuController#io}).</li>
 *   <li>{@code fetch}, {@link NpuFetchUnit} — the fetcher: command reads ahead into the command queue, the landing
 *       register, the routing of in-order responses; ports: {@code programAddress}, the beat {@code request} stream
 *       (to the DMA's arbiter), responses, the {@code commands} stream to the controller, the predecode's words.</li>
 *   <li>{@code dma}, {@link NpuDmaUnit} — the DMA: the memory and scratchpad walks ({@link Walker}) with their
 *       shape, a beat's byte masks, the one memory port arbitrated between its beats (first) and the fetcher's;
 *       ports: walk pulses and shape from the controller, the fetcher's request, the NPU's {@code mem_req_*}.</li>
 *   <li>{@code spad}, {@link NpuScratchpad} — the banked SRAM with the one write arbiter; ports: the walk's read
 *       line, the write requests ({@link SpadWrite}: drain, load4 lines, dspout, PPM, load), read data.</li>
 *   <li>{@code back}, {@link NpuBackEnd} — the decoupled GEMM back-end: run, drain of INT32 result lines
 *       (accumulate-into, fused PPM drain), the result scoreboard; ports: the dispatch ({@code take}, result range),
 *       the engine's {@code done}/{@code yData}/{@code yAddress}, the drain's write request and old line.</li>
 *   <li>{@code gemm} — the GEMM engine ({@link GemmEngine} or the PiM engine), on the gated clock
 *       {@code gemmEngine}; ports: shape, X/W buffer writes ({@code load}), {@code start}, results.</li>
 *   <li>{@code dspPath_dsp} — the Vector DSP, gated clock {@code dspPath_dspUnit}; ports: program, table and buffer
 *       writes, {@code start}/{@code stop}, {@code done}/{@code busy}/{@code stalled}, buffer read data.</li>
 *   <li>{@code ppmPath_ppm} — the PPM ({@link org.llmnpu.rtl.ppm.LinePpm}), gated clock {@code ppmPath_ppmUnit};
 *       ports: channel records and C-LUT entries, one INT32 line in, INT8 codes out.</li>
 *   <li>{@code load4}, {@link NpuLoad4} and {@code loadMx}, {@link NpuLoadMx} (with {@code mxLoad}) — the load
 *       path's INT4 unpacker (two scratchpad write requests) and MX element decoders.</li>
 *   <li>{@code predecode}, {@link NpuPredecode} — a landing command's range checks, computed as it arrives.</li>
 *   <li>{@code watchdog}, {@link NpuWatchdog}; {@code snapshot}, {@link NpuSnapshot}; {@code counters},
 *       {@link NpuCounters} — memory-wait watchdog, counter snapshot, performance counters (their events are
 *       controller outputs; {@code counterSelect}/{@code counterValue} are the top's).</li>
 * </ul>
 *
 * <p><b>What the controller runs.</b> {@link NpuFetch} — the end of the fetcher's command stream
 * ({@link NpuFetchUnit} reads commands ahead into a command queue of {@code commandQueueDepth} commands while the
 * controller runs; the memory port serves the DMA first), FETCH (the controller waits for its next command) and DECODE (one cycle: opcode, shape, scratchpad and
 * memory range checks, in that order, {@link NpuDecode}; the range checks are computed as the command arrives,
 * {@link NpuPredecode}); then the command runs once it may go (else WAIT). {@link NpuDma} — LOAD issues one read
 * per beat as the memory accepts it and writes each response to the scratchpad (byte mask on a row's last beat);
 * STORE reads the scratchpad and issues masked writes; a {@code loadmx} is a LOAD whose beats pass the MX element
 * decoders ({@link NpuLoadMx}, with {@code NpuConfig.mxLoad}); LOAD4 unpacks each beat's signed INT4 nibbles into
 * two INT8 lines ({@link NpuLoad4}, beats at most every other cycle); the streams of DSP_TAB, DSP_PROG and
 * SNAPSHOT. {@link NpuGemm} — GEMM copies X lines into the engine's X buffer ({@code M·kTiles} cycles) and W rows
 * into its W buffer ({@code weightRowsPerCycle} rows a cycle: {@code nTiles·ceil(K/weightRowsPerCycle)} cycles),
 * starts the engine and fetches the next command; a {@code gemm wStream=1} instead starts the engine right after X
 * and streams W from the memory into the engine's W buffer beside the controller's next commands
 * ({@link NpuWeightStream}).
 * {@link NpuDspCommands} — the Vector DSP commands ({@link NpuDsp}): DSP_TAB and DSP_PROG stream tables and
 * program words into the DSP's line-wide ports as the beats arrive, DSP_RUN waits for its {@code done} (or stops
 * it at {@code dspMaxRunCycles}: WATCHDOG), DSP_IN / DSP_OUT move a chunk of up to min(line / elementBytes, lanes)
 * elements (one scratchpad line) a cycle between the scratchpad and
 * the DSP buffer (INT8/INT32 → FP16, {@code q·2^shift} rounded once), and a dspin waits one cycle in DSP_DRAIN for
 * its last buffer write; SNAPSHOT stores the counters latched in its first cycle ({@link NpuSnapshot}).
 * {@link NpuPpmCommands} — the PPM commands ({@link NpuPpm}, checks in {@link NpuPpmDecode}): PPM_LOAD feeds
 * {@code ppmcfg} channel records or {@code pputab} C-LUT entries into the PPM one a cycle as the beats arrive,
 * PPM_RUN / PPM_DRAIN requantize INT32 rows into INT8 lines ({@code M·R + L} cycles,
 * {@code L = PpmConfig.latency()}). The controller's dispatch reaches a unit module's registers through a
 * one-cycle pulse wire ({@code gemm_take}, {@code snapshot_capture}, {@code dma_dispatch}) with the command's
 * fields, so every register updates in the same cycle as in the flat NPU.
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
 * <p>The controller's helper classes create its signals in the order of {@link NpuController}'s constructor, which
 * is the declaration order of its Verilog.
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
  /** Beats of the contiguous run a request starts ({@link NpuDmaUnit#mem_req_run}); the native memory ignores it. */
  public final UInt mem_req_run = out("mem_req_run", uint(16));
  /**
   * With {@code bus=axi} only (else null): halt the running program at once, in ERROR ({@link NpuController#busAbort};
   * the AXI top drives it with its bus errors).
   */
  public final Bool bus_abort;
  /** With {@code bus=axi} only (else null): the request is the fetcher's ({@link NpuDmaUnit#mem_req_fetch}). */
  public final Bool mem_req_fetch;
  private final NpuConfig config;

  /** The controller's state {@code s} as its 5-bit code. */
  static UInt st(State s) {
    return uintLit(s.ordinal(), 5);
  }

  /** Cycles after reset during which every gated unit's clock runs ({@link NpuController#gateEnable}). */
  static final int GATE_WARMUP_CYCLES = 255;

  enum State { IDLE, FETCH, DECODE, WAIT, LOAD, STORE, GEMM_X, GEMM_W, GEMM_START, DONE, ERROR, LOAD4, LOAD4_END,
    DSP_TAB, DSP_PROG, DSP_RUN, DSP_IN, DSP_OUT, SNAPSHOT, PPM_LOAD, PPM_RUN, PPM_DRAIN, DSP_DRAIN }


  /** The controller: state machine, fetch and decode, DMA, GEMM control, DSP and PPM command sequencing. */
  final NpuController ctrl;
  final NpuUnits units;

  public NpuConfig config() {
    return config;
  }

  public Npu(NpuConfig c) {
    config = c;
    int line = c.machine().lineBytes();
    mem_req_wdata = out("mem_req_wdata", uint(8 * line));
    mem_req_wstrb = out("mem_req_wstrb", bits(line));
    mem_resp_data = in("mem_resp_data", uint(8 * line));
    bus_abort = c.axiBus() ? in("bus_abort", bool()) : null;
    mem_req_fetch = c.axiBus() ? out("mem_req_fetch", bool()) : null;

    units = new NpuUnits(c);
    NpuUnits u = units;
    ctrl = instance("ctrl", new NpuController(c, u));
    instance("fetch", u.fetch);
    instance("dma", u.dma);
    instance("spad", u.spad);
    instance("back", u.back);
    instance("watchdog", u.watchdog);
    gated("gemmEngine", "gemmEngine", "gemm", u.engine);
    gated("dspPath_dspUnit", "dspUnit", "dspPath_dsp", u.dsp);
    gated("ppmPath_ppmUnit", "ppmUnit", "ppmPath_ppm", u.ppm);
    instance("load4", u.load4);
    if (u.loadMx != null) {
      instance("loadMx", u.loadMx);
    }
    instance("predecode", u.predecode);
    instance("snapshot", u.snapshot);
    instance("counters", u.counters);
    ctrl.connectUnits();

    // the NPU's ports
    ctrl.start.set(start);
    if (bus_abort != null) {
      ctrl.busAbort.set(bus_abort);
    }
    finished.set(ctrl.finished);
    done.set(ctrl.done);
    errorCause.set(ctrl.errorCause);
    errorCommand.set(ctrl.errorCommand);
    mem_req_valid.set(u.dma.mem_req_valid);
    ctrl.mem_req_ready.set(mem_req_ready);
    u.dma.mem_req_ready.set(mem_req_ready);
    mem_req_write.set(u.dma.mem_req_write);
    mem_req_addr.set(u.dma.mem_req_addr);
    mem_req_wdata.set(u.dma.mem_req_wdata);
    mem_req_wstrb.set(u.dma.mem_req_wstrb);
    mem_req_run.set(u.dma.mem_req_run);
    if (mem_req_fetch != null) {
      mem_req_fetch.set(u.dma.mem_req_fetch);
    }
    ctrl.mem_resp_valid.set(mem_resp_valid);
    ctrl.mem_resp_data.set(mem_resp_data);
    u.fetch.programAddress.set(programAddress);
    // the memory port's arbitration (in the DMA) between the DMA's beats and the fetcher's reads
    u.dma.fetchRequest.connectFrom(u.fetch.request);
    u.fetch.dmaWants.set(u.dma.fetchWaits);
    u.fetch.dmaRead.set(u.dma.readFire);
    u.fetch.responseValid.set(mem_resp_valid);
    u.fetch.responseData.set(mem_resp_data);
    u.counters.select.set(counterSelect);
    counterValue.set(u.counters.value);

    // unit to unit: the back-end's results and drain, the load4 lines, the counters' image
    u.back.engineDone.set(u.engine.done);
    u.back.yData.set(u.engine.yData);
    u.engine.yAddress.set(u.back.yAddress);
    u.back.oldLine.set(u.spad.drainOldLine);
    u.spad.drainReads.set(u.back.drainReads);
    if (u.spad.drainReadLine != null) {
      u.spad.drainReadLine.set(u.back.drainReadLine);
    }
    u.spad.drain.connectFrom(u.back.write);
    u.spad.load4Second.connectFrom(u.load4.second);
    u.spad.load4First.connectFrom(u.load4.first);
    u.snapshot.counters.set(u.counters.values);
    // the fetcher's landing command through the predecode and back
    for (int i = 0; i < u.fetch.arriving.size(); i++) {
      u.predecode.arriving.get(i).set(u.fetch.arriving.get(i));
    }
    u.predecode.arrives.set(u.fetch.arrival);
    u.predecode.landedOpcode.set(u.fetch.landedOpcode);
    u.predecode.landedFields.set(u.fetch.landedFields);
    u.fetch.predecoded.set(u.predecode.bits);
  }

  /**
   * Instance {@code unit} named {@code name}, on the clock gate {@code bank} whose enable the controller drives
   * ({@code enable}: the controller's name of it, {@link NpuController#gateEnableOf}).
   */
  private void gated(String bank, String enable, String name, HwModule unit) {
    if (config.clockGatingMode() == org.llmnpu.hdl.ClockGating.OFF) {
      instance(name, unit);
      return;
    }
    clockGated(bank, ctrl.gateEnableOf(enable), config.clockGatingMode(), () -> instance(name, unit));
  }

  @Override
  public String moduleName() {
    return "Npu" + nameSuffix(config);
  }

  /** The parameters in a module name ({@code _r16_s256k_b4_M64_K512_N128} for the default NPU). */
  public static String nameSuffix(NpuConfig config) {
    NpuConfig d = NpuConfig.defaults();
    String dsp = config.dspLanes() == d.dspLanes() && config.dspRows() == d.dspRows()
        && config.dspProgramDepth() == d.dspProgramDepth() ? ""
        : "_d" + config.dspLanes() + "x" + config.dspRows() + "p" + config.dspProgramDepth();
    return "_r" + config.rows() + "_s" + config.spadKiB() + "k_b" + config.spadBanks() + "_M" + config.maxM()
        + "_K" + config.maxK() + "_N" + config.maxN() + dsp
        + (config.engine().equals("systolic") ? "" : "_" + config.engine().replace('-', '_'))
        + (config.weightRowsPerCycle() == 1 ? "" : "_w" + config.weightRowsPerCycle())
        + (config.ppu() ? "" : "_noppu") + (config.ppmGate() ? "_gate" : "") + (config.mxLoad() ? "_mx" : "")
        + (config.sparsity().equals("dense") ? "" : "_" + config.sparsity().replace(':', '_'))
        + (config.commandQueueDepth() == NpuConfig.DEFAULT_COMMAND_QUEUE_DEPTH ? "" : "_q" + config.commandQueueDepth())
        + (config.dspStages() == NpuConfig.DEFAULT_DSP_STAGES ? "" : "_e" + config.dspStages())
        + (config.dspPermute() ? "_perm" : "") + (config.xKeep() ? "_xkeep" : "")
        + (config.clockGating().equals(NpuConfig.DEFAULT_CLOCK_GATING) ? "" : "_cg" + config.clockGating());
  }

}
