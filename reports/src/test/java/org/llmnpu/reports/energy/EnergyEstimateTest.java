package org.llmnpu.reports.energy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.EnumMap;
import java.util.List;
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
    m.put(EnergyAction.IDLE_FLIP_FLOP, new EnergyTable.Entry(EnergyAction.IDLE_FLIP_FLOP, 0.25, "test"));
    m.put(EnergyAction.PPM_ELEMENT, new EnergyTable.Entry(EnergyAction.PPM_ELEMENT, 7.0, "test"));
    m.put(EnergyAction.PPU_LOOKUP, new EnergyTable.Entry(EnergyAction.PPU_LOOKUP, 4.0, "test"));
    m.put(EnergyAction.PIM_COLUMN, new EnergyTable.Entry(EnergyAction.PIM_COLUMN, 0.5, "test"));
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

  @Test
  void theNpusDataPathsArePerCommandPerDmaBytePerScratchpadByte() {
    Map<String, Long> c = Map.of("commands", 7L, "spadReads", 4L, "spadWrites", 6L, "dmaLoadBytes", 30L,
        "dmaStoreBytes", 20L, "cycles", 100L);
    var shape = new EnergyEstimate.Shape(128, 1024, false, 5.0);
    EnergyEstimate without = EnergyEstimate.of(table(), NodeScaling.Node.N180, c, shape);
    assertFalse(without.byUnitPj().containsKey("NPU DMA"), "only when the table has the NPU's data paths");
    Map<EnergyAction, EnergyTable.Entry> m = new EnumMap<>(table().entries());
    m.put(EnergyAction.NPU_COMMAND, new EnergyTable.Entry(EnergyAction.NPU_COMMAND, 50.0, "test"));
    m.put(EnergyAction.NPU_DMA_BYTE, new EnergyTable.Entry(EnergyAction.NPU_DMA_BYTE, 3.0, "test"));
    m.put(EnergyAction.NPU_SPAD_BYTE, new EnergyTable.Entry(EnergyAction.NPU_SPAD_BYTE, 0.5, "test"));
    EnergyEstimate e = EnergyEstimate.of(new EnergyTable(m), NodeScaling.Node.N180, c, shape);
    assertEquals(7 * 50, e.byUnitPj().get("NPU commands"), 1e-9);
    assertEquals(50 * 3, e.byUnitPj().get("NPU DMA"), 1e-9);
    // 10 lines of 128 bits = 16 bytes each
    assertEquals(10 * 16 * 0.5, e.byUnitPj().get("NPU scratchpad port"), 1e-9);
    assertEquals(without.totalPj() + 350 + 150 + 80, e.totalPj(), 1e-9);
    EnergyEstimate n45 = EnergyEstimate.of(new EnergyTable(m), NodeScaling.Node.N45, c, shape);
    assertEquals(150 * EnergyTable.scale(NodeScaling.Node.N45), n45.byUnitPj().get("NPU DMA"), 1e-9);
  }

  @Test
  void idleIsTheWholeNpusFlipFlopsOnEveryCycle() {
    Map<String, Long> c = Map.of("macs", 1000L, "cycles", 100L);
    var shape = new EnergyEstimate.Shape(128, 1024, false, 5.0, 0).withFlipFlops(20_000);
    EnergyEstimate e = EnergyEstimate.of(table(), NodeScaling.Node.N180, c, shape);
    assertEquals(100 * 20_000 * 0.25, e.byUnitPj().get("clock, leakage"), 1e-9);
    // idle scales with the configuration's flip-flops, not with the work
    EnergyEstimate twice = EnergyEstimate.of(table(), NodeScaling.Node.N180, c, shape.withFlipFlops(40_000));
    assertEquals(2 * e.byUnitPj().get("clock, leakage"), twice.byUnitPj().get("clock, leakage"), 1e-9);
    assertEquals(e.byUnitPj().get("MAC array"), twice.byUnitPj().get("MAC array"), 1e-9);
    EnergyEstimate n45 = EnergyEstimate.of(table(), NodeScaling.Node.N45, c, shape);
    assertEquals(100 * 20_000 * 0.25 * EnergyTable.scale(NodeScaling.Node.N45), n45.byUnitPj().get("clock, leakage"),
        1e-9);
    // without the NPU's flip-flops only the GEMM engine's idle is known
    EnergyEstimate engineOnly = EnergyEstimate.of(table(), NodeScaling.Node.N180, c, shape.withFlipFlops(0));
    assertEquals(1000, engineOnly.byUnitPj().get("clock, leakage"), 1e-9);
    // a table without the per-flip-flop figure cannot charge a whole NPU
    Map<EnergyAction, EnergyTable.Entry> m = new EnumMap<>(table().entries());
    m.remove(EnergyAction.IDLE_FLIP_FLOP);
    EnergyTable old = new EnergyTable(m);
    IllegalArgumentException x = assertThrows(IllegalArgumentException.class,
        () -> EnergyEstimate.of(old, NodeScaling.Node.N180, c, shape));
    assertTrue(x.getMessage().contains("IDLE_FLIP_FLOP"), x.getMessage());
  }

  @Test
  void gatedFlipFlopsAreChargedOnlyInTheCyclesTheirClockRuns() {
    // 20,000 flip-flops, of which the GEMM engine's 12,000 are gated and open 30 of 100 cycles
    Map<String, Long> c = Map.of("cycles", 100L, "gemmCycles", 30L);
    var shape = new EnergyEstimate.Shape(128, 1024, false, 5.0, 0).withFlipFlops(20_000)
        .withGatedUnits(List.of(new EnergyEstimate.GatedUnit("gemmEngine", 12_000, "gemmCycles")));
    EnergyEstimate e = EnergyEstimate.of(table(), NodeScaling.Node.N180, c, shape);
    double flipFlopCycles = 8_000 * 100 + 12_000 * 30 + EnergyEstimate.GATE_CELL_FLIP_FLOPS * 100;
    assertEquals(flipFlopCycles * 0.25, e.byUnitPj().get("clock, leakage"), 1e-9);
    // a gate open every cycle costs its cell on top of the ungated design
    EnergyEstimate open = EnergyEstimate.of(table(), NodeScaling.Node.N180, Map.of("cycles", 100L, "gemmCycles", 100L),
        shape);
    assertEquals((20_000 + EnergyEstimate.GATE_CELL_FLIP_FLOPS) * 100 * 0.25, open.byUnitPj().get("clock, leakage"),
        1e-9);
    // more gated flip-flops than the NPU has is a mistake in the shape
    var wrong = shape.withGatedUnits(List.of(new EnergyEstimate.GatedUnit("gemmEngine", 30_000, "gemmCycles")));
    assertThrows(IllegalArgumentException.class, () -> EnergyEstimate.of(table(), NodeScaling.Node.N180, c, wrong));
  }

  @Test
  void ppmElementsAndThePpuTable() {
    Map<String, Long> c = Map.of("ppmElements", 300L, "cycles", 10L);
    var shape = new EnergyEstimate.Shape(128, 1024, false, 5.0, 0).withFlipFlops(1000);
    assertEquals(300 * 7.0, EnergyEstimate.of(table(), NodeScaling.Node.N180, c, shape).byUnitPj().get("PPM"), 1e-9);
    assertEquals(300 * (7.0 + 4.0), EnergyEstimate.of(table(), NodeScaling.Node.N180, c, shape.withPpu(true))
        .byUnitPj().get("PPM"), 1e-9);
    assertFalse(EnergyEstimate.of(table(), NodeScaling.Node.N180, Map.of("cycles", 10L), shape.withPpu(true))
        .byUnitPj().containsKey("PPM"), "no PPM work, no PPM term");
    // lanes wired to the read port without isolation take the other units' line reads as elements: 16-byte lines,
    // 300 elements read 75 lines themselves, the other 125 reach 4 lanes
    Map<String, Long> reads = Map.of("ppmElements", 300L, "spadReads", 200L, "cycles", 10L);
    EnergyEstimate w = EnergyEstimate.of(table(), NodeScaling.Node.N180, reads, shape.withPpu(true).withPpmInputLanes(4));
    assertEquals(125 * 4 * (7.0 + 4.0), w.byUnitPj().get("PPM inputs off the read port"), 1e-9);
    assertFalse(EnergyEstimate.of(table(), NodeScaling.Node.N180, reads, shape).byUnitPj()
        .containsKey("PPM inputs off the read port"), "isolated inputs: no term");
  }

  @Test
  void aPimEngineIsChargedPerColumnOperationInsteadOfMacs() {
    // two GEMMs on a 16x16 macro: 4x40x20 (3 K tiles, 2 N tiles) and 1x16x16
    long vectors = 4 * 3 * 2 + 1;
    Map<String, Long> c = Map.of("macs", 4L * 40 * 20 + 16 * 16, EnergyEstimate.ARRAY_VECTORS, vectors, "cycles", 10L);
    var shape = new EnergyEstimate.Shape(128, 1024, false, 5.0, 0).withFlipFlops(1000).withPimRows(16);
    EnergyEstimate e = EnergyEstimate.of(table(), NodeScaling.Node.N180, c, shape);
    assertEquals(vectors * 16 * 16 * 0.5, e.byUnitPj().get("PiM macro"), 1e-9);
    assertFalse(e.byUnitPj().containsKey("MAC array"));
    assertEquals(2.0 * (4 * 40 * 20 + 16 * 16), e.denseOps(), 1e-9);
    IllegalArgumentException x = assertThrows(IllegalArgumentException.class, () -> EnergyEstimate.of(table(),
        NodeScaling.Node.N180, Map.of("macs", 10L, "cycles", 1L), shape));
    assertTrue(x.getMessage().contains(EnergyEstimate.ARRAY_VECTORS), x.getMessage());
    assertThrows(IllegalArgumentException.class, () -> shape.withSparse24(true));
  }
}
