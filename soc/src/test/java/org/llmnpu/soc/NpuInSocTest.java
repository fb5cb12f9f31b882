package org.llmnpu.soc;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;
import org.llmnpu.reports.estimate.EstimateTarget;
import org.llmnpu.sw.estimate.CycleEstimate;
import org.llmnpu.sw.estimate.CycleEstimator;
import org.llmnpu.sw.lower.Fusion;

class NpuInSocTest {
  private static StageAnalysis.Result npuOnly(String model, int prompt, boolean hostOverhead) {
    return StageAnalysis.run(new StageAnalysis.Options("sd8gen3", model, prompt, 4, "int4", "vertical", "ours", true,
        hostOverhead, List.of("npu")));
  }

  @Test
  void withoutCpuGpuAndHostOverheadTheSocNpuTimeIsTheCycleModels() {
    for (String model : new String[] {"stories260K", "llama-3.2-3b"}) {
      int prompt = 40;
      StageAnalysis.Result r = npuOnly(model, prompt, false);
      EstimateTarget t = EstimateTarget.load("edge-64", null);
      CycleEstimate e = CycleEstimator.estimate(SocModels.of(model), t.npu().machine(), "int4", prompt,
          Fusion.VERTICAL);
      double clock = t.clockMhz() * 1e6;
      assertEquals(e.prefill().cycles() / clock, StageFindings.row(r, "prefill", "npu").orElseThrow().timeS(),
          1e-12 * e.prefill().cycles());
      assertEquals(e.decode().cycles() / clock, StageFindings.row(r, "decode", "npu").orElseThrow().timeS(),
          1e-12 * e.decode().cycles());
      // no cpu or gpu rows, and the per-stage choice is the NPU
      assertTrue(r.stages().stream().noneMatch(s -> s.backend().equals("cpu") || s.backend().equals("gpu")));
    }
  }

  @Test
  void hostOverheadAddsOneSubmissionAndCommandStreamPerProgram() {
    StageAnalysis.Result without = npuOnly("stories260K", 16, false);
    StageAnalysis.Result with = npuOnly("stories260K", 16, true);
    HostCosts h = SocPreset.load("sd8gen3").host();
    double per = (h.submissionUs().value() + h.commandStreamUs().value()) * 1e-6;
    assertEquals(StageFindings.row(without, "decode", "npu").orElseThrow().timeS() + per,
        StageFindings.row(with, "decode", "npu").orElseThrow().timeS(), 1e-12);
  }

  @Test
  void attributedOperatorCyclesAddUpToTheProgram() {
    NpuBackend npu = NpuBackend.of("edge-64", "int4", Fusion.VERTICAL);
    NpuBackend.Program p = npu.program(SocModels.of("stories260K"), OperatorGraph.Stage.DECODE, 16);
    double sum = p.opCycles().values().stream().mapToDouble(Double::doubleValue).sum();
    assertEquals(p.cycles(), sum, 1e-6 * p.cycles());
    assertTrue(p.energyJ() > 0);
  }

  @Test
  void theProgramsVectorDspCyclesGoToTheDspWorkAndTheRestToTheProducts() {
    NpuBackend npu = NpuBackend.of("edge-64", "int4", Fusion.FULL);
    var shape = SocModels.of("llama-3.2-3b");
    NpuBackend.Program p = npu.program(shape, OperatorGraph.Stage.DECODE, 64);
    double light = 0;
    double matmul = 0;
    double lightWeight = 0;
    double dspWeight = 0;
    for (Operator op : OperatorGraph.of(shape.config(), OperatorGraph.Stage.DECODE, 64)) {
      NpuBackend.Standalone s = npu.standalone(op, shape.config());
      dspWeight += s.dsp() * op.calls();
      if (op.kind().light) {
        light += p.opCycles().get(op.name());
        lightWeight += s.dsp() * op.calls();
        assertEquals(0, s.array(), op.name() + " runs on the DSP only");
      } else if (op.kind() == Operator.Kind.MATMUL) {
        matmul += p.opCycles().get(op.name());
        assertEquals(0, s.dsp(), op.name() + " runs on the array only");
      }
    }
    long dsp = p.phase().dspCycles();
    assertTrue(dsp > 0 && lightWeight < dspWeight, "attention's softmax shares the DSP pool");
    assertEquals(dsp * lightWeight / dspWeight, light, 1e-6 * dsp);
    assertTrue(matmul < p.cycles() - dsp, "matrix products share the cycles the DSP does not run");
  }

  @Test
  void thePaperNpuFallsBackAttentionToTheCpuWithTransferCost() {
    StageAnalysis.Result r = StageAnalysis.run(new StageAnalysis.Options("sd8gen3", "stories260K", 16, 4, "int4",
        "vertical", "paper", false, true, List.of("cpu", "npu")));
    StageAnalysis.StageRow npu = StageFindings.row(r, "decode", "npu-per-op").orElseThrow();
    assertEquals(List.of("attention"), npu.fallbackOps());
    StageAnalysis.OpRow fb = r.operators().stream().filter(o -> o.backend().equals("npu-per-op")
        && o.stage().equals("decode") && o.op().equals("attention")).findFirst().orElseThrow();
    StageAnalysis.OpRow cpu = r.operators().stream().filter(o -> o.backend().equals("cpu")
        && o.stage().equals("decode") && o.op().equals("attention")).findFirst().orElseThrow();
    assertEquals("cpu (fallback)", fb.ranOn());
    assertTrue(fb.callS() > cpu.callS() && fb.commS() > 0, fb + " vs " + cpu);
    assertFalse(r.findings().isEmpty());
  }
}
