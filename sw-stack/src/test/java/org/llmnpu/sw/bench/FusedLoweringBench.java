package org.llmnpu.sw.bench;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.llmnpu.hdl.bench.BenchRecord;
import org.llmnpu.isa.Counter;
import org.llmnpu.isa.MachineParams;
import org.llmnpu.sw.io.ModelCatalog;
import org.llmnpu.sw.lower.CommandKindProfile;
import org.llmnpu.sw.lower.Fusion;
import org.llmnpu.sw.lower.NpuTargets;
import org.llmnpu.sw.lower.PhaseCost;
import org.llmnpu.sw.lower.PhaseCostModel;
import org.llmnpu.sw.lower.ResidencyWhatIf;
import org.llmnpu.sw.model.ModelConfig;

/**
 * stories260K INT8 on the default NPU at each fusion level: the 16-token prefill and the decode step at position 16
 * as {@code ./npu cosim decoder --prompt-len P --max-new 2 --fusion F} runs them (P = 16 and 64, context P + 2, blocks of
 * 16), from
 * {@link PhaseCostModel}'s exact steps (equal to the golden counters, and the RTL's cycles, by
 * {@code PhaseCostModelTest}, {@code FusedLoweringTest}, {@code DecoderCosimTest}), then where the cycles go by
 * command kind ({@link CommandKindProfile}). Run with {@code mvn -pl sw-stack -am test -Pbench -Dbench
 * -Dtest='org.llmnpu.sw.bench.FusedLoweringBench' -Dsurefire.failIfNoSpecifiedTests=false}.
 */
@ExtendWith(BenchRecord.class)
class FusedLoweringBench {
  private static final int PROMPT = 16;
  private static final int CONTEXT = PROMPT + 2;

  private static void row(String name, PhaseCostModel cost, int prompt, long nonePrefill, long noneDecode) {
    PhaseCost prefill = cost.step(prompt, 0, Integer.MAX_VALUE);
    PhaseCost decode = cost.step(1, prompt, Integer.MAX_VALUE);
    System.out.printf("| %s | %,d (%.3fx) | %,d (%.3fx) | %,d | %,d | %,d |%n", name, prefill.cycles(),
        prefill.cycles() / (double) nonePrefill, decode.cycles(), decode.cycles() / (double) noneDecode,
        prefill.counter(Counter.DSP_CYCLES), prefill.counter(Counter.GEMM_CYCLES), prefill.counter(Counter.COMMANDS));
  }

  @Test
  void stories260KCyclesPerFusionLevel() throws Exception {
    ModelConfig c = ModelCatalog.load("stories260K", 1).config();
    MachineParams p = NpuTargets.defaultNpu();
    for (int prompt : new int[] {PROMPT, 64}) {
      System.out.printf("| stories260K int8 | prefill %d tokens | decode at %d | prefill dsp | prefill gemm unit "
          + "| prefill commands |%n", prompt, prompt);
      System.out.println("|---|---:|---:|---:|---:|---:|");
      long nonePrefill = 0;
      long noneDecode = 0;
      for (Fusion f : Fusion.values()) {
        PhaseCostModel cost = PhaseCostModel.forFormat(c, p, prompt + 2, PROMPT, "int8", f);
        PhaseCost prefill = cost.step(prompt, 0, c.layers());
        PhaseCost decode = cost.step(1, prompt, c.layers());
        if (f == Fusion.NONE) {
          nonePrefill = prefill.cycles();
          noneDecode = decode.cycles();
        }
        System.out.printf("| `--fusion %s` | %,d (%.3fx) | %,d (%.3fx) | %,d | %,d | %,d |%n", f.optionValue(),
            prefill.cycles(), prefill.cycles() / (double) nonePrefill, decode.cycles(),
            decode.cycles() / (double) noneDecode, prefill.counter(Counter.DSP_CYCLES),
            prefill.counter(Counter.GEMM_CYCLES), prefill.counter(Counter.COMMANDS));
      }
      // the default NPU with the PPM's gate operand (npu-rtl ppmGate), and q/k/v with static scales (an option)
      row("`--fusion full`, NPU built with ppmGate (SwiGLU gate through the PPM)", PhaseCostModel.forFormat(c, p.withPpmGate(true),
          prompt + 2, PROMPT, "int8", Fusion.FULL), prompt, nonePrefill, noneDecode);
      row("`--fusion full`, static q/k/v scales", PhaseCostModel.forFormat(c, p, prompt + 2, PROMPT, "int8",
          Fusion.FULL).staticQkv(true, false), prompt, nonePrefill, noneDecode);
      row("`--fusion full`, NPU built with ppmGate, static q/k/v scales", PhaseCostModel.forFormat(c, p.withPpmGate(true),
          prompt + 2, PROMPT, "int8", Fusion.FULL).staticQkv(true, false), prompt, nonePrefill, noneDecode);
      row("`--fusion full`, NPU built with dspPermute (Kᵀ by the DSP's transpose)", PhaseCostModel.forFormat(c,
          p.withDsp(p.dsp().withPermute(true)), prompt + 2, PROMPT, "int8", Fusion.FULL), prompt, nonePrefill,
          noneDecode);
      System.out.println("(prefill gemm unit: `gemmCycles`, the GEMM unit busy — operand copy, array, drain; no command "
          + "order can hide more DSP work under the GEMMs than this)");
    }
    for (int[] step : new int[][] {{PROMPT, 0}, {1, PROMPT}}) {
      System.out.printf("%nwhere the cycles go at --fusion full, %s:%n", step[1] == 0 ? "prefill 16 tokens"
          : "decode at 16");
      System.out.print(CommandKindProfile.table(
          CommandKindProfile.of(c, p, CONTEXT, PROMPT, "int8", Fusion.FULL, step[0], step[1])));
      System.out.printf("%nthe dsprun cycles by DSP program (a joined run split into its programs):%n");
      System.out.print(CommandKindProfile.programTable(
          CommandKindProfile.programs(c, p, CONTEXT, PROMPT, "int8", Fusion.FULL, step[0], step[1])));
    }
  }

  /**
   * What resident programs could save on the same two steps ({@link ResidencyWhatIf}): the lowering's runs replayed
   * with their rows and lengths compiled in (today) or given at run time, for program memories of 256 (the NPU's),
   * 512 and 1024 words, with and without re-loading an overwritten program. Run with {@code mvn -q -pl sw-stack -am
   * test -Dbench -Dtest='FusedLoweringBench#residentProgramsWhatIf' -Dsurefire.failIfNoSpecifiedTests=false}.
   */
  @Test
  void residentProgramsWhatIf() throws Exception {
    ModelConfig c = ModelCatalog.load("stories260K", 1).config();
    MachineParams p = NpuTargets.defaultNpu();
    for (int[] step : new int[][] {{PROMPT, 0}, {1, PROMPT}}) {
      System.out.printf("%nresident DSP programs, --fusion full, %s (beats avoided: program-load beats of the runs "
          + "that loaded nothing; the parameters' own cost not counted):%n", step[1] == 0 ? "prefill 16 tokens"
          : "decode at 16");
      System.out.print(ResidencyWhatIf.table(
          ResidencyWhatIf.of(c, p, CONTEXT, PROMPT, "int8", step[0], step[1], 256, 512, 1024)));
    }
  }
}
