package org.llmnpu.soc.dllm;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Map;
import org.junit.jupiter.api.Test;
import org.llmnpu.sw.dllm.DllmSettings;

/** Diffusion decoding of stories260K on sd8gen3: deterministic figures, each mechanism's direction, the baselines. */
class DllmStudyTest {
  static DllmStudy.Options options() {
    return new DllmStudy.Options("stories260K", "sd8gen3", 16, 64,
        new DllmSettings(16, 4, 0.9, 1, 64, true, DllmSettings.Revision.CPU, 2, 0));
  }

  @Test
  void runtimeMechanismsShortenTheDecodeAndDiffusionBeatsAutoregression() throws Exception {
    DllmStudy.Result r = DllmStudy.run(options());
    System.out.print(DllmStudy.text(r));
    Map<String, Double> s = DllmStudy.seconds(r);
    double all = s.get("all mechanisms");
    assertTrue(s.get("naive memory runtime") > all, "memory runtime");
    assertTrue(s.get("revision on the NPU") >= all, "dual path");
    assertTrue(s.get("no prefix KV reuse") > all, "prefix reuse");
    assertTrue(s.get("no llada mechanism") > all, "all off");
    // stories260K's passes are submission-bound (the CPU alone is faster); LLaMA-3-8B's shape is weight-bound: each
    // diffusion pass streams the weights once for many tokens, the autoregressive model once a token
    assertTrue(r.largeSpeedupVsAutoregressive() > 2, "large vs AR " + r.largeSpeedupVsAutoregressive());
    assertTrue(r.speedupVsAutoregressive() > 1, "vs AR " + r.speedupVsAutoregressive());
    assertTrue(r.passes() < 64, "fewer passes than tokens");
    assertEquals(DllmStudy.json(r), DllmStudy.json(DllmStudy.run(options())));
  }
}
