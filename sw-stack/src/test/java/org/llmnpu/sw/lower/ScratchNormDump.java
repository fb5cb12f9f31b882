package org.llmnpu.sw.lower;

import java.util.List;
import org.junit.jupiter.api.Test;
import org.llmnpu.isa.MachineParams;
import org.llmnpu.isa.dsp.DspInstruction;
import org.llmnpu.isa.dsp.DspIssueWindow;
import org.llmnpu.isa.dsp.DspKernel;
import org.llmnpu.isa.dsp.DspOp;
import org.llmnpu.isa.dsp.DspProgram;

class ScratchNormDump {
  @Test
  void dump() throws Exception {
    var dsp = new MachineParams.DspParams(64, 4096, 512, 12, 2, 1L << 32, 4);
    DspRoutines r = new DspRoutines(dsp, 1e-5f);
    int v = r.rows(4096);
    List<DspProgram> norms = List.of(
        r.kernel(DspKernel.RMSNORM, 4096, new int[] {2 * v, 10 * v}, new int[] {3 * v}),
        r.kernel(DspKernel.RMSNORM, 4096, new int[] {7 * v, 10 * v}, new int[] {8 * v}));
    DspProgram p = r.mergedNorms(norms).get(0);
    StringBuilder sb = new StringBuilder();
    DspIssueWindow w = new DspIssueWindow(dsp.pipeline());
    List<DspInstruction> code = p.instructions();
    int loopEnd = -1;
    for (int i = 0; i < code.size(); i++) {
      DspInstruction in = code.get(i);
      int s = w.issue(in);
      sb.append(String.format("%4d %s %s %s%n", i, i <= loopEnd ? "L" : " ", s > 0 ? "+" + s : "  ", in));
      if (in.op() == DspOp.LOOP) loopEnd = i + (in.imm() >>> 16);
    }
    sb.append("cycles ").append(p.cycles(dsp.pipeline())).append(" issued ").append(p.issued());
    java.nio.file.Files.writeString(java.nio.file.Path.of("/tmp/scratch/norm.txt"), sb.toString());
  }
}
