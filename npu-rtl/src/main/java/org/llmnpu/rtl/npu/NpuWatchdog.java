package org.llmnpu.rtl.npu;

import static org.llmnpu.hdl.Hw.bitsToHold;
import static org.llmnpu.hdl.Hw.uint;

import org.llmnpu.hdl.Bool;
import org.llmnpu.hdl.UInt;
import org.llmnpu.isa.MachineParams;

/**
 * The {@link Npu}'s watchdog: in a state that waits for the memory (FETCH, LOAD, STORE, LOAD4,
 * DSP_TAB, DSP_PROG, SNAPSHOT, PPM_LOAD), a counter of cycles without progress (no request accepted, no
 * response, no state change, no PPM item); {@link #expired} at {@code watchdogCycles}, and the waiting state
 * then halts with {@code WATCHDOG}. Golden: {@code memLatency > watchdogCycles}.
 */
final class NpuWatchdog {
  final Bool expired;

  NpuWatchdog(Npu npu) {
    MachineParams p = npu.p;
    UInt state = npu.state;
    UInt watchdog = npu.reg0("watchdog", uint(bitsToHold(p.watchdogCycles())));
    Bool progress = npu.wireOf("watchdog_progress", npu.fire.or(npu.fetch.fire).or(npu.mem_resp_valid)
        .or(state.ne(npu.regNextOf("watchdog_state", state))).or(npu.ppmItem));
    Bool waiting = npu.wireOf("watchdog_waiting", npu.inState(Npu.State.FETCH).or(npu.inState(Npu.State.LOAD))
        .or(npu.inState(Npu.State.STORE)).or(npu.inState(Npu.State.LOAD4)).or(npu.inState(Npu.State.DSP_TAB))
        .or(npu.inState(Npu.State.DSP_PROG)).or(npu.inState(Npu.State.SNAPSHOT)).or(npu.inState(Npu.State.PPM_LOAD)));
    expired = npu.wireOf("watchdog_expired", watchdog.eq(p.watchdogCycles()));
    npu.whenElse(progress.or(waiting.not()), () -> watchdog.set(watchdog.sub(watchdog)),
        () -> watchdog.set(watchdog.add(1)));
  }
}
