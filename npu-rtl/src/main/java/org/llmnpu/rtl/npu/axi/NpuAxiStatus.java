package org.llmnpu.rtl.npu.axi;

import static org.llmnpu.hdl.Hw.bool;
import static org.llmnpu.hdl.Hw.mux;
import static org.llmnpu.hdl.Hw.uint;
import static org.llmnpu.hdl.Hw.uintLit;

import java.util.List;
import org.llmnpu.hdl.Bool;
import org.llmnpu.hdl.HwModule;
import org.llmnpu.hdl.UInt;
import org.llmnpu.isa.Counter;

/**
 * The glue between the NPU, its {@link NpuAxiMaster} and the AXI4-Lite control registers in the {@link NpuAxi} top
 * (instance {@code status}, block {@code npu-axi-status}): a run's busy flag, its end, its error cause and the four
 * counters the register map shows.
 *
 * <p>A run starts with the registers' {@code start} pulse (passed to the NPU as {@code npuStart}, and to the master
 * as {@code flush}). It ends when the NPU shows {@code finished} (ignored in the {@value #GUARD} cycles after the
 * start, while it still shows the previous run's) and the master is idle (every write answered), then
 * {@value #SETTLE} cycles more, in which the counter scan takes each shown counter's final value; then one
 * {@code done} pulse, or one {@code error} pulse with {@code errorCause}: the NPU's {@code ErrorCause} code (1..7),
 * {@link #BUS_READ_ERROR} after an R beat with RRESP ≠ OKAY, {@link #BUS_WRITE_ERROR} after a B with BRESP ≠ OKAY
 * (the write error wins over the read error, both over the NPU's). {@code busy} is high from the start pulse to the
 * end pulse. A bus error stops the run early: the top halts the NPU with it ({@code bus_abort}: ERROR at once, no
 * further command), so the end follows when the requests already made are answered.
 *
 * <p><b>Counters</b>: {@link #SHOWN} in order, saturated to 32 bits; {@code counterSelect} walks over them, one a cycle,
 * and each is latched when selected (so a value is at most 4 cycles old while the NPU runs, and exact at the end).
 */
public final class NpuAxiStatus extends HwModule {
  /** Error cause of a read answered with an error response. */
  public static final int BUS_READ_ERROR = 8;
  /** Error cause of a write answered with an error response. */
  public static final int BUS_WRITE_ERROR = 9;
  /** The counters at COUNTER_0..3. */
  public static final List<Counter> SHOWN = List.of(Counter.CYCLES, Counter.COMMANDS, Counter.MACS,
      Counter.MEM_STALL_CYCLES);
  /** Cycles after a start in which {@code finished} is not looked at. */
  static final int GUARD = 2;
  /** Cycles between the NPU's end (finished, master idle) and the done/error pulse. */
  public static final int SETTLE = 5;

  public final Bool start = in(bool());
  public final Bool npuStart = out(bool());
  public final Bool flush = out(bool());
  public final Bool clearErrors = out(bool());
  public final Bool finished = in(bool());
  public final UInt npuErrorCause = in(uint(3));
  public final Bool busIdle = in(bool());
  public final Bool readError = in(bool());
  public final Bool writeError = in(bool());
  public final UInt counterSelect = out(uint(5));
  public final UInt counterValue = in(uint(64));
  public final UInt counter0 = out(uint(32));
  public final UInt counter1 = out(uint(32));
  public final UInt counter2 = out(uint(32));
  public final UInt counter3 = out(uint(32));
  public final Bool busy = out(bool());
  public final Bool done = out(bool());
  public final Bool error = out(bool());
  public final UInt errorCause = out(uint(8));

  public NpuAxiStatus() {
    Bool running = regInit("running", bool(), 0);
    UInt guard = regInit("guard", uint(2), 0);
    UInt settle = regInit("settle", uint(3), 0);
    Bool ending = regInit("ending", bool(), 0);
    UInt cause = wire("cause", mux(writeError, uintLit(BUS_WRITE_ERROR, 8),
        mux(readError, uintLit(BUS_READ_ERROR, 8), npuErrorCause.resize(8))));
    Bool end = wire("end", ending.and(settle.eq(0)));
    when(start, () -> {
      running.set(true);
      guard.set(GUARD);
      ending.set(false);
    }).elseWhen(end, () -> {
      running.set(false);
      ending.set(false);
    }).elseWhen(running.and(ending.not()).and(guard.eq(0)).and(finished).and(busIdle), () -> {
      ending.set(true);
      settle.set(SETTLE - 1);
    });
    when(guard.ne(0).and(start.not()), () -> guard.set(guard.sub(1)));
    when(ending.and(settle.ne(0)), () -> settle.set(settle.sub(1)));
    done.set(end.and(cause.eq(0)));
    error.set(end.and(cause.ne(0)));
    errorCause.set(cause);
    busy.set(running);
    npuStart.set(start);
    flush.set(start.or(finished));
    clearErrors.set(start);

    // the counter scan
    UInt scan = regInit("scan", uint(2), 0);
    scan.set(scan.add(1));
    UInt select = uintLit(SHOWN.get(0).ordinal(), 5);
    for (int i = 1; i < SHOWN.size(); i++) {
      select = mux(scan.eq(i), uintLit(SHOWN.get(i).ordinal(), 5), select);
    }
    counterSelect.set(select);
    UInt[] outs = {counter0, counter1, counter2, counter3};
    for (int i = 0; i < outs.length; i++) {
      UInt latched = regInit("counter" + i + "_value", uint(32), 0);
      int index = i;
      when(scan.eq(index), () -> latched.set(mux(counterValue.msbs(32).ne(0), uintLit(0xFFFF_FFFFL, 32),
          counterValue.lsbs(32))));
      outs[i].set(latched);
    }
  }

  @Override
  public String moduleName() {
    return "NpuAxiStatus";
  }
}
