package org.llmnpu.reports.ppa;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class SramModelCimTest {
  @Test
  void anArrayReadWholeAtOnceIsAnEightTransistorComputeInMemoryArrayWithoutPortFactor() {
    SramMacro cim = new SramMacro("T", "PimMacro", "bitcells", 512, 64, 6, 64, 1, false, 1);
    assertTrue(SramModel.isComputeInMemory(cim));
    assertEquals(512 * 64 * 0.346 * 1.3 / 0.70, SramModel.areaUm2(cim, NodeScaling.Node.N45), 1e-6);
  }

  @Test
  void anOrdinaryDualPortMemoryKeepsThePortFactor() {
    SramMacro dual = new SramMacro("T", "m", "mem", 32, 64, 6, 1, 1, false, 1);
    assertFalse(SramModel.isComputeInMemory(dual));
    assertEquals(32 * 64 * 0.346 / 0.70 * 1.3, SramModel.areaUm2(dual, NodeScaling.Node.N45), 1e-6);
  }
}
