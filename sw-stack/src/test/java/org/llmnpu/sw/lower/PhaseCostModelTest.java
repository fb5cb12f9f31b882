package org.llmnpu.sw.lower;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;
import org.llmnpu.isa.Counter;
import org.llmnpu.sw.io.ModelCatalog;
import org.llmnpu.sw.model.ModelWeights;

/** The shape-only cost model reproduces the golden simulator's counters of the lowered programs. */
class PhaseCostModelTest {
  @Test
  void matchesTheGoldenCyclesOfPrefillAndDecode() throws Exception {
    ModelWeights w = ModelCatalog.load("stories260K", 1);
    LoweredModel model = new LoweredModel(w, NpuTargets.defaultNpu(), 24, 16);
    NpuDecoder npu = new NpuDecoder(model, 4, NpuEngine.GOLDEN);
    int[] prompt = {1, 403, 407, 261, 378, 300};
    NpuDecoder.Step pre = npu.prefill(prompt, false);
    NpuDecoder.Step dec = npu.decode(301);
    PhaseCostModel cost = new PhaseCostModel(w.config(), model.machine(), 24, 4, false);
    PhaseCostModel.Cost p = cost.step(prompt.length, 0, w.config().layers());
    PhaseCostModel.Cost d = cost.step(1, prompt.length, w.config().layers());
    assertEquals(pre.counter(Counter.COMMANDS), p.commands());
    assertEquals(pre.counter(Counter.MACS), p.macs());
    assertEquals(pre.counter(Counter.EXT_READ_BEATS) * 16, p.readBytes());
    assertEquals(pre.counter(Counter.CYCLES), p.cycles());
    assertEquals(dec.counter(Counter.CYCLES), d.cycles());
    assertEquals(dec.counter(Counter.EXT_WRITE_BEATS) * 16, d.writeBytes());
    PhaseCostModel.Cost scaled = cost.step(1, prompt.length, 1);
    System.out.printf("decode: golden %d cycles, one layer costed and scaled %d (%+.3f %%)%n", d.cycles(),
        scaled.cycles(), 100.0 * (scaled.cycles() - d.cycles()) / d.cycles());
    assertEquals(d.cycles(), scaled.cycles(), d.cycles() * 0.01);
  }
}
