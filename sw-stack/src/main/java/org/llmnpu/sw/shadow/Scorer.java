package org.llmnpu.sw.shadow;

import java.util.ArrayList;
import java.util.List;
import org.llmnpu.isa.Counter;
import org.llmnpu.isa.ErrorCause;
import org.llmnpu.isa.MachineParams;
import org.llmnpu.sw.lower.NpuEngine;

/**
 * Where the INT32 estimation scores of one layer come from: per task (a KV head with the queries of its heads
 * stacked, each head's rows padded to the shape bucket) the products {@code Q·Kᵀ} of INT8 codes.
 * {@link #REFERENCE} computes them in Java; {@link #npu} runs the layer's {@link EstimationProgram} on an
 * {@link NpuEngine} (the golden ISA simulator, or the RTL in {@code cosim}) and reads them back.
 */
public interface Scorer {
  /** Scores of each task: {@code q.get(t)} rows × {@code k.get(t)} keys. */
  List<int[][]> scores(int layer, List<byte[][]> q, List<byte[][]> k);

  /** Plain Java dot products of the codes. */
  Scorer REFERENCE = (layer, q, k) -> {
    List<int[][]> out = new ArrayList<>();
    for (int t = 0; t < q.size(); t++) {
      out.add(HeadQuantizer.scores(q.get(t), k.get(t)));
    }
    return out;
  };

  /** One estimation program per layer on {@code engine}; {@code cycles[0]} accumulates the programs' cycles. */
  static Scorer npu(MachineParams p, NpuEngine engine, long[] cycles) {
    return (layer, q, k) -> {
      List<EstimationProgram.Shape> shapes = new ArrayList<>();
      for (int t = 0; t < q.size(); t++) {
        shapes.add(new EstimationProgram.Shape(q.get(t).length, k.get(t).length, k.get(t)[0].length));
      }
      EstimationProgram.Plan plan = EstimationProgram.plan(p, shapes);
      NpuEngine.Run run = engine.run(p, EstimationProgram.image(p, plan, q, k), 0, "estimation, layer " + layer);
      if (run.error() != ErrorCause.NONE) {
        throw new IllegalStateException("estimation program of layer " + layer + " stopped with " + run.error()
            + " at command " + run.errorCommand());
      }
      cycles[0] += run.counters()[Counter.CYCLES.ordinal()];
      List<int[][]> out = new ArrayList<>();
      for (int t = 0; t < q.size(); t++) {
        out.add(EstimationProgram.scores(run.memory(), plan, t));
      }
      return out;
    };
  }
}
