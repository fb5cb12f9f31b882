package org.llmnpu.cosim.decoder;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;
import org.llmnpu.verilator.SimModes;

/**
 * Greedy speculative decoding of stories260K on the generated default NPU in Verilator (the model
 * {@code DecoderCosimTest} builds): a 1-layer draft proposes 2 tokens per pass, the 5-layer target
 * verifies them in one 3-token program; every draft and target program (prefills, draft decode steps,
 * verifications) is bit-exact with the golden ISA simulator — memory, status and every counter — with
 * RTL cycles equal to the cycle model, and the RTL session's tokens equal the golden session's and the
 * target-only greedy tokens. The run both rejects and accepts proposals (the rewind of both caches).
 */
class SpeculativeCosimTest {
  @Test
  void speculativeDecodingOnTheRtlIsBitExactAndEqualsTargetOnlyGreedy() throws Exception {
    DecoderRun.Result r = DecoderRun.run(new DecoderRun.Options("stories260K", 2, 3, "int8", DecoderRun.Engine.RTL, 3,
        1, 2), SimModes.local());
    DecoderRun.Speculative sp = r.speculative().orElseThrow();
    assertTrue(r.bitExact(), r.firstDifference().orElse(""));
    DecoderRtlSteps.assertExact("", sp.steps());
    assertArrayEquals(sp.goldenTokens(), sp.tokens(), "RTL vs golden speculative tokens");
    assertArrayEquals(r.tokens(), sp.tokens(), "speculative vs target-only greedy tokens");
    assertTrue(sp.equalsTargetOnly() && sp.equalsGolden());
    assertTrue(sp.accepted() > 0 && sp.accepted() < sp.drafted(), sp.accepted() + " of " + sp.drafted());
    assertEquals(sp.targetPasses(), sp.steps().stream().filter(s -> s.phase().equals("target verify")).count());
    assertEquals(sp.draftSteps(), sp.steps().stream().filter(s -> s.phase().equals("draft decode")).count());
    assertEquals(sp.cyclesPerToken(), sp.rtlCyclesPerToken(), 0.0);
    assertEquals(sp.targetOnlyCyclesPerToken(), sp.targetOnlyRtlCyclesPerToken(), 0.0);
    System.out.printf("speculative on the RTL (1-layer draft, gamma 2): tokens %s, accepted %d of %d, %,.0f RTL cycles "
        + "per accepted token vs %,.0f target-only: speedup %.2fx; RTL wall %.1f s%n",
        java.util.Arrays.toString(sp.tokens()), sp.accepted(), sp.drafted(), sp.rtlCyclesPerToken(),
        sp.targetOnlyRtlCyclesPerToken(), sp.rtlSpeedup(),
        sp.steps().stream().mapToDouble(DecoderRun.Step::rtlSeconds).sum());
  }
}
