package org.llmnpu.soc.shadow;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;
import org.llmnpu.isa.MachineParams;
import org.llmnpu.reports.estimate.EstimateTarget;
import org.llmnpu.soc.SocPreset;
import org.llmnpu.sw.shadow.EstimationProgram;

/** The head-wise pipeline's schedules on sd8gen3 with the edge-64 NPU's cycle model. */
class ShadowPipelineTest {
  private static final SocPreset SD = SocPreset.load("sd8gen3");

  @Test
  void schedulesOrderAsThePapersAndMergingSavesSubmissions() {
    ShadowPipeline pipe = ShadowStudy.pipeline("sd8gen3");
    int heads = 32;
    int[] keep = new int[heads];
    int[] graph = new int[heads];
    for (int h = 0; h < heads; h++) {
      keep[h] = 64 + 8 * (h % 5);
      graph[h] = h % 4;
    }
    ShadowPipeline.Result r = pipe.run(new ShadowPipeline.Layer("x", heads, heads, 128, 1024, keep, graph));
    assertTrue(r.headwiseS() < r.serialS(), r.toString());
    assertTrue(r.outOfOrderS() <= Math.min(r.mergedS(), r.headwiseS()), r.toString());
    assertEquals(32, r.headPrograms());
    assertEquals(4, r.mergedPrograms());
    assertEquals(r.serialS(), r.estimationS() + r.topkS() + r.sparseS(), 1e-12);
    assertTrue(r.denseCpuS() > r.outOfOrderS(), "sparse attention beats dense FP32 on the CPU at 1024: " + r);
    java.util.Arrays.fill(keep, 8);
    ShadowPipeline.Result npuBound = pipe.run(new ShadowPipeline.Layer("x", heads, heads, 128, 1024, keep, graph));
    assertTrue(npuBound.mergedS() < npuBound.headwiseS(), "NPU-bound, merging 32 programs into 4 pays: " + npuBound);
    assertTrue(npuBound.outOfOrderS() <= npuBound.mergedS());
  }

  @Test
  void johnsonsOrderIsTheBestOfEveryOrderOfFourJobs() {
    java.util.Random rnd = new java.util.Random(7);
    for (int trial = 0; trial < 50; trial++) {
      List<double[]> jobs = new java.util.ArrayList<>();
      for (int j = 0; j < 4; j++) {
        jobs.add(new double[] {rnd.nextDouble(), rnd.nextDouble()});
      }
      double best = Double.MAX_VALUE;
      for (List<double[]> order : permutations(jobs)) {
        double a = 0;
        double b = 0;
        for (double[] j : order) {
          a += j[0];
          b = Math.max(b, a) + j[1];
        }
        best = Math.min(best, b);
      }
      assertEquals(best, ShadowPipeline.johnson(jobs), 1e-12);
    }
  }

  private static List<List<double[]>> permutations(List<double[]> items) {
    if (items.isEmpty()) {
      return List.of(List.of());
    }
    List<List<double[]>> out = new java.util.ArrayList<>();
    for (int i = 0; i < items.size(); i++) {
      List<double[]> rest = new java.util.ArrayList<>(items);
      double[] head = rest.remove(i);
      for (List<double[]> p : permutations(rest)) {
        List<double[]> l = new java.util.ArrayList<>();
        l.add(head);
        l.addAll(p);
        out.add(l);
      }
    }
    return out;
  }

  @Test
  void aHeadsEstimationCostsItsProgramsCyclesAtTheClockPlusTheHostsSubmission() {
    EstimateTarget npu = EstimateTarget.load(SD.npuPreset(), null);
    MachineParams p = npu.npu().machine();
    ShadowPipeline pipe = ShadowStudy.pipeline("sd8gen3");
    ShadowPipeline.Result r = pipe.run(new ShadowPipeline.Layer("one", 1, 1, 64, 256, new int[] {32}, new int[] {0}));
    long cycles = EstimationProgram.cycles(p, EstimationProgram.plan(p, List.of(new EstimationProgram.Shape(256, 256, 64)))
        .program());
    double sub = (SD.host().submissionUs().value() + SD.host().commandStreamUs().value()) * 1e-6;
    assertEquals(cycles / (npu.clockMhz() * 1e6) + sub, r.estimationS(), 1e-12);
  }

  @Test
  void aLayerWithoutAKeepCountPerHeadIsRefused() {
    assertThrows(IllegalArgumentException.class,
        () -> new ShadowPipeline.Layer("x", 2, 2, 8, 64, new int[] {1}, new int[] {0, 0}));
  }
}
