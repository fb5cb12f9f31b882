package org.llmnpu.reports.ppa.bench;

import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.llmnpu.hdl.bench.BenchRecord;
import org.llmnpu.hdl.emit.Verilog;
import org.llmnpu.hdl.emit.VerilogDesign;
import org.llmnpu.reports.TestDesigns;
import org.llmnpu.reports.ppa.PpaFlow;
import org.llmnpu.reports.ppa.PpaOptions;
import org.llmnpu.reports.ppa.PpaResult;
import org.llmnpu.rtl.npu.Npu;

/**
 * Benchmark ({@code mvn -q -o -pl reports -am test -Dbench -Dtest=GatedIdleBench
 * -Dsurefire.failIfNoSpecifiedTests=false}): the idle power of the clock-gated tiny NPU ({@code TestDesigns.tinyNpu},
 * clockGating on) in OpenSTA with its gated clocks made ideal, every input held (activity 0), its gates open every
 * cycle and never: the idle energy per flip-flop and cycle of the clocked flip-flops, of the gated banks' flip-flops
 * (the difference over the clock pins moved to the gated clocks) and of the rest, to compare with the energy table's
 * {@code IDLE_FLIP_FLOP}, calibrated on ungated blocks (0.2224 pJ at 180 nm).
 */
@ExtendWith(BenchRecord.class)
class GatedIdleBench {
  private static final Pattern PINS = Pattern.compile("(\\S+) [0-9.]+ \\((\\d+) pins\\)");

  @Test
  void idlePerFlipFlopOfTheGatedTinyNpu() {
    VerilogDesign d = Verilog.emit(new Npu(TestDesigns.tinyNpu()));
    PpaOptions idle = TestDesigns.options().withActivity(0, Map.of());
    Map<String, Double> open = new TreeMap<>();
    Map<String, Double> shut = new TreeMap<>();
    d.gatedBanks().forEach(b -> {
      open.put(b.path(), 1.0);
      shut.put(b.path(), 0.0);
    });
    PpaResult on = PpaFlow.run(d, TestDesigns.tinyNpuParams(), idle.withGateDuties(open));
    PpaResult off = PpaFlow.run(d, TestDesigns.tinyNpuParams(), idle.withGateDuties(shut));
    int ffs = on.synthesis().flipFlops();
    long gated = 0;
    Matcher m = PINS.matcher(on.power().activityModel());
    while (m.find()) {
      gated += Long.parseLong(m.group(2));
    }
    double t = idle.clockNs();
    System.out.println("tiny NPU, clockGating on, activity 0, " + t + " ns: " + on.power().activityModel());
    System.out.printf(Locale.ROOT, "flip-flops %,d, of which on gated clocks %,d (clock pins moved)%n", ffs, gated);
    System.out.printf(Locale.ROOT, "gates open every cycle: %.3f mW = %.4f pJ per flip-flop and cycle%n",
        on.power().totalMw(), on.power().totalMw() * t / ffs);
    System.out.printf(Locale.ROOT, "gates never open:       %.3f mW = %.4f pJ per ungated flip-flop and cycle%n",
        off.power().totalMw(), off.power().totalMw() * t / (ffs - gated));
    System.out.printf(Locale.ROOT, "gated banks' clocks:    %.3f mW = %.4f pJ per gated flip-flop and open cycle%n",
        on.power().totalMw() - off.power().totalMw(), (on.power().totalMw() - off.power().totalMw()) * t / gated);
  }
}
