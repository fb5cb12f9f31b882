package org.llmnpu.soc;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class SpeculativeAcrossBackendsTest {
  @Test
  void theAcceptanceIsMeasuredByTheSoftwareStacksDecoder() {
    SpeculativeAcrossBackends.Acceptance int8 = SpeculativeAcrossBackends.measure("int8", 4, 32);
    SpeculativeAcrossBackends.Acceptance int4 = SpeculativeAcrossBackends.measure("int4", 4, 32);
    for (SpeculativeAcrossBackends.Acceptance a : new SpeculativeAcrossBackends.Acceptance[] {int8, int4}) {
      assertTrue(a.drafted() > 0 && a.accepted() <= a.drafted(), a.toString());
      assertEquals((double) a.accepted() / a.drafted(), a.alpha(), 1e-12, a.toString());
    }
    // a milder compression is the better draft
    assertTrue(int8.alpha() > int4.alpha(), int8 + " vs " + int4);
  }

  @Test
  void aPerfectDraftYieldsGammaPlusOneTokensPerPass() {
    SpeculativeAcrossBackends.Acceptance perfect = new SpeculativeAcrossBackends.Acceptance(1.0, 40, 40, 10, "int4",
        "perfect", 4);
    SpeculativeAcrossBackends.Acceptance none = new SpeculativeAcrossBackends.Acceptance(0.0, 40, 0, 40, "int4",
        "useless", 4);
    SpeculativeAcrossBackends.Result p = SpeculativeAcrossBackends.run("sd8gen3", "stories260K", 32, perfect);
    SpeculativeAcrossBackends.Result n = SpeculativeAcrossBackends.run("sd8gen3", "stories260K", 32, none);
    String setup = "draft on npu (int4), verifier on gpu";
    double perfectS = p.rows().stream().filter(r -> r.setup().equals(setup)).findFirst().orElseThrow().timePerTokenS();
    double noneS = n.rows().stream().filter(r -> r.setup().equals(setup)).findFirst().orElseThrow().timePerTokenS();
    assertEquals(5.0, noneS / perfectS, 1e-9);
    assertFalse(SpeculativeOutput.json(p).contains("NaN"));
  }

  @Test
  void aDraftTheNpuCannotRunIsRefusedNamingTheOption() {
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> SpeculativeAcrossBackends.measure("int4+2:4", 4, 8));
    assertEquals("--draft: 'int4+2:4' is not allowed; allowed: int4, int4-g32, int8", e.getMessage());
  }
}
