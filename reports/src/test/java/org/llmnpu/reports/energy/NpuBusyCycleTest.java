package org.llmnpu.reports.energy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Map;
import org.junit.jupiter.api.Test;
import org.llmnpu.isa.Counter;
import org.llmnpu.reports.RequiredTools;
import org.llmnpu.reports.TestDesigns;
import org.llmnpu.reports.ppa.NodeScaling;
import org.llmnpu.rtl.npu.NpuConfig;
import org.llmnpu.verilator.SimModes;

/**
 * {@code NPU_BUSY_CYCLE} is what the two fence programs measure on the tiny NPU: the same 64 fences on the NPU's
 * memory and on one with a longer read latency differ only in busy cycles, and their energies above idle differ by
 * more than a per-command table could charge (it would charge both alike); the table's busy cycle is that
 * difference per busy cycle, its command the rest of the fences' energy per command, and the two reproduce both
 * runs. The calibration's seed and GEMM are {@link CalibrationTest}'s, so its runs are shared through the PPA cache.
 */
class NpuBusyCycleTest {
  @Test
  void theBusyCycleIsWhatTheFenceProgramsMeasure() {
    RequiredTools.require("yosys", "sta");
    NpuConfig npu = TestDesigns.tinyNpu();
    Calibration c = new Calibration(TestDesigns.options(), SimModes.local(), System.out::println);
    NpuDataPathActivity activity = c.npuActivity(npu, 1);
    EnergyTable t = c.gemm(2, 2, 4, 8, 4, 1).npu(npu, TestDesigns.NPU_PPM_INPUT_LANES, 1, activity).table();
    assertTrue(t.entries().containsKey(EnergyAction.NPU_BUSY_CYCLE), "NPU_BUSY_CYCLE not measured: "
        + t.notMeasured().get(EnergyAction.NPU_BUSY_CYCLE));
    Map<String, Double> mw = c.powers();
    double clockNs = TestDesigns.options().clockNs();
    NpuDataPathActivity.Run fences = activity.runs().get(1);
    NpuDataPathActivity.Run slow = activity.runs().get(2);
    double idle = mw.get(activity.runs().get(0).name());
    // a fence program's energy above idle: nothing else in the table charges it (no scratchpad, array or PPM work)
    double fast = (mw.get(fences.name()) - idle) * clockNs * fences.activity().cycles();
    double slower = (mw.get(slow.name()) - idle) * clockNs * slow.activity().cycles();
    long busyFast = fences.counters().get(Counter.CYCLES.key());
    long busySlow = slow.counters().get(Counter.CYCLES.key());
    long commands = fences.counters().get(Counter.COMMANDS.key());
    assertEquals(commands, slow.counters().get(Counter.COMMANDS.key()), "the same commands");
    assertTrue(busySlow > 1.25 * busyFast, "the slow memory adds busy cycles: " + busyFast + " -> " + busySlow);
    System.out.printf(java.util.Locale.ROOT, "fences: %d busy cycles %.4g pJ above idle; slow memory: %d busy cycles "
        + "%.4g pJ; %d commands each%n", busyFast, fast, busySlow, slower, commands);
    assertTrue(slower > 1.1 * fast, "the slow-memory fences take more energy than a per-command table charges them ("
        + "the same as the fences): " + slower + " vs " + fast + " pJ");
    double busy = t.pj(EnergyAction.NPU_BUSY_CYCLE, NodeScaling.Node.N180);
    double command = t.pj(EnergyAction.NPU_COMMAND, NodeScaling.Node.N180);
    assertEquals((slower - fast) / (busySlow - busyFast), busy, 1e-9 * Math.abs(busy));
    assertTrue(busy > 0 && command > 0, "busy cycle " + busy + " pJ, command " + command + " pJ");
    assertEquals(fast, busyFast * busy + commands * command, 1e-9 * fast);
    assertEquals(slower, busySlow * busy + commands * command, 1e-9 * slower);
  }
}
