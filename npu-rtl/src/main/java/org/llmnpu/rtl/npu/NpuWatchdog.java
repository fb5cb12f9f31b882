package org.llmnpu.rtl.npu;

import static org.llmnpu.hdl.Hw.bitsToHold;
import static org.llmnpu.hdl.Hw.bool;
import static org.llmnpu.hdl.Hw.uint;
import static org.llmnpu.hdl.Hw.uintLit;

import org.llmnpu.hdl.Bool;
import org.llmnpu.hdl.HwModule;
import org.llmnpu.hdl.UInt;

/**
 * The {@link Npu}'s watchdog unit: while the controller's {@link #state} is one that waits for the memory
 * (FETCH, LOAD, STORE, LOAD4, DSP_TAB, DSP_PROG, SNAPSHOT, PPM_LOAD, and WAIT while a W stream runs: {@link #streaming}), a counter of cycles without progress — no
 * request accepted ({@link #ctrlFire}, {@link #fetchFire}), no {@link #response}, no change of {@link #state}, no
 * {@link #ppmItem} — else 0. {@link #expired} is high once the counter reaches {@code watchdogCycles}, and the
 * waiting state then halts with {@code WATCHDOG}. Cycle formula: {@code expired} rises {@code watchdogCycles}
 * cycles after the last cycle with progress or outside a waiting state (golden: {@code memLatency >
 * watchdogCycles}).
 */
public final class NpuWatchdog extends HwModule {
  /** The controller's state ({@link Npu.State} ordinal). */
  public final UInt state = in(uint(5));
  public final Bool ctrlFire = in(bool());
  public final Bool fetchFire = in(bool());
  public final Bool response = in(bool());
  public final Bool ppmItem = in(bool());
  /** A streamed GEMM's W stream runs: WAIT is then a memory wait (the command waits for the stream's last write). */
  public final Bool streaming = in(bool());
  public final Bool expired = out(bool());
  private final int cycles;

  /** A watchdog of {@code c.watchdogCycles()} cycles. */
  public NpuWatchdog(NpuConfig c) {
    cycles = c.watchdogCycles();
    UInt watchdog = regInit("count", uint(bitsToHold(cycles)), 0);
    Bool progress = wire("progress", ctrlFire.or(fetchFire).or(response)
        .or(state.ne(regNext("lastState", state))).or(ppmItem));
    Bool waiting = wire("waiting", is(Npu.State.FETCH).or(is(Npu.State.LOAD)).or(is(Npu.State.STORE))
        .or(is(Npu.State.LOAD4)).or(is(Npu.State.DSP_TAB)).or(is(Npu.State.DSP_PROG)).or(is(Npu.State.SNAPSHOT))
        .or(is(Npu.State.PPM_LOAD)).or(is(Npu.State.WAIT).and(streaming)));
    expired.set(watchdog.eq(cycles));
    when(progress.or(waiting.not()), () -> watchdog.set(uintLit(0, watchdog.width())))
        .otherwise(() -> watchdog.set(watchdog.add(1)));
  }

  private Bool is(Npu.State s) {
    return state.eq(Npu.st(s));
  }

  /** Synthesized inside the NPU's top: its paths continue through the other units. */
  @Override
  public boolean flattenInSynthesis() {
    return true;
  }

  @Override
  public String moduleName() {
    return "NpuWatchdog_c" + cycles;
  }
}
