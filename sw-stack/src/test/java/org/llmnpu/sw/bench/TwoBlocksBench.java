package org.llmnpu.sw.bench;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.llmnpu.hdl.bench.BenchRecord;
import org.llmnpu.isa.Counter;
import org.llmnpu.isa.MachineParams;
import org.llmnpu.sw.io.ModelCatalog;
import org.llmnpu.sw.lower.Fusion;
import org.llmnpu.sw.lower.NpuTargets;
import org.llmnpu.sw.lower.PhaseCost;
import org.llmnpu.sw.lower.PhaseCostModel;
import org.llmnpu.sw.model.ModelConfig;

/**
 * Two token blocks in flight ({@code DecoderLowering#twoBlocks}) against one block at a time, stories260K INT8 at
 * {@code --fusion full}: the prefill of P tokens (context P + 2) on the default NPU (512 DSP rows) and on the same NPU
 * with a 1024- and a 2048-row DSP buffer, for blocks of 8 and 16 tokens, one block at a time, with the interleaving
 * pass alone and with two blocks in flight, from {@link PhaseCostModel}'s exact steps (equal to the golden counters by
 * {@code BlockInterleaverTest}, and the RTL's cycles by {@code TwoBlocksCosimTest}). Run with {@code mvn -q -pl
 * sw-stack -am test -Dbench -Dtest='TwoBlocksBench' -Dsurefire.failIfNoSpecifiedTests=false}.
 */
@ExtendWith(BenchRecord.class)
class TwoBlocksBench {
  private static MachineParams withRows(MachineParams p, int rows) {
    MachineParams.DspParams d = p.dsp();
    return p.withDsp(new MachineParams.DspParams(d.lanes(), rows, d.programDepth(), d.tableSegments(),
        d.tableDegree(), d.maxRunCycles(), d.executeStages()));
  }

  @Test
  void stories260KTwoBlocksInFlight() throws Exception {
    ModelConfig c = ModelCatalog.load("stories260K", 1).config();
    MachineParams base = NpuTargets.defaultNpu();
    MachineParams.DspParams d = base.dsp();
    MachineParams wide = withRows(base, 2 * d.rows());
    MachineParams wider = withRows(base, 4 * d.rows());
    System.out.println("| DSP rows | prompt | block | one block | interleaved | two blocks | two/one | MACs equal | "
        + "two blocks in flight |");
    System.out.println("|---:|---:|---:|---:|---:|---:|---:|---|---|");
    for (MachineParams p : new MachineParams[] {base, wide, wider}) {
      for (int prompt : new int[] {16, 64}) {
        for (int block : new int[] {8, 16}) {
          PhaseCost[] cost = new PhaseCost[3];
          String why = "";
          for (int mode = 0; mode < 3; mode++) {
            PhaseCostModel m = PhaseCostModel.forFormat(c, p, prompt + 2, block, "int8", Fusion.FULL)
                .interleave(mode > 0, mode > 1);
            cost[mode] = m.step(prompt, 0, c.layers());
            if (mode == 2) {
              why = m.twoBlocksWhyNot();
            }
          }
          System.out.printf("| %d | %d | %d | %,d | %,d | %,d | %.4f | %s | %s |%n", p.dsp().rows(), prompt, block,
              cost[0].cycles(), cost[1].cycles(), cost[2].cycles(), cost[2].cycles() / (double) cost[0].cycles(),
              cost[0].counter(Counter.MACS) == cost[2].counter(Counter.MACS), why.isEmpty() ? "yes" : "no: " + why);
        }
      }
    }
  }
}
