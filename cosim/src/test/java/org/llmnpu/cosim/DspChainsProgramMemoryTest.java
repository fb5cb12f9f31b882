package org.llmnpu.cosim;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.llmnpu.isa.Command;
import org.llmnpu.isa.CommandCodec;
import org.llmnpu.isa.MachineParams;
import org.llmnpu.isa.dsp.DspInstruction;
import org.llmnpu.isa.dsp.DspOp;
import org.llmnpu.rtl.npu.NpuConfig;

/**
 * Every {@code dsprun} of a {@link DspChains} program executes only program words that the program itself wrote
 * (by a loading {@code dsprun} or a {@code dspld}) and reaches a {@code HALT} through them. Program memory keeps its
 * words across a reset on the RTL and is all NOPs in the golden, so a run into words the program did not write gives
 * the golden's NOPs on a fresh model and the previous program's words on a reused one (the edge64 report's finding
 * 1; {@link ReusedDspModelCosimTest}). Checked from the commands and the image, without a model: straight from the
 * entry, wrapping at the depth (a {@code LOOP} only repeats words after itself and before its end).
 */
class DspChainsProgramMemoryTest {

  @Test
  void everyDspRunExecutesOnlyWordsItsProgramWrote() {
    List<NpuConfig> configs = List.of(NpuConfig.small(), ReusedDspModelCosimTest.SMALL_512_WORDS,
        Edge64CosimTest.EDGE64);
    List<String> bad = new ArrayList<>();
    for (NpuConfig c : configs) {
      for (int seed = 0; seed < 24; seed++) {
        RandomPrograms.Case t = DspChains.generate(c.machine(), new Random(seed), 1 + seed % 3, seed % 2 == 1);
        String problem = unwrittenWordRun(c.machine(), t);
        if (problem != null) {
          bad.add("depth " + c.dspProgramDepth() + ", rows " + c.rows() + ", seed " + seed + ": " + problem);
        }
      }
    }
    assertEquals(List.of(), bad);
  }

  /** The first DSP run of {@code t} that executes a word its program did not write, or null. */
  static String unwrittenWordRun(MachineParams p, RandomPrograms.Case t) {
    int depth = p.dsp().programDepth();
    DspInstruction[] memory = new DspInstruction[depth];
    for (int i = 0; i < t.program().size(); i++) {
      Command c = CommandCodec.decode(t.program().words(i)).orElseThrow();
      if (c instanceof Command.DspLoad l) {
        load(memory, t.image(), l.prog(), (int) l.words(), (int) l.at());
      } else if (c instanceof Command.DspRun r) {
        load(memory, t.image(), r.prog(), (int) r.words(), 0);
        int pc = (int) r.entry();
        for (int step = 0; memory[pc] == null || memory[pc].op() != DspOp.HALT; step++, pc = (pc + 1) % depth) {
          if (memory[pc] == null || step == depth) {
            return "command " + i + " (" + c + ") executes unwritten word " + pc;
          }
        }
      }
    }
    return null;
  }

  private static void load(DspInstruction[] memory, byte[] image, long from, int words, int at) {
    for (int i = 0; i < words; i++) {
      long w = 0;
      for (int b = 7; b >= 0; b--) {
        w = w << 8 | (image[(int) from + 8 * i + b] & 0xFF);
      }
      memory[at + i] = DspInstruction.decode(w);
    }
  }
}
