package org.llmnpu.reports.energy;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.EnumMap;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.llmnpu.reports.ppa.NodeScaling;

/** Counters times the table, unit by unit, by hand. */
class EnergyEstimateTest {
  private static EnergyTable table() {
    Map<EnergyAction, EnergyTable.Entry> m = new EnumMap<>(EnergyAction.class);
    m.put(EnergyAction.MAC, new EnergyTable.Entry(EnergyAction.MAC, 2.0, "test"));
    m.put(EnergyAction.MAC_2_4, new EnergyTable.Entry(EnergyAction.MAC_2_4, 3.0, "test"));
    m.put(EnergyAction.MAC_IDLE, new EnergyTable.Entry(EnergyAction.MAC_IDLE, 10.0, "test"));
    m.put(EnergyAction.PSUM_WRITEBACK, new EnergyTable.Entry(EnergyAction.PSUM_WRITEBACK, 5.0, "test"));
    m.put(EnergyAction.DRAM_BYTE, new EnergyTable.Entry(EnergyAction.DRAM_BYTE, 100.0, "test"));
    return new EnergyTable(m);
  }

  @Test
  void countersTimesTheTable() {
    Map<String, Long> c = Map.of("macs", 1000L, "psumWritebacks", 10L, "spadReads", 4L, "spadWrites", 6L,
        "dmaLoadBytes", 30L, "dmaStoreBytes", 20L, "cycles", 100L, "arrayCycles", 60L);
    var shape = new EnergyEstimate.Shape(128, 1024, false, 5.0);
    EnergyEstimate e = EnergyEstimate.of(table(), NodeScaling.Node.N180, c, shape);
    double sram = EnergyTable.sramAccessPj(128, 1024, NodeScaling.Node.N180);
    assertEquals(2000, e.byUnitPj().get("MAC array"), 1e-9);
    assertEquals(50, e.byUnitPj().get("psum write-back"), 1e-9);
    assertEquals(10 * sram, e.byUnitPj().get("scratchpad SRAM"), 1e-9);
    assertEquals(5000, e.byUnitPj().get("external memory"), 1e-9);
    assertEquals(1000, e.byUnitPj().get("clock, leakage"), 1e-9, "every cycle, computing or not");
    assertEquals(8050 + 10 * sram, e.totalPj(), 1e-9);
    assertEquals(100 * 5e-9, e.seconds(), 1e-18);
    assertEquals(2000 / (e.totalPj() * 1e-12) / 1e12, e.topsPerWatt(), 1e-12);
    // 2:4 executes half the MACs at the 2:4 energy
    EnergyEstimate s = EnergyEstimate.of(table(), NodeScaling.Node.N180, c, new EnergyEstimate.Shape(128, 1024, true, 5));
    assertEquals(1500, s.byUnitPj().get("MAC array"), 1e-9);
    // a node scales the logic, not the external memory
    EnergyEstimate n7 = EnergyEstimate.of(table(), NodeScaling.Node.N7, c, shape);
    assertEquals(5000, n7.byUnitPj().get("external memory"), 1e-9);
    assertEquals(2000 * EnergyTable.scale(NodeScaling.Node.N7), n7.byUnitPj().get("MAC array"), 1e-9);
  }
}
