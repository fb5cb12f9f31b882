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
        // the smallest DSP (1 lane, 16 rows), whose loads/stores run crashed Debian's OpenSTA 2.0.17 until the SRAM
        // library gave the read data a function (SramLiberty)
        // the PiM macro at the report's calibration size (NpuEnergyCalibration.PIM_CALIBRATION_ROWS = 8): on a 2x2
        // macro the per-column registers (shift-add, accumulators), which carry their activity since flip-flop
        // outputs reach the logic, are shared by 2 rows and gave 106 pJ per row
        .gemm(2, 2, 4, 8, 4, 1).dsp(1, 16, 1).ppm(1, 1).pim(8, 8, 1, 1)
        .npu(TestDesigns.tinyNpu(), TestDesigns.NPU_PPM_INPUT_LANES, 1);
    EnergyTable t = c.table();
    for (EnergyAction a : EnergyAction.values()) {
      if (a == EnergyAction.NPU_SPAD_BYTE && t.notMeasured().containsKey(a)) {
        // a physical outcome, not a crash: the GEMM program left no energy beyond what the table charges for it,
        // and the loads and stores then carry the scratchpad side per DMA byte
        assertTrue(t.notMeasured().get(a).contains("not separable"), t.notMeasured().get(a));
        assertTrue(t.entries().get(EnergyAction.NPU_DMA_BYTE).basis().contains("scratchpad line reads and writes "
            + "included"));
        continue;
      }
      // every action is measured from its own run: OpenSTA finishes every power run on its first attempt
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
    // an idle osu018 flip-flop clocked at 10 ns: tenths of a picojoule per cycle; the pooled figure lies between
    // the blocks' own (engine, DSP, PPM, PiM macro) and each of those is within a factor 2 of it
    double ff = t.pj(EnergyAction.IDLE_FLIP_FLOP, NodeScaling.Node.N180);
    assertTrue(ff > 0.02 && ff < 2, "IDLE_FLIP_FLOP " + ff + " pJ");
    String basis = t.entries().get(EnergyAction.IDLE_FLIP_FLOP).basis();
    for (String block : new String[] {"GemmEngine", "VectorDsp", "Ppm_c1_o8_none", "Ppm_c1_o8_ppu", "PimMacro"}) {
      assertTrue(basis.contains(block), "the idle per flip-flop pools " + block + ": " + basis);
    }
    java.util.regex.Matcher each = java.util.regex.Pattern.compile("= ([0-9.e+-]+)(,| pJ)").matcher(basis);
    int blocks = 0;
    while (each.find()) {
      double own = Double.parseDouble(each.group(1));
      assertTrue(own > ff / 2 && own < ff * 2, "a block's idle per flip-flop " + own + " vs pooled " + ff + ": " + basis);
      blocks++;
    }
    assertTrue(blocks >= 5, basis);
    // the PPU's segment search and two Horner steps cost more than the requantizer's clamp alone; a PiM
    // column operation per row (8 bit-serial 1x8-bit products, its share of the adder tree and shift-add) is tens of
    // picojoules, not hundreds
    assertTrue(t.pj(EnergyAction.PPU_LOOKUP, NodeScaling.Node.N180) > 0, "PPU_LOOKUP");
    assertTrue(t.pj(EnergyAction.PIM_COLUMN, NodeScaling.Node.N180) < 50, "PIM_COLUMN");
    ObjectMapper om = new ObjectMapper();
    om.configure(JsonParser.Feature.ALLOW_NON_NUMERIC_NUMBERS, false);
    JsonNode j = om.readTree(t.json());
    assertEquals(t.entries().size(), j.get("actions").size());
    assertEquals(t.notMeasured().size(), j.get("notMeasured").size());
    System.out.print(t.text());
  }
}
