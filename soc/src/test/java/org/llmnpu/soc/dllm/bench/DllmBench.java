package org.llmnpu.soc.dllm.bench;

import java.util.Locale;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.llmnpu.hdl.bench.BenchRecord;
import org.llmnpu.isa.MachineParams;
import org.llmnpu.soc.dllm.DllmSoc;
import org.llmnpu.soc.dllm.DllmStaircase;
import org.llmnpu.soc.dllm.DllmStudy;
import org.llmnpu.sw.dllm.DenoiserProgram;
import org.llmnpu.sw.dllm.DllmSettings;
import org.llmnpu.sw.lower.NpuTargets;
import org.llmnpu.sw.model.ModelConfig;

/**
 * llada.cpp's figures (seed 004) on stories260K (adapted to masked diffusion: weights "trained"; the weights table
 * compares its held-out quality and commits with the autoregressive weights, "synthetic") and the same schedule on LLaMA-3-8B's shape, on sd8gen3: each mechanism switched off,
 * diffusion against the autoregressive model of the same shape and the CPU alone over generated lengths, the NPU
 * pass's staircase in the rows on the default NPU and on sd8gen3's edge-64 (also plotted to
 * {@code bench-results/DllmStaircase.svg}), and the array/DSP rates. The report's
 * seed-004 rows read these tables. Run with {@code mvn -q -o -pl soc -am test -Dbench -Dtest=DllmBench
 * -Dsurefire.failIfNoSpecifiedTests=false}.
 */
@ExtendWith(BenchRecord.class)
class DllmBench {
  private static final String PRESET = "sd8gen3";
  /** The staircase plot {@link #staircase} writes next to this bench's text record (the report embeds it). */
  static final String STAIRCASE_SVG = "DllmStaircase.svg";

  private static DllmStudy.Options options(int generate) {
    int tile = DllmSoc.of(PRESET).machine().mTile();
    return new DllmStudy.Options("stories260K", PRESET, 16, generate, DllmSettings.llada(tile));
  }

  @Test
  void mechanisms() throws Exception {
    DllmStudy.Result r = DllmStudy.run(options(128));
    DllmSettings s = r.options().settings();
    System.out.printf(Locale.ROOT, "stories260K (weights: %s) on %s: 16 prompt + 128 generated tokens, blocks of %d, "
        + "<= %d steps a block, threshold %.2f, %d speculative block(s) filling the NPU's %d-row tile, revision %s "
        + "(%d rows a step); %d passes, %d revisions, %d speculative commits%n%n", r.options().weights().label(),
        PRESET, s.blockSize(),
        s.stepsPerBlock(), s.threshold(), s.speculativeBlocks(), s.tileRows(),
        s.revision().name().toLowerCase(Locale.ROOT), s.reviseRows(), r.passes(), r.revisions(),
        r.speculativeCommits());
    System.out.println("| configuration | switched off | passes | NPU rows | stories260K ms | vs all | " + r.largeModel()
        + " ms | vs all (" + r.largeModel() + ") |");
    System.out.println("|---|---|---|---|---|---|---|---|");
    for (DllmStudy.Variant v : r.variants()) {
      System.out.printf(Locale.ROOT, "| %s | %s | %d | %d | %.3f | %.2fx | %.1f | %.2fx |%n", v.name(),
          v.switchedOff().isEmpty() ? "-" : v.switchedOff(), v.passes(), v.npuRows(), 1e3 * v.seconds(),
          v.seconds() / r.dllmS(), 1e3 * v.largeSeconds(), v.largeSeconds() / r.largeS());
    }
    System.out.println();
    System.out.println("#### baselines");
    System.out.println();
    System.out.println("| model shape | diffusion ms | autoregressive ms | vs autoregressive | diffusion on the CPU ms |"
        + " vs CPU-only | autoregressive on the CPU ms |");
    System.out.println("|---|---|---|---|---|---|---|");
    System.out.printf(Locale.ROOT, "| stories260K | %.3f | %.3f | %.2fx | %.3f | %.2fx | %.3f |%n", 1e3 * r.dllmS(),
        1e3 * r.autoregressiveS(), r.speedupVsAutoregressive(), 1e3 * r.cpuOnlyS(), r.speedupVsCpuOnly(),
        1e3 * r.autoregressiveCpuS());
    System.out.printf(Locale.ROOT, "| %s | %.1f | %.1f | %.2fx | %.1f | %.2fx | - |%n", r.largeModel(), 1e3 * r.largeS(),
        1e3 * r.largeAutoregressiveS(), r.largeSpeedupVsAutoregressive(), 1e3 * r.largeCpuOnlyS(),
        r.largeSpeedupVsCpuOnly());
    System.out.println();
    System.out.println("#### weights");
    System.out.println();
    java.util.Properties fig = org.llmnpu.sw.dllm.DiffusionAdaptation.trainedFigures();
    DllmStudy.Result syn = DllmStudy.run(new DllmStudy.Options("stories260K", PRESET, 16, 128, s,
        DllmStudy.Weights.SYNTHETIC));
    System.out.println("| weights | held-out masked-token loss (nats) | held-out accuracy | passes | commits by "
        + "confidence >= threshold | speculative commits | stories260K ms |");
    System.out.println("|---|---|---|---|---|---|---|");
    for (DllmStudy.Result x : new DllmStudy.Result[] {r, syn}) {
      String tag = x.options().weights() == DllmStudy.Weights.TRAINED ? "after" : "before";
      System.out.printf(Locale.ROOT, "| %s | %s | %s | %d | %.1f %% of %d | %d | %.3f |%n", x.options().weights().label(),
          fig.getProperty(tag + ".loss"), fig.getProperty(tag + ".accuracy"), x.passes(), 100 * x.confidentShare(),
          x.commits(), x.speculativeCommits(), 1e3 * x.dllmS());
    }
    System.out.println();
    System.out.println("held-out: " + fig.getProperty("heldOut.examples") + " noised sequences ("
        + fig.getProperty("heldOut.maskedTokens") + " masked tokens) sampled at the evaluation seed; recipe: "
        + fig.getProperty("recipe"));
    System.out.println();
    System.out.println("#### weak vector unit");
    System.out.println();
    System.out.println("| NPU | array MACs a cycle | DSP operations a cycle | DSP share of a tile-row pass |");
    System.out.println("|---|---|---|---|");
    System.out.printf(Locale.ROOT, "| %s's | %d | %d | %.1f %% |%n", PRESET, r.arrayMacsPerCycle(), r.dspLanes(),
        100 * r.dspShare());
  }

  @Test
  void generatedLengthSweep() throws Exception {
    System.out.println("sd8gen3, llada settings (blocks of 32, 8 steps, threshold 0.9, 1 speculative block, CPU "
        + "revision of 4 rows); stories260K's schedule, timed for stories260K and for llama-3-8b's shape");
    System.out.println();
    System.out.println("| generated | passes | stories260K vs AR | stories260K vs CPU-only | llama-3-8b vs AR |"
        + " llama-3-8b vs CPU-only |");
    System.out.println("|---|---|---|---|---|---|");
    for (int g : new int[] {32, 64, 128, 256, 480}) {
      DllmStudy.Result r = DllmStudy.run(options(g));
      System.out.printf(Locale.ROOT, "| %d | %d | %.2fx | %.2fx | %.2fx | %.2fx |%n", g, r.passes(),
          r.speedupVsAutoregressive(), r.speedupVsCpuOnly(), r.largeSpeedupVsAutoregressive(),
          r.largeSpeedupVsCpuOnly());
    }
  }

  @Test
  void staircase() throws java.io.IOException {
    ModelConfig c = ModelConfig.stories260K();
    stairs("default NPU", NpuTargets.defaultNpu(), c);
    System.out.println();
    stairs("edge-64 (" + PRESET + ")", DllmSoc.of(PRESET).machine(), c);
    java.nio.file.Path svg = BenchRecord.repoRoot().resolve(BenchRecord.FOLDER).resolve(STAIRCASE_SVG);
    DllmStaircase.write(svg, "stories260K", c, 144, PRESET);
    System.out.println();
    System.out.println("plot (every row 1 .. 3 mTile + 1, both machines): " + BenchRecord.FOLDER + "/" + STAIRCASE_SVG);
  }

  private static void stairs(String name, MachineParams p, ModelConfig c) {
    System.out.printf(Locale.ROOT, "#### %s: %dx%d array, mTile %d; a stories260K pass over 144 keys, every row's logits%n%n",
        name, p.rows(), p.rows(), p.mTile());
    System.out.println("| rows | program cycles | array cycles | program cycles a row |");
    System.out.println("|---|---|---|---|");
    int t = p.mTile();
    int[] rows = {1, 2, t / 2, t - 1, t, t + 1, t + 2, 2 * t - 1, 2 * t, 2 * t + 1, 3 * t, 3 * t + 1};
    int last = 0;
    for (int r : rows) {
      if (r <= last) {
        continue;
      }
      last = r;
      long prog = DenoiserProgram.gemmCycles(p, c, r, 144, r);
      System.out.printf(Locale.ROOT, "| %d | %d | %d | %.0f |%n", r, prog, DenoiserProgram.engineCycles(p, c, r, 144, r),
          prog / (double) r);
    }
  }
}
