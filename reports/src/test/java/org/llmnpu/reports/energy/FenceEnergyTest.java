package org.llmnpu.reports.energy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Locale;
import org.junit.jupiter.api.Test;
import org.llmnpu.hdl.emit.Verilog;
import org.llmnpu.hdl.emit.VerilogDesign;
import org.llmnpu.isa.Counter;
import org.llmnpu.reports.RequiredTools;
import org.llmnpu.reports.TestDesigns;
import org.llmnpu.reports.energy.CalibrationRuns.Measured;
import org.llmnpu.rtl.npu.Npu;
import org.llmnpu.rtl.npu.NpuConfig;
import org.llmnpu.verilator.SimModes;

/**
 * What the fences program's energy above idle is per, on the tiny NPU: the data-path calibration charges it all per
 * command ({@code NPU_COMMAND}), not per cycle the NPU is busy. The same 64 fences run twice, on the NPU's external
 * memory and on one {@value #EXTRA_LATENCY} cycles slower to answer a read ({@code memLatency} is the simulation's
 * memory model, not the RTL: the same netlist): the same commands, many more busy cycles (the RTL's {@code cycles}
 * counter). A per-busy-cycle energy (controller state, counters, watchdog) would make the slow run cost more above idle;
 * it costs no more (measured 2026-12-06: 94.66 nJ in 525 busy cycles, 72.76 nJ in 765: a busy cycle waiting on memory
 * draws nothing above the idle cycle, the solution per busy cycle is negative), so the commands carry it. Should this
 * fail, the NPU draws per busy cycle and the calibration needs an {@code NPU_BUSY_CYCLE} action split from the
 * commands with these two runs. The idle and fences runs are {@link CalibrationTest}'s (seed 1), shared through the PPA
 * cache.
 */
class FenceEnergyTest {
  /** Cycles the slow memory adds to every read's latency. */
  static final int EXTRA_LATENCY = 32;

  @Test
  void theFencesEnergyIsPerCommandNotPerBusyCycle() {
    RequiredTools.require("yosys", "sta");
    NpuConfig npu = TestDesigns.tinyNpu();
    NpuConfig slowMemory = npu.toBuilder().memLatency(npu.memLatency() + EXTRA_LATENCY).build();
    VerilogDesign d = Verilog.emit(new Npu(npu));
    assertEquals(d.files(), Verilog.emit(new Npu(slowMemory)).files(), "memLatency does not change the RTL");
    CalibrationRuns runs = new CalibrationRuns(TestDesigns.options(), SimModes.local(), System.out::println)
        .withGatesOpen(d);
    NpuDataPathActivity idleSim = NpuDataPathCalibration.simulate(runs, npu, 1);
    NpuDataPathActivity.Run fences = idleSim.runs().get(1);
    NpuDataPathActivity.Run slow = NpuDataPathCalibration.program(runs, d, slowMemory, "NPU fences, slow memory",
        NpuDataPathCalibration.fenceProgram(), 1);
    Measured idle = runs.power(d, idleSim.runs().get(0).name(), idleSim.runs().get(0).activity());
    Measured fast = runs.power(d, fences.name(), fences.activity());
    Measured slower = runs.power(d, slow.name(), slow.activity());
    CalibrationRuns.requireSimulated(idle, fast, slower);
    long commands = fences.counters().get(Counter.COMMANDS.key());
    long busyFast = fences.counters().get(Counter.CYCLES.key());
    long busySlow = slow.counters().get(Counter.CYCLES.key());
    assertEquals(commands, slow.counters().get(Counter.COMMANDS.key()), "the same commands");
    assertTrue(busySlow > 1.25 * busyFast, "the slow memory adds busy cycles: " + busyFast + " -> " + busySlow);
    double eFast = CalibrationRuns.aboveIdle(fast, idle);
    double eSlow = CalibrationRuns.aboveIdle(slower, idle);
    double perBusyCycle = (eSlow - eFast) / (busySlow - busyFast);
    System.out.printf(Locale.ROOT, "fences: %d busy cycles, %.4g pJ above idle; slow memory: %d busy cycles, %.4g pJ; "
        + "%d commands each -> %.4g pJ per busy cycle, %.4g pJ per command%n", busyFast, eFast, busySlow, eSlow,
        commands, perBusyCycle, (eFast - perBusyCycle * busyFast) / commands);
    assertTrue(eFast > 0, "the fences draw above idle: " + eFast + " pJ");
    // per command: the slow run's extra busy cycles add less than 5 % of what the fences draw above idle
    assertTrue(eSlow < 1.05 * eFast, "a busy cycle draws above idle (" + perBusyCycle + " pJ per busy cycle): the "
        + "fences' energy is not all per command; " + eSlow + " vs " + eFast + " pJ");
  }
}
