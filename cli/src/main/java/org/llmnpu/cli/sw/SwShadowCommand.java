package org.llmnpu.cli.sw;

import java.util.concurrent.Callable;
import org.llmnpu.soc.SocPreset;
import org.llmnpu.soc.shadow.ShadowStudy;
import org.llmnpu.sw.io.ModelFileException;
import org.llmnpu.sw.shadow.ScaleBuckets;
import org.llmnpu.sw.shadow.ShadowEvaluation;
import org.llmnpu.sw.shadow.ShapeBuckets;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code npu sw shadow}: ShadowNPU's NPU-centric sparse attention — accuracy and the head-wise pipeline. */
@Command(name = "shadow", mixinStandardHelpOptions = true, sortOptions = false,
    description = "ShadowNPU (seed 000): INT8 importance estimation on the NPU (Q·Kᵀ programs), top-k with per-head "
        + "sparsity from offline profiling and FP32 sparse attention on the CPU; accuracy against dense FP32 and full "
        + "INT8 attention on held-out text at the model's context, and the head-wise NPU-CPU pipeline on a SoC preset.")
public final class SwShadowCommand implements Callable<Integer> {
  @Option(names = "--model", defaultValue = "stories260K", description = "a model with weights (default ${DEFAULT-VALUE})")
  String model;
  @Option(names = "--preset", defaultValue = "sd8gen3", description = "SoC preset: sd8gen3, lunar-lake or host "
      + "(default ${DEFAULT-VALUE})")
  String preset;
  @Option(names = "--context", description = "prompt tokens (default: the model's full context)")
  Integer context;
  @Option(names = "--mass-share", defaultValue = "0.99", description = "attention mass each head keeps, in (0, 1] "
      + "(default ${DEFAULT-VALUE})")
  double massShare;
  @Option(names = "--min-keep", defaultValue = "8", description = "fewest tokens a head keeps (default ${DEFAULT-VALUE})")
  int minKeep;
  @Option(names = "--scale-buckets", defaultValue = "8", description = "scale buckets per operand, 0 = each head its "
      + "own scale (default ${DEFAULT-VALUE})")
  int scaleBuckets;
  @Option(names = "--scale-step", defaultValue = "1.25", description = "ratio between neighbouring bucket scales, "
      + "in (1, 16] (default ${DEFAULT-VALUE})")
  double scaleStep;
  @Option(names = "--shape-step", defaultValue = "64", description = "context shape buckets, a multiple of 16 tokens "
      + "(default ${DEFAULT-VALUE})")
  int shapeStep;
  @Option(names = "--calibration", defaultValue = "4", description = "profiling sequences (default ${DEFAULT-VALUE})")
  int calibration;
  @Option(names = "--held-out", defaultValue = "4", description = "evaluation sequences (default ${DEFAULT-VALUE})")
  int heldOut;
  @Option(names = "--large-context", defaultValue = "1024", description = "prompt of the LLaMA-2-7B pipeline "
      + "(default ${DEFAULT-VALUE})")
  int largeContext;
  @Option(names = "--json", description = "print JSON instead of text")
  boolean json;

  @Override
  public Integer call() {
    ShadowEvaluation.Settings s;
    int ctx;
    try {
      if (!SocPreset.NAMES.contains(preset)) {
        throw new BadParameter("--preset: unknown '" + preset + "'; allowed: " + String.join(", ", SocPreset.NAMES));
      }
      int max = BadParameter.modelConfig(model).maxSeqLen();
      ctx = context == null ? max : context;
      if (ctx < 18 || ctx > max) {
        throw new BadParameter("--context: must be in 18.." + max + " (the model's context), got " + ctx);
      }
      if (!(massShare > 0 && massShare <= 1)) {
        throw new BadParameter("--mass-share: must be in (0, 1], got " + massShare);
      }
      if (minKeep < 1) {
        throw new BadParameter("--min-keep: must be >= 1, got " + minKeep);
      }
      if (calibration < 1 || calibration > 64 || heldOut < 1 || heldOut > 64) {
        throw new BadParameter("--calibration/--held-out: must be in 1..64, got " + calibration + " and " + heldOut);
      }
      if (largeContext < 16 || largeContext > 4096) {
        throw new BadParameter("--large-context: must be in 16..4096 (LLaMA-2-7B's context), got " + largeContext);
      }
      BadParameter.parse("--scale-buckets/--scale-step", () -> new ScaleBuckets(scaleBuckets, scaleStep, 1.0));
      BadParameter.parse("--shape-step", () -> new ShapeBuckets(shapeStep, max));
      s = new ShadowEvaluation.Settings(ctx, calibration, heldOut, massShare, minKeep, scaleBuckets, scaleStep, shapeStep);
    } catch (BadParameter e) {
      System.err.println("sw shadow: " + e.getMessage());
      return 2;
    }
    ShadowStudy.Result r;
    try {
      r = ShadowStudy.run(model, preset, s, largeContext);
    } catch (ModelFileException e) {
      System.err.println("sw shadow: " + e.getMessage());
      return 2;
    } catch (java.io.IOException e) {
      System.err.println("sw shadow: " + e.getMessage());
      return 1;
    } catch (IllegalArgumentException e) {
      System.err.println("sw shadow: " + e.getMessage());
      return 2;
    }
    System.out.print(json ? ShadowStudy.json(r) : ShadowStudy.text(r));
    return 0;
  }
}
