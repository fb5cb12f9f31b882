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
 * costed, at each fusion level).
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

  @org.junit.jupiter.api.Test
  void theLoweringsOwnStepIsProfiledByCommandKind() throws Exception {
    ModelConfig c = ModelCatalog.load("stories260K", 1).config();
    PhaseCostModel exact = new PhaseCostModel(c, NpuTargets.defaultNpu(), 18, 16, false);
    IllegalStateException e = assertThrows(IllegalStateException.class, () -> exact.profile(16, 0, c.layers()));
    assertTrue(e.getMessage().contains("CommandKindProfile"), e.getMessage());
  }
}
