package org.llmnpu.soc;

import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.nio.file.Files;
import java.nio.file.StandardCopyOption;

/**
 * The figures of the module README, recorded to {@code bench-results/SocFigures.txt}: the stage table of
 * llama-3.2-3b on sd8gen3 at 321, 641 and 1281 prompt tokens (with seed 001's findings), the same on lunar-lake
 * (seed 003's CPU/GPU/NPU decode comparison), the HeteroInfer plans of LLaMA-3-8B and Qwen2.5-1.5B on sd8gen3 and
 * speculative decoding across backends (INT4 and INT8 drafts).
 * Run: {@code java -cp <soc classpath> org.llmnpu.soc.SocFigures [out-file]}.
 */
public final class SocFigures {
  private SocFigures() {
  }

  public static void main(String[] args) throws IOException {
    Path out = Path.of(args.length > 0 ? args[0] : "bench-results/SocFigures.txt");
    StringBuilder b = new StringBuilder();
    b.append("# SocFigures: npu soc analyze / partition / speculative figures (org.llmnpu.soc.SocFigures)\n");
    b.append("# run: mvn -q -o -pl soc -am compile && java -cp \"soc/target/classes:<soc's runtime classpath>\" "
        + "org.llmnpu.soc.SocFigures\n");
    b.append("# recorded: ").append(java.time.Instant.now().truncatedTo(java.time.temporal.ChronoUnit.MINUTES))
        .append("\n");
    b.append("# analysis: figures are model outputs (cycle model + cited rooflines), not timings of this machine\n\n");
    for (int prompt : new int[] {321, 641, 1281}) {
      for (String npu : List.of("ours", "paper")) {
        b.append(String.format(Locale.ROOT, "## ./npu soc analyze --preset sd8gen3 --model llama-3.2-3b --prompt-len %d"
            + " --npu %s%n", prompt, npu));
        b.append(SocOutput.text(StageAnalysis.run(options("sd8gen3", prompt, npu)))).append('\n');
      }
    }
    b.append("## ./npu soc analyze --preset lunar-lake --model llama-3-8b --prompt-len 321\n");
    StageAnalysis.Result ll = StageAnalysis.run(new StageAnalysis.Options("lunar-lake", "llama-3-8b", 321, 128, "int4",
        "full", "ours", true, true, List.of("cpu", "gpu", "npu")));
    b.append(SocOutput.text(ll)).append(lunarLake(ll)).append('\n');
    for (String model : List.of("llama-3-8b", "qwen2.5-1.5b")) {
      for (int prompt : new int[] {300, 1024}) {
        b.append(String.format(Locale.ROOT, "## ./npu soc partition --preset sd8gen3 --model %s --prompt-len %d%n",
            model, prompt));
        b.append(PartitionOutput.text(HeteroPlan.run(new HeteroPlan.Options("sd8gen3", model, prompt, "int4",
            "full", "fast")))).append('\n');
      }
    }
    for (String draft : List.of("int4", "int8")) {
      b.append(String.format(Locale.ROOT, "## ./npu soc speculative --preset sd8gen3 --model llama-3-8b --prompt-len 321 "
          + "--draft %s --gamma 4 --measure-tokens 64%n", draft));
      b.append(SpeculativeOutput.text(SpeculativeAcrossBackends.run("sd8gen3", "llama-3-8b", 321, draft, 4, 64)))
          .append('\n');
    }
    Path dir = out.toAbsolutePath().getParent();
    Files.createDirectories(dir);
    Path tmp = Files.createTempFile(dir, out.getFileName().toString(), ".tmp");
    Files.writeString(tmp, b.toString());
    Files.move(tmp, out, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
    System.out.print(b);
  }

  private static StageAnalysis.Options options(String preset, int prompt, String npu) {
    return new StageAnalysis.Options(preset, "llama-3.2-3b", prompt, 128, "int4", "full", npu, true, true,
        List.of("cpu", "gpu", "npu"));
  }

  /** Seed 003's decode comparison: TPOT and energy per token of GPU and NPU against the CPU. */
  static String lunarLake(StageAnalysis.Result r) {
    StageAnalysis.StageRow cpu = StageFindings.row(r, "decode", "cpu").orElseThrow();
    StageAnalysis.StageRow gpu = StageFindings.row(r, "decode", "gpu").orElseThrow();
    StageAnalysis.StageRow npu = StageFindings.row(r, "decode", "npu").orElseThrow();
    return String.format(Locale.ROOT, "  seed 003 (Lunar Lake, decode): TPOT vs CPU: GPU %+.0f %%, NPU %+.0f %% (paper "
        + "-53 %%, -67 %%); J/token: NPU %.2fx better than CPU, %.2fx than GPU (paper 1.58x, 1.2x)%n",
        100 * (gpu.timeS() / cpu.timeS() - 1), 100 * (npu.timeS() / cpu.timeS() - 1), cpu.energyJ() / npu.energyJ(),
        gpu.energyJ() / npu.energyJ());
  }
}
