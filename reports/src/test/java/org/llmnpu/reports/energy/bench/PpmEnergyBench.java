package org.llmnpu.reports.energy.bench;

import java.util.Locale;
import org.junit.jupiter.api.Test;
import org.llmnpu.reports.TestDesigns;
import org.llmnpu.reports.energy.Calibration;
import org.llmnpu.reports.energy.EnergyAction;
import org.llmnpu.reports.energy.EnergyTable;
import org.llmnpu.reports.ppa.NodeScaling;
import org.llmnpu.verilator.SimModes;

/**
 * Benchmark (-Pbench): the energy per element of the NPU's line-rate PPM ({@code LinePpm}) as the energy
 * calibration measures it ({@code Calibration.ppm}): {@code PPM_ELEMENT} and {@code PPU_LOOKUP} at 180 nm on the
 * default NPU's four lanes ({@code -Dlanes=}), at the NPU's 5.75 ns clock.
 */
class PpmEnergyBench {
  @Test
  void ppmElementEnergy() {
    int lanes = Integer.getInteger("lanes", 4);
    Calibration c = new Calibration(TestDesigns.options().withClockNs(5.75), SimModes.local(), System.out::println)
        .ppm(lanes, 1);
    EnergyTable t = c.table();
    for (EnergyAction a : new EnergyAction[] {EnergyAction.PPM_ELEMENT, EnergyAction.PPU_LOOKUP}) {
      if (t.notMeasured().containsKey(a)) {
        System.out.println(a + ": not measured: " + t.notMeasured().get(a));
      } else {
        System.out.printf(Locale.ROOT, "%s on a %d-lane LinePpm: %.3f pJ at 180 nm (%s)%n", a, lanes,
            t.pj(a, NodeScaling.Node.N180), t.entries().get(a).basis());
      }
    }
  }
}
