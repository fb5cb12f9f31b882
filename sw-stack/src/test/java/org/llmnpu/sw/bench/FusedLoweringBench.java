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
}
