package org.llmnpu.cli.sw;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import org.llmnpu.soc.SocPreset;
import org.llmnpu.soc.dllm.DllmSoc;
import org.llmnpu.soc.dllm.DllmStaircase;
import org.llmnpu.soc.dllm.DllmStudy;
import org.llmnpu.sw.dllm.DllmSettings;
import org.llmnpu.sw.io.ModelFileException;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code npu sw dllm}: block-wise diffusion decoding (llada.cpp) on our NPU and the SoC model. */
@Command(name = "dllm", mixinStandardHelpOptions = true, sortOptions = false,
    description = "llada.cpp (seed 004): block-wise masked diffusion decoding with a bidirectional denoiser, "
        + "confidence-based commits and prefix KV reuse; multi-block speculative decoding, dual-path progressive "
        + "revision and the swap-optimized memory runtime, each switched off in turn; time on a SoC preset against an "
        + "autoregressive model of the same shape and the CPU alone, the NPU's staircase in the rows (plotted with "
        + "--staircase-svg). Weights: "
        + "stories260K adapted to masked diffusion by continued training (JSON weights: trained), or with --weights "
        + "synthetic the autoregressive weights as the denoiser (only speed and schedule figures meaningful).")
public final class SwDllmCommand implements Callable<Integer> {
  @Option(names = "--model", defaultValue = "stories260K", description = "a model with weights (default ${DEFAULT-VALUE})")
  String model;
  @Option(names = "--preset", defaultValue = "sd8gen3", description = "SoC preset: sd8gen3, lunar-lake or host "
      + "(default ${DEFAULT-VALUE})")
  String preset;
  @Option(names = "--prompt", defaultValue = "16", description = "prompt tokens (default ${DEFAULT-VALUE})")
  int prompt;
  @Option(names = "--generate", defaultValue = "128", description = "tokens to generate (default ${DEFAULT-VALUE})")
  int generate;
  @Option(names = "--block-size", defaultValue = "32", description = "tokens a block, 1..256 (default ${DEFAULT-VALUE})")
  int blockSize;
  @Option(names = "--steps", defaultValue = "8", description = "most denoising steps a block, 1..block size "
      + "(default ${DEFAULT-VALUE})")
  int steps;
  @Option(names = "--threshold", defaultValue = "0.9", description = "confidence that commits a token at once, "
      + "in (0, 1] (default ${DEFAULT-VALUE})")
  double threshold;
  @Option(names = "--speculative-blocks", defaultValue = "1", description = "later blocks filling spare rows, 0..4 "
      + "(default ${DEFAULT-VALUE})")
  int speculativeBlocks;
  @Option(names = "--revision", defaultValue = "cpu", description = "where stale committed tokens are refreshed: off, "
      + "npu or cpu (default ${DEFAULT-VALUE})")
  String revision;
  @Option(names = "--revise-rows", defaultValue = "4", description = "committed tokens refreshed a step "
      + "(default ${DEFAULT-VALUE})")
  int reviseRows;
  @Option(names = "--weights", description = "trained (stories260K adapted to masked diffusion; the default for "
      + "stories260K) or synthetic (the autoregressive weights; the default for other models)")
  String weights;
  @Option(names = "--json", description = "print JSON instead of text")
  boolean json;
  @Option(names = "--staircase-svg", paramLabel = "FILE", description = "also write the staircase plot to FILE: a "
      + "denoiser pass's NPU cycles (whole program and array only) against its token rows, 1 .. 3 row tiles + 1, on "
      + "the default NPU and the preset's NPU, over prompt + generated keys (SVG, written atomically)")
  Path staircaseSvg;

  @Override
  public Integer call() {
    DllmStudy.Options o;
    org.llmnpu.sw.model.ModelConfig config;
    try {
      checkOutputFile();
      if (!SocPreset.NAMES.contains(preset)) {
        throw new BadParameter("--preset: unknown '" + preset + "'; allowed: " + String.join(", ", SocPreset.NAMES));
      }
      config = BadParameter.modelConfig(model);
      int max = config.maxSeqLen();
      if (prompt < 1 || prompt >= max) {
        throw new BadParameter("--prompt: must be in 1.." + (max - 1) + " (the model's context less one), got " + prompt);
      }
      if (generate < 1 || prompt + generate > max) {
        throw new BadParameter("--generate: must be in 1.." + (max - prompt) + " (prompt plus generated tokens within "
            + "the model's context " + max + "), got " + generate);
      }
      DllmSettings.Revision r = switch (revision) {
        case "off" -> DllmSettings.Revision.OFF;
        case "npu" -> DllmSettings.Revision.NPU;
        case "cpu" -> DllmSettings.Revision.CPU;
        default -> throw new BadParameter("--revision: must be one of off, npu, cpu, got '" + revision + "'");
      };
      int tile = DllmSoc.of(preset).machine().mTile();
      DllmSettings s;
      try {
        s = new DllmSettings(blockSize, steps, threshold, speculativeBlocks, tile, true, r, reviseRows, 0);
      } catch (IllegalArgumentException e) {
        throw new BadParameter(e.getMessage());
      }
      DllmStudy.Weights w = weights == null
          ? (DllmStudy.TRAINED_MODEL.equals(model) ? DllmStudy.Weights.TRAINED : DllmStudy.Weights.SYNTHETIC)
          : switch (weights) {
            case "trained" -> DllmStudy.Weights.TRAINED;
            case "synthetic" -> DllmStudy.Weights.SYNTHETIC;
            default -> throw new BadParameter("--weights: must be trained or synthetic, got '" + weights + "'");
          };
      if (w == DllmStudy.Weights.TRAINED && !DllmStudy.TRAINED_MODEL.equals(model)) {
        throw new BadParameter("--weights: trained weights exist only for " + DllmStudy.TRAINED_MODEL
            + "; use --weights synthetic for " + model);
      }
      o = new DllmStudy.Options(model, preset, prompt, generate, s, w);
    } catch (BadParameter e) {
      System.err.println("sw dllm: " + e.getMessage());
      return 2;
    }
    DllmStudy.Result res;
    try {
      res = DllmStudy.run(o);
    } catch (ModelFileException | IllegalArgumentException e) {
      System.err.println("sw dllm: " + e.getMessage());
      return 2;
    } catch (java.io.IOException e) {
      System.err.println("sw dllm: " + e.getMessage());
      return 1;
    }
    if (staircaseSvg != null) {
      try {
        DllmStaircase.write(staircaseSvg, model, config, prompt + generate, preset);
      } catch (java.io.IOException e) {
        System.err.println("sw dllm: --staircase-svg: cannot write " + staircaseSvg + ": " + e.getMessage());
        return 1;
      }
    }
    System.out.print(json ? DllmStudy.json(res) : DllmStudy.text(res));
    return 0;
  }

  private void checkOutputFile() throws BadParameter {
    if (staircaseSvg == null) {
      return;
    }
    Path parent = staircaseSvg.toAbsolutePath().getParent();
    if (Files.isDirectory(staircaseSvg)) {
      throw new BadParameter("--staircase-svg: " + staircaseSvg + " is a directory; give a file name such as "
          + "staircase.svg");
    }
    if (parent == null || !Files.isDirectory(parent)) {
      throw new BadParameter("--staircase-svg: the folder of " + staircaseSvg + " does not exist; give a file in an "
          + "existing folder");
    }
  }
}
