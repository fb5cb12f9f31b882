package org.llmnpu.reports.energy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.Test;
import org.llmnpu.reports.RequiredTools;
import org.llmnpu.reports.TestDesigns;
import org.llmnpu.reports.ppa.NodeScaling;
import org.llmnpu.verilator.SimModes;

/**
 * The energy table calibrated from simulated workloads on small blocks: every action gets a
 * positive energy in a physical range, the table scales down with the node, and its JSON is
 * valid.
 */
class CalibrationTest {
  @Test
  void smallBlocksGiveAPlausibleTable() throws Exception {
    RequiredTools.require("yosys", "sta");
    Calibration c = new Calibration(TestDesigns.options(), SimModes.local(), System.out::println)
        .gemm(2, 2, 4, 8, 4, 1).dsp(1, 16, 1);
    EnergyTable t = c.table();
    for (EnergyAction a : EnergyAction.values()) {
      if (a == EnergyAction.PPM_ELEMENT) {
        continue;
      }
      // Debian's OpenSTA segfaulted propagating this DSP's activity until the flow drove the netlist's
      // constants from tie ports (ConstantTies): every action is now measured from its own run
      assertFalse(t.notMeasured().containsKey(a), a + ": " + t.notMeasured().get(a));
      double pj = t.pj(a, NodeScaling.Node.N180);
      assertTrue(pj > 0 && pj < 1e5, a + " = " + pj + " pJ");
      if (a != EnergyAction.DRAM_BYTE) {
        assertTrue(t.pj(a, NodeScaling.Node.N7) < t.pj(a, NodeScaling.Node.N45)
            && t.pj(a, NodeScaling.Node.N45) < pj, a + " scales down with the node");
      }
    }
    // an 8x8-bit MAC with a 32-bit accumulator is picojoules at 180 nm, not femto- or nanojoules
    double mac = t.pj(EnergyAction.MAC, NodeScaling.Node.N180);
    assertTrue(mac > 0.05 && mac < 50, "MAC " + mac + " pJ");
    ObjectMapper om = new ObjectMapper();
    om.configure(JsonParser.Feature.ALLOW_NON_NUMERIC_NUMBERS, false);
    JsonNode j = om.readTree(t.json());
    assertEquals(t.entries().size(), j.get("actions").size());
    assertEquals(t.notMeasured().size(), j.get("notMeasured").size());
    System.out.print(t.text());
  }
}
