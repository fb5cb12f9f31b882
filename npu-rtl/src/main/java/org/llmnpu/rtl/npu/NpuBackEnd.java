package org.llmnpu.rtl.npu;

import static org.llmnpu.hdl.Hw.bits;
import static org.llmnpu.hdl.Hw.bitsToHold;
import static org.llmnpu.hdl.Hw.bool;
import static org.llmnpu.hdl.Hw.mux;
import static org.llmnpu.hdl.Hw.uint;
import static org.llmnpu.hdl.Hw.uintLit;

import org.llmnpu.hdl.Bits;
import org.llmnpu.hdl.Bool;
import org.llmnpu.hdl.UInt;
import org.llmnpu.rtl.mac.GemmEngineConfig;

/**
 * The {@link Npu}'s decoupled GEMM back-end and drain unit: IDLE → RUN when a GEMM starts ({@link #gemmStart});
 * at the engine's {@link #engineDone}, in the first cycle no load holds the scratchpad's write port
 * ({@link #loadBusy} low), RUN → DRAIN ({@link #drainStarts}), which writes the {@code M·ceil(4N / line)} result
 * lines on {@link #write} (line q of a row: the sign-extended INT32 outputs {@code q·line/4 ..} of N tile
 * {@code q/4}, read from the engine at {@link #yAddress}, little-endian; a row's last line byte-masked), one a
 * cycle, then IDLE. A GEMM's dispatch ({@link #take}) gives where its results go ({@link #resultAddress},
 * {@link #resultStride}) and the end of its result bytes; a scoreboard holds that byte range so a STORE outside
 * it ({@link #storeClear} for the store's {@link #storeStart} .. {@link #storeEnd}; {@link #copyClear} for a DSP
 * copy's {@link #copyStart} .. {@link #copyEnd}) may go while the back-end runs. A GEMM with the accumulate-into flag drains {@code Y + result} (each 32-bit lane added with wraparound to
 * the old line {@link #oldLine}, which the scratchpad reads in the same cycle, {@link #drainReads}): no extra
 * cycles; its scoreboard range is still Y (the bytes it reads and writes), but its drain uses the read port
 * ({@link #drainReadsY}): every STORE waits for the back-end, and a DSPIN clear of Y holds the drain's start, or
 * pauses the running drain, while it reads ({@link #loadBusy}).
 *
 * <p><b>Sharing the port with a DSP copy.</b> While a DSPOUT writes the scratchpad, or a DSPIN reads it beside a drain
 * that reads ({@link #loadBusy} in DRAIN), the copy has the port and the drain pauses: no line is written, read or fed
 * to the PPM, and the drain's walks and line count hold; it resumes the cycle after. A drain through the PPM pauses
 * its feed only (its codes in flight still land, on the write port, which a DSPIN does not use); a DSPOUT beside such
 * a drain stops its feed (and its start) from the DSPOUT's decode ({@link #holdFeed}) and dispatches once no code is
 * in flight ({@link #codesInFlight}, {@code NpuControl}): the drain pauses from the decode to the DSPOUT's end.
 *
 * <p><b>Through the PPM</b> ({@code gemm ppm=1}, {@link #ppmIn} at dispatch): the drain reads the same lines, but
 * feeds each to the PPM ({@link #ppmFeed}, {@link #ppmLine}, {@link #ppmGroup} = the line's index in its row: its
 * columns' channels) instead of writing it; the PPM's codes come back {@code L} cycles later ({@link #ppmOutValid},
 * {@link #ppmCodes}, repeated in each quarter of the line) and are written with byte enables at
 * {@code y + m·yStride + q·line/4} (a second walk, advanced by each output; a row's last line masked to N). After
 * the drain's last line the back-end waits in TAIL for the last codes, then is idle.
 *
 * <p><b>Gated</b> ({@code gemm ppm=1 gate=1}, {@link #gatedIn} at dispatch; built only with {@code ppmGate}): a third
 * walk, in step with the drain, gives the Y bytes of each fed line's codes, {@code y + m·yStride + q·line/4}; the
 * drain reads that line over the scratchpad's read port ({@link #drainReadLine}, {@link #drainReads}, the data on
 * {@link #oldLine}) as the accumulate-into drain reads its old line, and the line's quarter goes to the PPM with the
 * results ({@link #ppmGates}, {@link #ppmGated}): the INT8 gate codes each result is multiplied by, which its code
 * then overwrites in place. The scoreboard holds Y (the gate lines are the Y lines the codes overwrite) and
 * {@link #drainReadsY}, as an accumulating drain's. No added cycle; the
 * counters count one read a row per 4 drain lines ({@link #drainReadCounted}: the line holds the codes of 4 lines).
 *
 * <p><b>Wide PPM</b> ({@code ppmWide}: the PPM has {@code line} lanes): a fused drain reads a whole N tile of a
 * result row a cycle (the engine's {@code line} per-column result memories at one address, {@link #yAddress} = row,
 * tile) and feeds its {@code line} INT32 results ({@link #ppmLine}, {@link #ppmGroup} = the tile) to the PPM; the
 * {@code line} codes come back {@code L} cycles later and are written as one line at {@code y + m·yStride + t·line}
 * (a row's last line masked to N). Gated, the gate walk reads the whole line of gate codes at the same address, one
 * counted read a drain line. Same codes and bytes; {@code M·ceil(N / line)} drain cycles instead of
 * {@code M·ceil(4N / line)}. A drain of INT32 results (no PPM) is unchanged.
 *
 * <p>The drain stage (its walks, the line's results and the accumulate-into sum, the write port, the feed to the
 * PPM and the gate codes, the codes-in-flight counter) is built by {@link NpuDrainStage} into this module; the
 * back-end keeps the dispatched GEMM's registers, the IDLE → RUN → DRAIN → TAIL state and the scoreboard.
 *
 * <p>Cycle formula ({@code org.llmnpu.isa.CycleModel}, Overlap): the drain starts in the first cycle after the
 * engine's done that is not a load's or a dspout's (or a dspin's beside a drain that reads: {@link #loadBusy}), and
 * takes {@code M·ceil(4N / line)} cycles, {@code + L} with the PPM ({@code MachineParams.ppmDrainLines}: with a wide
 * PPM {@code M·ceil(N / line) + L}), plus every cycle of a DSP copy that pauses it ({@code GemmBackEnd#shareDrain}).
 */
public final class NpuBackEnd extends WalkerHostModule implements NpuDrainStage.Host {
  enum State { IDLE, RUN, DRAIN, TAIL }

  /** The controller starts the engine. */
  public final Bool gemmStart = in(bool());
  /** A GEMM is dispatched: take {@link #resultAddress}, {@link #resultStride}, {@link #resultEnd}, {@link #accumulateIn}. */
  public final Bool take = in(bool());
  public final UInt resultAddress = in(uint(Npu.ADDR));
  public final UInt resultStride = in(uint(Npu.ADDR));
  /** End (exclusive) of the GEMM's result bytes, 52 bits. */
  public final UInt resultEnd = in(uint(52));
  public final Bool accumulateIn = in(bool());
  /** The dispatched GEMM routes its results through the PPM ({@code ppm=1}). */
  public final Bool ppmIn = in(bool());
  /** Its PPM parameter bank ({@code ppm=2}: 1). */
  public final Bool ppmBankIn = in(bool());
  /** The PPM's codes of a fed line are valid (L cycles after it was fed). */
  public final Bool ppmOutValid = in(bool());
  /** The PPM's {@code line/4} codes, repeated in each quarter of a line. */
  public final UInt ppmCodes;
  /** The running GEMM's shape (the GEMM unit's registers). */
  public final UInt m;
  public final UInt n;
  public final Bool engineDone = in(bool());
  public final Bits yData;
  public final UInt yAddress;
  /**
   * A LOAD, LOAD4 or DSPOUT holds the scratchpad's write port, or a DSPIN its read port beside a {@link #drainReadsY}:
   * the drain does not start, and a running drain pauses (only a DSP copy runs beside one).
   */
  public final Bool loadBusy = in(bool());
  /**
   * A DSPOUT clear of the results waits (DECODE, WAIT) beside a drain through the PPM: the drain feeds no line and
   * does not start, so the codes in flight land before the DSPOUT writes ({@link #codesInFlight}).
   */
  public final Bool holdFeed = in(bool());
  /** A fused drain fed a line in the last {@code L − 1} cycles: its codes land on the write port after this cycle. */
  public final Bool codesInFlight = out(bool());
  /** The scratchpad's data at the drain's line (the accumulate-into drain's old line). */
  public final UInt oldLine;
  /** A STORE's scratchpad bytes: start (its word 3) and end (exclusive, 52 bits). */
  public final UInt storeStart = in(uint(Npu.ADDR));
  public final UInt storeEnd = in(uint(52));
  /** A DSPIN's or DSPOUT's scratchpad bytes: start (its word 1) and end (exclusive, 52 bits). */
  public final UInt copyStart = in(uint(Npu.ADDR));
  public final UInt copyEnd = in(uint(52));
  /** The drain's line writes. */
  public final SpadWrite write;
  public final Bool drainReads = out(bool());
  /** A drain line goes to the PPM this cycle: {@link #ppmLine}, of group {@link #ppmGroup}. */
  public final Bool ppmFeed = out(bool());
  public final UInt ppmLine;
  public final UInt ppmGroup;
  /** A fused drain ends a result row this cycle: N elements through the PPM (the counters' ppmElements). */
  public final Bool ppmRowFed = out(bool());
  public final Bool idle = out(bool());
  /** The parameter bank the last dispatched GEMM's PPM reads (held after it). */
  public final Bool ppmBank = out(bool());
  /** The last dispatched GEMM goes through the PPM (held after it): with {@link #ppmBank}, the bank a ppmcfg may not write. */
  public final Bool ppmReads = out(bool());
  /** The engine runs (RUN and not done). */
  public final Bool running = out(bool());
  public final Bool drainStarts = out(bool());
  /** A LOAD may start: no drain starts or runs. */
  public final Bool loadMayStart = out(bool());
  /** A STORE of {@link #storeStart} .. {@link #storeEnd} reads none of the running GEMM's results. */
  public final Bool storeClear = out(bool());
  /** A DSPIN or DSPOUT of {@link #copyStart} .. {@link #copyEnd} touches none of the running GEMM's results. */
  public final Bool copyClear = out(bool());
  /**
   * The last dispatched GEMM's drain reads the scratchpad (it accumulates or gates; held after it): a STORE waits for
   * the back-end, a DSPIN clear of its results holds the drain's start, or pauses the drain, while it reads.
   */
  public final Bool drainReadsY = out(bool());
  /** Gated only (else null): the dispatched GEMM has {@code gate=1}. */
  public final Bool gatedIn;
  /** Gated only (else null): the line the drain reads (the gate's or, accumulating, the one it overwrites). */
  public final UInt drainReadLine;
  /** Gated only (else null): the fed line's gate codes ({@code line/4} INT8, 0 between lines), and their valid. */
  public final UInt ppmGates;
  public final Bool ppmGated;
  /** Gated only (else null): a drain read the counters count (an accumulating line, or a gate line once). */
  public final Bool drainReadCounted;
  private final NpuConfig config;

  /** The back-end of an NPU of configuration {@code c} (its engine's shape, its lines). */
  public NpuBackEnd(NpuConfig c) {
    config = c;
    GemmEngineConfig gc = c.gemm();
    int line = c.machine().lineBytes();
    int lineAddrBits = Integer.numberOfTrailingZeros(c.machine().spadBytes() / line);
    m = in(uint(bitsToHold(gc.maxM())));
    n = in(uint(bitsToHold(gc.maxN())));
    yData = in(bits(gc.array().accWidth() * gc.array().cols()));
    yAddress = out(uint(gc.mBits() + gc.nTileBits()));
    oldLine = in(uint(8 * line));
    write = master(new SpadWrite(line, lineAddrBits));
    ppmCodes = in(uint(8 * line));
    int lanes = NpuPpm.lanes(c.machine());
    ppmLine = out(uint(32 * lanes));
    int depth = org.llmnpu.rtl.ppm.LinePpm.depth(NpuPpm.config(c.machine(), c.ppu()), c.machine().ppmChannels());
    ppmGroup = out(uint(Math.max(1, org.llmnpu.hdl.Hw.log2Ceil(depth))));
    boolean gate = c.ppmGate();
    gatedIn = gate ? in("gatedIn", bool()) : null;
    drainReadLine = gate ? out("drainReadLine", uint(lineAddrBits)) : null;
    ppmGates = gate ? out("ppmGates", uint(8 * lanes)) : null;
    ppmGated = gate ? out("ppmGated", bool()) : null;
    drainReadCounted = gate ? out("drainReadCounted", bool()) : null;

    UInt yAddr = regInit("gemmY", uint(Npu.ADDR), 0);
    UInt yStride = regInit("gemmYStride", uint(Npu.ADDR), 0);
    UInt state = regInit("state", uint(2), 0);
    Bool accumulate = regInit("accumulate", bool(), 0);
    Bool throughPpm = regInit("throughPpm", bool(), 0);
    Bool bankReg = regInit("ppmBankReg", bool(), 0);
    ppmBank.set(bankReg);
    ppmReads.set(throughPpm);
    NpuDrainStage stage = new NpuDrainStage(this, c, yStride, state, accumulate, throughPpm);
    Walker drain = stage.drain;
    Walker codes = stage.codes;
    Bool gated = stage.gated;
    Bool inDrain = stage.inDrain;
    Bool inTail = stage.inTail;
    Bool drainMoves = stage.drainMoves;
    Bool codeWrite = stage.codeWrite;
    idle.set(state.eq(st(State.IDLE)));
    running.set(state.eq(st(State.RUN)).and(engineDone.not()));
    Bool starts = wire("drainStarts", state.eq(st(State.RUN)).and(engineDone).and(loadBusy.not())
        .and(holdFeed.not()));
    drainStarts.set(starts);
    loadMayStart.set(inDrain.or(inTail).or(starts).not());

    // the scoreboard
    UInt resultLo = regInit("resultStart", uint(52), 0);
    UInt resultHi = regInit("resultEnd", uint(52), 0);
    Bool readsYReg = regInit("drainReadsY", bool(), 0);
    drainReadsY.set(readsYReg);
    storeClear.set(storeStart.resize(52).ge(resultHi).or(storeEnd.le(resultLo)).and(readsYReg.not()));
    copyClear.set(copyStart.resize(52).ge(resultHi).or(copyEnd.le(resultLo)));
    when(take, () -> {
      yAddr.set(resultAddress);
      yStride.set(resultStride);
      accumulate.set(accumulateIn);
      throughPpm.set(ppmIn);
      bankReg.set(ppmBankIn);
      // an accumulating (or gated) drain reads its Y lines (the old Y, the gate codes) over the read port: the
      // result range stays Y, and the read port is the drain's (drainReadsY)
      if (gate) {
        gated.set(gatedIn);
      }
      readsYReg.set(gate ? accumulateIn.or(gatedIn) : accumulateIn);
      resultLo.set(resultAddress.resize(52));
      resultHi.set(resultEnd);
    });

    Walker gw0 = stage.gateWalk;
    switchOn(state, s -> s
        .is(State.IDLE.ordinal(), () -> when(gemmStart, () -> state.set(st(State.RUN))))
        .is(State.RUN.ordinal(), () -> when(starts, () -> {
          stage.begin(yAddr, m, n);
          state.set(st(State.DRAIN));
        }))
        .is(State.DRAIN.ordinal(), () -> {
          when(drainMoves, () -> {
            drain.advance();
            if (gate) {
              gw0.advance();
            }
            when(drain.last(), () -> state.set(mux(throughPpm, st(State.TAIL), st(State.IDLE))));
          });
          when(codeWrite, codes::advance);
        })
        .is(State.TAIL.ordinal(), () -> {
          when(codeWrite, codes::advance);
          when(codeWrite.and(codes.last()), () -> state.set(st(State.IDLE)));
        })
        .otherwise(() -> { }));
  }

  static UInt st(State s) {
    return uintLit(s.ordinal(), 2);
  }

  @Override
  public <T extends org.llmnpu.hdl.Data> T named(String name, T value) {
    return wire(name, value);
  }

  @Override
  public void inSection(String name, Runnable body) {
    section(name, body);
  }

  @Override
  public When whenThen(Bool cond, Runnable then) {
    return when(cond, then);
  }

  /** Synthesized inside the NPU's top: its paths continue through the other units. */
  @Override
  public boolean flattenInSynthesis() {
    return true;
  }

  @Override
  public String moduleName() {
    GemmEngineConfig gc = config.gemm();
    return "NpuBackEnd_l" + config.machine().lineBytes() + "_s" + config.spadKiB() + "k_a" + config.accWidth()
        + "_M" + gc.maxM() + "_N" + gc.maxN() + (config.ppmGate() ? "_g" : "") + (config.ppmWide() ? "_w" : "");
  }
}
