package org.llmnpu.sw.lower;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.llmnpu.hdl.bench.BenchRecord;
import org.llmnpu.isa.MachineParams;
import org.llmnpu.isa.dsp.DspInstruction;
import org.llmnpu.isa.dsp.DspKernel;
import org.llmnpu.isa.dsp.DspOp;
import org.llmnpu.isa.dsp.DspPipeline;
import org.llmnpu.isa.dsp.DspProgram;

/**
 * Where a head group's attention scale, SoftMax and probability quantization spend their DSP cycles on the stated
 * NPU's DSP (edge-64: 32 lanes, four execute stages, 256 program words, 64-byte lines), before ({@code DspRoutines}
 * scale, the pipelined SoftMax kernel, merged as the lowering merges them) and with {@link AttentionSoftmax}: per
 * causal length the {@code dsprun}s after chaining (words, load beats, issued, cycles, stalls), then the SoftMax's
 * passes one by one. Static counts ({@code DspProgram.cycles}), the ones the golden model and the RTL count; a run's
 * load also pays the memory latency (100 cycles on edge-64). Run with {@code mvn -q -o -pl sw-stack -am test -Dbench
 * -Dtest='AttentionSoftmaxBench' -Dsurefire.failIfNoSpecifiedTests=false}.
 */
@ExtendWith(BenchRecord.class)
class AttentionSoftmaxBench {
  private static final MachineParams.DspParams DSP = new MachineParams.DspParams(32, 32768, 256, 12, 2, 1L << 32, 4);
  private static final int LINE = 64;

  @Test
  void groupBreakdown() {
    Assumptions.assumeTrue(BenchRecord.enabled(), "benchmark: run with -Dbench");
    DspRoutines r = new DspRoutines(DSP, 1e-5f);
    DspPipeline pipe = DSP.pipeline();
    System.out.println("three heads, one token; runs after chaining: words | load beats | issued | cycles | stalls");
    for (int s : new int[] {16, 64, 128, 256}) {
      HeadGroupRuns g = HeadGroupRuns.of(r, s, 3);
      runs("before " + s + " slots", DspChain.chain(g.before(), DSP.programDepth()), pipe);
      runs("now    " + s + " slots", DspChain.chain(g.now(), DSP.programDepth()), pipe);
    }
    int s = 128;
    passes("SoftMax kernel before, 128 slots (one head)",
        r.kernel(DspKernel.SOFTMAX, s, new int[] {100}, new int[] {200}), pipe);
    passes("scale before, 128 slots (one head)", r.scale(0, s, 1, 2, (short) 0x3C00, -1, 100), pipe);
    passes("scaled SoftMax now, 128 slots, three heads merged",
        HeadGroupRuns.of(r, s, 3).now().get(0), pipe);
  }

  private static void runs(String title, List<DspProgram> runs, DspPipeline pipe) {
    long cycles = 0;
    long beats = 0;
    for (DspProgram p : runs) {
      long b = (8L * p.size() + LINE - 1) / LINE;
      long c = p.cycles(pipe);
      beats += b;
      cycles += c;
      System.out.printf("  %s  %4d %3d %5d %5d %5d  %s%n", title, p.size(), b, p.issued(), c, c - p.issued(),
          p.name().length() > 60 ? p.name().substring(0, 60) + "…" : p.name());
    }
    System.out.printf("  %s  total: %d runs, %d load beats, %d cycles%n", title, runs.size(), beats, cycles);
  }

  /** The program's straight segments and loops: issued (a LOOP counted with its body), cycles, stalls. */
  private static void passes(String title, DspProgram p, DspPipeline pipe) {
    System.out.printf("%s: words %d, issued %d, cycles %d%n", title, p.size(), p.issued(), p.cycles(pipe));
    List<DspInstruction> code = p.instructions();
    List<Integer> cuts = new ArrayList<>();
    for (int i = 0; i < code.size(); i++) {
      if (code.get(i).op() == DspOp.LOOP) {
        int end = i + (code.get(i).imm() >>> 16);
        cuts.add(i);
        cuts.add(end + 1);
        i = end;
      }
    }
    cuts.add(code.size());
    long prevCycles = 0;
    long prevIssued = 0;
    int prev = 0;
    for (int cut : cuts) {
      if (cut <= prev) {
        continue;
      }
      List<DspInstruction> prefix = new ArrayList<>(code.subList(0, cut));
      if (prefix.get(prefix.size() - 1).op() != DspOp.HALT) {
        prefix.add(new DspInstruction(DspOp.HALT, 0, 0, 0, 0, false, 0, 0));
      }
      DspProgram pp = new DspProgram("prefix", prefix);
      long halt = cut == code.size() ? 0 : 1;
      long c = pp.cycles(pipe) - halt;
      long issued = pp.issued() - halt;
      DspInstruction first = code.get(prev);
      String what = first.op() == DspOp.LOOP
          ? "loop ×" + (first.imm() & 0xFFFF) + ", body " + (first.imm() >>> 16) + " from " + code.get(prev + 1).op()
          : (cut - prev) + " straight from " + first.op();
      System.out.printf("  [%3d, %3d) %-34s issued %4d  cycles %4d  stalls %4d%n", prev, cut, what,
          issued - prevIssued, c - prevCycles, c - prevCycles - issued + prevIssued);
      prevCycles = c;
      prevIssued = issued;
      prev = cut;
    }
  }
}
