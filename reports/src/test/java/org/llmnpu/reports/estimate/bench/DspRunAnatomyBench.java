package org.llmnpu.reports.estimate.bench;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.llmnpu.hdl.bench.BenchRecord;
import org.llmnpu.isa.MachineParams;
import org.llmnpu.isa.dsp.DspInstruction;
import org.llmnpu.isa.dsp.DspOp;
import org.llmnpu.isa.dsp.DspPipeline;
import org.llmnpu.isa.dsp.DspProgram;
import org.llmnpu.reports.estimate.EstimateTarget;
import org.llmnpu.reports.estimate.NpuEstimate;
import org.llmnpu.sw.estimate.ModelShapes;
import org.llmnpu.sw.lower.Fusion;
import org.llmnpu.sw.lower.PhaseCostModel;
import org.llmnpu.sw.lower.WeightFormats;
import org.llmnpu.sw.model.ModelConfig;

/**
 * Where the Vector DSP's runs spend their cycles in LLaMA-2-7B's 256-token prefill on {@code edge-64} (64 lanes, four
 * execute stages, 512 program words; {@code ./npu estimate --model llama-2-7b --preset edge-64 --prompt-len 256},
 * fusion full): every {@code dsprun} of layer 0, the setup and the LM head as {@link PhaseCostModel#profile} costs it
 * ({@code PhaseCostModel#recordDspRuns}), by operator: runs, cycles, cycles a run, instructions issued, the interlock's
 * stalls (cycles − issued), and of the issued those in loops (passes over the elements, the element-bound part) and
 * outside (per-run fixed work: constants, reduction trees, scalar reciprocals, straight-line one-row passes); then
 * each operator's three costliest programs (runs × cycles). Static counts ({@link DspProgram#cycles}), the golden's and
 * the RTL's. Benchmark: {@code mvn -q -o -pl reports -am test -Dbench -Dtest=DspRunAnatomyBench
 * -Dsurefire.failIfNoSpecifiedTests=false}.
 */
@ExtendWith(BenchRecord.class)
class DspRunAnatomyBench {
  private static final int PROMPT = 256;

  @Test
  void llama2SevenBPrefillDspRuns() {
    Assumptions.assumeTrue(BenchRecord.enabled(), "benchmark: run with -Dbench");
    for (String quant : new String[] {"int8", "s2_4"}) {
      EstimateTarget t = NpuEstimate.withUnitsFor(EstimateTarget.load("edge-64", null), quant, new ArrayList<>());
      MachineParams p = t.npu().machine();
      ModelConfig c = ModelShapes.of("llama-2-7b").config();
      PhaseCostModel cost = new PhaseCostModel(c, p, PROMPT + 1, Math.min(p.maxM(), PROMPT), true,
          WeightFormats.bits(quant), WeightFormats.group(quant), WeightFormats.sparsity(quant), WeightFormats.mx(quant),
          Fusion.FULL);
      Map<String, Map<DspProgram, Long>> runs = new LinkedHashMap<>();
      cost.recordDspRuns(runs);
      cost.profile(PROMPT, 0, 1);
      cost.recordDspRuns(null);
      print(quant, runs, p.dsp().pipeline());
    }
  }

  private static void print(String quant, Map<String, Map<DspProgram, Long>> runs, DspPipeline pipe) {
    System.out.printf(Locale.ROOT, "%s on edge-64, 256-token prefill, layer 0 of 32 plus setup and LM head: DSP runs%n",
        quant);
    System.out.println("| operator | runs | cycles | cycles a run | issued | stalls | issued in loops | issued outside |");
    System.out.println("|---|---:|---:|---:|---:|---:|---:|---:|");
    long[] total = new long[5];
    List<Map.Entry<String, Map<DspProgram, Long>>> ops = new ArrayList<>(runs.entrySet());
    ops.sort((a, b) -> Long.compare(cycles(b.getValue(), pipe), cycles(a.getValue(), pipe)));
    for (var op : ops) {
      long n = 0;
      long cyc = 0;
      long issued = 0;
      long looped = 0;
      for (var e : op.getValue().entrySet()) {
        n += e.getValue();
        cyc += e.getValue() * e.getKey().cycles(pipe);
        issued += e.getValue() * e.getKey().issued();
        looped += e.getValue() * issuedInLoops(e.getKey());
      }
      long[] row = {n, cyc, issued, cyc - issued, looped};
      for (int i = 0; i < row.length; i++) {
        total[i] += row[i];
      }
      System.out.printf(Locale.ROOT, "| %s | %,d | %,d | %,.0f | %,d | %,d | %,d | %,d |%n", op.getKey(), n, cyc,
          cyc / (double) n, issued, cyc - issued, looped, issued - looped);
    }
    System.out.printf(Locale.ROOT, "| all | %,d | %,d | %,.0f | %,d | %,d | %,d | %,d |%n", total[0], total[1],
        total[1] / (double) total[0], total[2], total[3], total[4], total[2] - total[4]);
    System.out.println("| operator: program | runs | cycles a run | issued a run | words |");
    System.out.println("|---|---:|---:|---:|---:|");
    for (var op : ops) {
      op.getValue().entrySet().stream()
          .sorted((a, b) -> Long.compare(b.getValue() * b.getKey().cycles(pipe), a.getValue() * a.getKey().cycles(pipe)))
          .limit(3).forEach(e -> System.out.printf(Locale.ROOT, "| %s: %s | %,d | %,d | %,d | %d |%n", op.getKey(),
              shortName(e.getKey().name()), e.getValue(), e.getKey().cycles(pipe), e.getKey().issued(),
              e.getKey().size()));
    }
    System.out.println();
  }

  private static long cycles(Map<DspProgram, Long> programs, DspPipeline pipe) {
    long c = 0;
    for (var e : programs.entrySet()) {
      c += e.getValue() * e.getKey().cycles(pipe);
    }
    return c;
  }

  /** Instructions a run issues inside its loops (a loop body times its count). */
  private static long issuedInLoops(DspProgram p) {
    long n = 0;
    List<DspInstruction> code = p.instructions();
    for (int pc = 0; pc < code.size(); pc++) {
      DspInstruction in = code.get(pc);
      if (in.op() == DspOp.LOOP) {
        int body = Math.min(in.imm() >>> 16, code.size() - pc - 1);
        n += (long) Math.max(1, in.imm() & 0xFFFF) * body;
        pc += body;
      }
    }
    return n;
  }

  private static String shortName(String name) {
    return name.length() > 90 ? name.substring(0, 90) + "…" : name;
  }
}
