package org.llmnpu.sw.dllm;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;
import org.llmnpu.isa.Counter;
import org.llmnpu.isa.ErrorCause;
import org.llmnpu.isa.MachineParams;
import org.llmnpu.sw.lower.NpuEngine;
import org.llmnpu.sw.lower.NpuTargets;
import org.llmnpu.sw.model.ModelConfig;
import org.llmnpu.sw.shadow.EstimationProgram;

/** A denoiser pass's program: its cycles equal the golden simulator's, and they rise in steps of the row tile. */
class DenoiserProgramTest {
  private static final MachineParams NPU = NpuTargets.defaultNpu();
  private static final ModelConfig C = ModelConfig.stories260K();

  @Test
  void cyclesWalkEqualsTheGoldenSimulatorAndResultsAreTheProducts() {
    for (int rows : new int[] {1, 16, 17}) {
      EstimationProgram.Plan plan = DenoiserProgram.plan(NPU, C, rows, 40, Math.min(rows, 5));
      byte[] image = DenoiserProgram.image(NPU, plan, rows);
      NpuEngine.Run run = NpuEngine.GOLDEN.run(NPU, image, 0, "denoiser pass");
      assertEquals(ErrorCause.NONE, run.error());
      assertEquals(EstimationProgram.cycles(NPU, plan.program()), run.counters()[Counter.CYCLES.ordinal()]);
      // the last task (the classifier) holds X·W of its codes
      int t = plan.placements().size() - 1;
      EstimationProgram.Placement pl = plan.placements().get(t);
      int[][] y = EstimationProgram.scores(run.memory(), plan, t);
      int i = pl.shape().m() - 1;
      int j = pl.shape().n() - 1;
      int sum = 0;
      for (int c = 0; c < pl.shape().d(); c++) {
        sum += image[(int) (pl.q() + i * pl.qStride() + c)] * image[(int) (pl.kT() + c * pl.kTStride() + j)];
      }
      assertEquals(sum, y[i][j]);
    }
  }

  @Test
  void passCyclesAreAStaircaseInTheRowsWithStepsAtTheRowTile() {
    int tile = NPU.mTile();
    long[] cycles = new long[3 * tile + 2];
    long[] engine = new long[cycles.length];
    for (int r = 1; r < cycles.length; r++) {
      cycles[r] = DenoiserProgram.gemmCycles(NPU, C, r, 64, 0);
      engine[r] = DenoiserProgram.engineCycles(NPU, C, r, 64, 0);
    }
    for (int k = 1; k <= 2; k++) {
      long jump = cycles[k * tile + 1] - cycles[k * tile];
      for (int r = (k - 1) * tile + 1; r < k * tile; r++) {
        long within = cycles[r + 1] - cycles[r];
        assertTrue(jump > 3 * Math.max(1, within), "rows " + r + "->" + (r + 1) + " add " + within
            + " cycles, the tile step " + (k * tile) + "->" + (k * tile + 1) + " adds " + jump);
      }
    }
    // the array alone: within a tile a row adds one cycle a GEMM (the last pass's extra beat), past a tile every W
    // tile loads again
    int gemms = DenoiserProgram.gemms(NPU, C, 1, 64, 0).size();
    for (int r = 1; r < 3 * tile; r++) {
      long rise = engine[r + 1] - engine[r];
      if (r % tile == 0) {
        assertTrue(rise > 10L * gemms, "no step at " + r + ": " + rise);
      } else {
        assertTrue(rise <= gemms, "array cycles rise by " + rise + " within a tile at " + r);
      }
    }
  }

  @Test
  void layoutFromLifetimesNeverOverlapsLiveTensorsAndIsSmallerThanNaive() {
    PassLayout.Layout l = PassLayout.of(C, 17, 64, 128, NPU.lineBytes());
    List<PassLayout.Tensor> t = l.tensors();
    for (int a = 0; a < t.size(); a++) {
      for (int b = a + 1; b < t.size(); b++) {
        PassLayout.Tensor x = t.get(a);
        PassLayout.Tensor y = t.get(b);
        boolean live = x.first() <= y.last() && y.first() <= x.last();
        boolean overlap = x.offset() < y.offset() + y.bytes() && y.offset() < x.offset() + x.bytes();
        assertTrue(!(live && overlap), x + " and " + y);
      }
    }
    assertTrue(l.arenaBytes() * 4 < l.naiveBytes(), l.arenaBytes() + " vs " + l.naiveBytes());
  }
}
