package org.llmnpu.sw.lower;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Map;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.llmnpu.isa.Counter;
import org.llmnpu.isa.MachineParams;
import org.llmnpu.sw.io.ModelCatalog;
import org.llmnpu.sw.model.ModelConfig;

/**
 * {@link PhaseCostModel#profile} splits an extrapolated step's cycles and commands by operator and command kind
 * without changing them: the rows add up to the step's cycle and command counters (stories260K's shape, every layer
 * costed, at each fusion level); {@link PhaseCostModel#layerProfile}'s cycles with no GEMM back-end running are the
 * layer's cycles less the back-end's ({@code gemmCycles}), and its rows add up to the layer's cycles and commands.
 */
class PhaseCostProfileTest {
  @ParameterizedTest
  @EnumSource(Fusion.class)
  void rowsAddUpToTheStep(Fusion fusion) throws Exception {
    ModelConfig c = ModelCatalog.load("stories260K", 1).config();
    MachineParams p = NpuTargets.defaultNpu();
    for (int[] step : new int[][] {{16, 0}, {1, 16}}) {
      PhaseCost whole = new PhaseCostModel(c, p, 18, 16, true, 8, 0, org.llmnpu.isa.Command.DENSE, -1, fusion)
          .step(step[0], step[1], c.layers());
      Map<String, long[]> rows = new PhaseCostModel(c, p, 18, 16, true, 8, 0, org.llmnpu.isa.Command.DENSE, -1,
          fusion).profile(step[0], step[1], c.layers());
      assertEquals(whole.cycles(), rows.values().stream().mapToLong(v -> v[0]).sum(), "cycles " + fusion);
      assertEquals(whole.counter(Counter.COMMANDS), rows.values().stream().mapToLong(v -> v[1]).sum(),
          "commands " + fusion);
      assertTrue(rows.keySet().stream().anyMatch(k -> k.startsWith("QKV GEMM / gemm")), rows.keySet().toString());
      assertTrue(rows.keySet().stream().anyMatch(k -> k.startsWith("attention scores / gemm")),
          rows.keySet().toString());
    }
  }

  @ParameterizedTest
  @org.junit.jupiter.params.provider.CsvSource({"int8, false", "s2_4, false", "s2_4, true"})
  void aLayersBackEndIdleCyclesAreItsCyclesLessTheBackEnds(String format, boolean xKeep) throws Exception {
    ModelConfig c = ModelCatalog.load("stories260K", 1).config();
    MachineParams p = BlockInterleaverTest.twoBlockNpu(format).withXKeep(xKeep);
    PhaseCostModel.LayerProfile layer = new PhaseCostModel(c, p, 48, 8, true, WeightFormats.bits(format), 0,
        WeightFormats.sparsity(format), -1, Fusion.FULL).interleave(true, true).skewed(true).acrossLayers(true)
        .layerProfile(16, 0);
    PhaseCost cost = layer.cost();
    long idle = layer.rows().values().stream().mapToLong(v -> v[3]).sum();
    assertEquals(cost.cycles(), layer.rows().values().stream().mapToLong(v -> v[0]).sum(), "cycles");
    assertEquals(cost.counter(Counter.COMMANDS), layer.rows().values().stream().mapToLong(v -> v[1]).sum());
    assertEquals(cost.cycles() - cost.gemmCycles(), idle, "cycles with no back-end running");
    assertTrue(idle > 0 && idle < cost.cycles(), idle + " of " + cost.cycles());
  }

  @org.junit.jupiter.api.Test
  void theLoweringsOwnStepIsProfiledByCommandKind() throws Exception {
    ModelConfig c = ModelCatalog.load("stories260K", 1).config();
    PhaseCostModel exact = new PhaseCostModel(c, NpuTargets.defaultNpu(), 18, 16, false);
    IllegalStateException e = assertThrows(IllegalStateException.class, () -> exact.profile(16, 0, c.layers()));
    assertTrue(e.getMessage().contains("CommandKindProfile"), e.getMessage());
  }
}
