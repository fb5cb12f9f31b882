package org.llmnpu.reports.ppa;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class NodeScalingTest {
  @Test
  void factorsFromStillmakerBaasAtTheStatedSupplies() {
    assertEquals(0.053, NodeScaling.area(NodeScaling.Node.N45), 1e-12);
    assertEquals(0.0032, NodeScaling.area(NodeScaling.Node.N7), 1e-12);
    assertEquals(0.158, NodeScaling.delay(NodeScaling.Node.N45), 0.001);
    assertEquals(0.0410, NodeScaling.delay(NodeScaling.Node.N7), 0.0005);
    assertEquals(0.0181, NodeScaling.energy(NodeScaling.Node.N180, 1.8, NodeScaling.Node.N45), 0.0002);
    assertEquals(0.00101, NodeScaling.energy(NodeScaling.Node.N180, 1.8, NodeScaling.Node.N7), 0.00002);
  }

  @Test
  void lowerSupplyIsSlowerAndSpendsLessEnergyAtEveryNode() {
    for (NodeScaling.Node n : NodeScaling.Node.values()) {
      assertTrue(n.delayPolynomial(n.vdd * 0.8) > n.delayPolynomial(n.vdd), n.name());
      assertTrue(n.energyPolynomial(n.vdd * 0.8) < n.energyPolynomial(n.vdd), n.name());
    }
  }

  @Test
  void sramEnergyFollowsHorowitzAt45nmAndGrowsWithCapacity() {
    SramMacro eightKb64 = new SramMacro("T", "m", "mem", 64, 1024, 10, 1, 1, true, 1);
    double at45v09 = SramModel.accessEnergyPj(eightKb64, NodeScaling.Node.N45)
        / NodeScaling.energy(NodeScaling.Node.N45, 0.9, NodeScaling.Node.N45);
    assertEquals(10.0, at45v09, 1e-9, "10 pJ per 64-bit read of 8 KB at 45 nm, 0.9 V");
    SramMacro thirtyTwoKb = new SramMacro("T", "m", "mem", 64, 4096, 12, 1, 1, true, 1);
    assertEquals(2.0, SramModel.accessEnergyPj(thirtyTwoKb, NodeScaling.Node.N45)
        / SramModel.accessEnergyPj(eightKb64, NodeScaling.Node.N45), 1e-9, "32 KB costs 20 pJ");
  }
}
