package org.llmnpu.soc;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.llmnpu.sw.estimate.CycleEstimator;
import org.llmnpu.sw.estimate.ModelShapes;
import org.llmnpu.sw.lower.Fusion;
import org.llmnpu.sw.model.ModelConfig;

/**
 * HeteroInfer (seed 002) on our SoC model: layer affinity (matrix products to the NPU or split, RMSNorm, RoPE,
 * attention, SwiGLU and the adds on the GPU), the order swap and the per-shape partition of every matrix product
 * ({@link PartitionSolver} over the {@link PartitionProfiler}'s table), fast synchronization; for each stage the
 * plan's time next to the baselines: CPU-only, GPU-only, NPU-only (our lowering, one program a step) and the
 * layer-level split (every matrix product on the NPU, the rest on the GPU), and the plan with driver waits instead
 * of the fast synchronization.
 */
public final class HeteroPlan {
  /** Allowed {@code --sync} values. */
  public static final List<String> SYNCS = List.of("fast", "driver");

  private HeteroPlan() {
  }

  /** What to plan; {@code npu}: the preset's NPU, or with {@code --config} and {@code -p} over it. */
  public record Options(String preset, String model, int promptLen, String quant, String fusion, String sync,
                        SocNpu npu) {
    public Options {
      java.util.Objects.requireNonNull(npu, "npu");
    }

    /** On the preset's NPU ({@link SocNpu#PRESET}). */
    public Options(String preset, String model, int promptLen, String quant, String fusion, String sync) {
      this(preset, model, promptLen, quant, fusion, sync, SocNpu.PRESET);
    }
  }

  /** One matrix product of the plan. */
  public record Step(String stage, String op, int m, int k, int n, int calls, Partition partition) {
  }

  /** One stage: the plan's time, the baselines' and the speedups over them. */
  public record StageSummary(String stage, double planS, Map<String, Double> baselinesS, double speedupOverBestSingle,
                             double bandwidthGBs, double syncSavingVsDriver) {
  }

  /** The plan. */
  public record Result(Options options, SocPreset preset, ModelShapes.Shape shape, List<Step> plan,
                       List<StageSummary> stages, List<StageFindings.Finding> findings, int profiledShapes) {
  }

  /**
   * Plans both stages.
   *
   * @throws IllegalArgumentException naming the option and what it allows
   */
  public static Result run(Options o) {
    if (!SYNCS.contains(o.sync())) {
      throw new IllegalArgumentException("--sync: '" + o.sync() + "' is not allowed; allowed: " + String.join(", ", SYNCS));
    }
    SocPreset preset = SocPreset.load(o.preset());
    if (preset.gpu().isEmpty()) {
      throw new IllegalArgumentException("--preset: " + o.preset() + " has no GPU; HeteroInfer co-executes GPU and NPU; "
          + "allowed: sd8gen3, lunar-lake");
    }
    ModelShapes.Shape shape = SocModels.of(o.model());
    CycleEstimator.checkOptions(shape.config(), o.quant(), o.promptLen());
    NpuBackend npu = o.npu().backend(preset.npuPreset(), o.quant(), Fusion.parse(o.fusion()));
    HostCosts h = preset.host();
    RooflineBackend gpu = new RooflineBackend(preset.gpu().get(), h.bitsPerWeight().value());
    PartitionProfiler prof = new PartitionProfiler(gpu, npu, h);
    double dram = h.dramGBs().value() * 1e9;
    int step = npu.target().npu().machine().rows();
    int smin = (int) h.npuStandardMin().value();
    PartitionSolver fast = new PartitionSolver(prof, smin, step, h.pollSyncUs().value() * 1e-6, dram, true);
    PartitionSolver driver = new PartitionSolver(prof, smin, step, h.driverSyncUs().value() * 1e-6, dram, true);
    double syncS = (o.sync().equals("fast") ? h.pollSyncUs() : h.driverSyncUs()).value() * 1e-6;
    PartitionSolver solver = o.sync().equals("fast") ? fast : driver;
    StageCosting costing = new StageCosting(preset, true, true, npu, true, List.of());
    List<Step> plan = new ArrayList<>();
    List<StageSummary> stages = new ArrayList<>();
    ModelConfig c = shape.config();
    for (OperatorGraph.Stage stage : OperatorGraph.Stage.values()) {
      NpuBackend.Program program = npu.program(shape, stage, o.promptLen());
      Map<String, Double> base = new LinkedHashMap<>();
      for (String choice : List.of("cpu", "gpu", "npu")) {
        base.put(choice + "-only", costing.cost(choice, shape, stage, o.promptLen(), program).orElseThrow().stream()
            .mapToDouble(x -> x.cost().callS()).sum());
      }
      double light = 0;
      double lightBytes = 0;
      double planS = 0;
      double planBytes = 0;
      double layerLevel = 0;
      double driverPlan = 0;
      for (Operator op : OperatorGraph.of(c, stage, o.promptLen())) {
        if (op.kind() != Operator.Kind.MATMUL) {
          light += gpu.call(op, c).callS() * op.calls();
          lightBytes += op.bytes(h.bitsPerWeight().value(), c.kvDim()) * op.calls();
          continue;
        }
        Partition p = solver.solve(op.m(), op.k(), op.n());
        plan.add(new Step(stage.key(), op.name(), op.m(), op.k(), op.n(), op.calls(), p));
        planS += (p.timeS() + (p.kind() == Partition.Kind.NPU_ONLY ? syncS : 0)) * op.calls();
        planBytes += p.bytes() * op.calls();
        Partition d = driver.solve(op.m(), op.k(), op.n());
        driverPlan += (d.timeS() + (d.kind() == Partition.Kind.NPU_ONLY ? h.driverSyncUs().value() * 1e-6 : 0))
            * op.calls();
        Partition npuOnly = fast.cost(Partition.Kind.NPU_ONLY, op.k(), List.of(new int[] {fast.pad(op.m()), op.n()}),
            0, 0);
        layerLevel += (npuOnly.timeS() + syncS) * op.calls();
      }
      planS += light;
      base.put("layer-level", layerLevel + light);
      double bestSingle = Math.min(base.get("cpu-only"), Math.min(base.get("gpu-only"), base.get("npu-only")));
      stages.add(new StageSummary(stage.key(), planS, base, bestSingle / planS, (planBytes + lightBytes) / planS / 1e9,
          (driverPlan + light) / planS));
    }
    Result partial = new Result(o, preset, shape, plan, stages, List.of(), prof.profiled());
    return new Result(o, preset, shape, plan, stages, HeteroFindings.of(partial, fast), prof.profiled());
  }
}
