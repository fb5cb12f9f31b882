package org.llmnpu.sw.lower;

import java.util.ArrayList;
import java.util.List;
import org.llmnpu.isa.dsp.DspProgram;

/**
 * How many heads share the attention's probability runs at {@code --fusion full} (issue 32): the heads' scaled
 * SoftMax merged ({@link AttentionSoftmax}) and their probabilities quantized ({@link DspQuantizer}) join into one
 * program where it fits the program memory, and that program, rewritten for run parameters ({@link DspRunForms}), is
 * the same for every head group and query: it stays resident. Three heads (the most the quantization takes, as many as
 * the layout's score rows hold) do not join on the default NPU (326 words at 16 lanes over up to 16 slots: the SoftMax
 * run of 218 and the quantization of 108 overwrite each other's words at every query), two do (223). Over longer
 * contexts the three-head merge's shorter interlock waits outweigh the loads, so the group is chosen by the cycles of
 * all heads' runs over the model's longest context ({@link #atFull}).
 *
 * <p>Cycles: stories260K's 8 heads in groups of two run 4 joined programs a query, resident from the layer's third
 * on, instead of 5 loading runs (3 + 3 + 2: the three-head groups' SoftMax and quantization two runs each); the
 * probabilities are the same bit for bit (each head's instructions are those of its own run, {@link AttentionSoftmax},
 * {@link DspQuantizer}). The 16-token prefill on the default NPU: 345,490 → 329,285 cycles. Since 2026-12-06 a head's
 * codes come out of its SoftMax program against the token's V-scale bound ({@link AttentionSoftmax#withCodes},
 * {@link ValueScaleBound}; the heads merged into one program where that costs less: {@link DspRoutines#probabilityRuns}).
 */
final class HeadGroups {
  private HeadGroups() {
  }

  /**
   * The heads a group holds at {@code --fusion full}: of 1 .. {@code rowsGroup} (the layout's), the one whose groups'
   * probability runs over {@code maxContext} slots cost the fewest cycles for all {@code heads}: a group's runs joined
   * into one program run resident (their issue cycles), runs that do not join each load their program every time
   * (issue cycles and program beats). Ties keep the larger group.
   */
  static int atFull(DspRoutines r, int rowsGroup, int heads, int maxContext, org.llmnpu.isa.MachineParams p) {
    int depth = p.dsp().programDepth();
    int best = rowsGroup;
    long bestCycles = Long.MAX_VALUE;
    for (int group = rowsGroup; group >= 1; group--) {
      long cycles = 0;
      for (int h0 = 0; h0 < heads; h0 += group) {
        List<DspProgram> runs = DspChain.chain(programs(r, Math.min(group, heads - h0), maxContext, true), depth);
        for (DspProgram run : runs) {
          cycles += run.cycles(p.dsp().pipeline()) + (runs.size() == 1 ? 0 : (8L * run.size() + p.lineBytes() - 1)
              / p.lineBytes());
        }
      }
      if (cycles < bestCycles) {
        best = group;
        bestCycles = cycles;
      }
    }
    return best;
  }

  /**
   * A group of {@code group} heads' runs over {@code s} slots, rows apart (the query scale row 0, the K scales and V
   * weights from row 1, each head's three vectors after, the token's bound after the scale rows): with {@code scaled}
   * the scale folded into SoftMax as at {@code --fusion full}, else SoftMax over scores a scale run has scaled
   * ({@link AttentionLowering#unscaled}); the heads merged ({@link AttentionSoftmax}) with their codes, as
   * {@code BatchedAttention#headGroupProbabilities} and {@code AttentionLowering#heads} run them
   * ({@link DspRoutines#probabilityRuns}).
   */
  static List<DspProgram> programs(DspRoutines r, int group, int s, boolean scaled) {
    int rows = r.rows(s);
    List<DspQuantizer.Vector> probabilities = new ArrayList<>();
    List<AttentionSoftmax.Head> heads = new ArrayList<>();
    for (int i = 0; i < group; i++) {
      int base = 1 + rows + 3 * rows * i;
      heads.add(scaled ? new AttentionSoftmax.Head(base, 0, 1, (short) 0x3C00, base + rows, base + 2 * rows)
          : AttentionSoftmax.Head.unscaled(base + rows, base + 2 * rows));
      probabilities.add(new DspQuantizer.Vector(base + 2 * rows, s, 1, base, 1 + rows + 3 * rows * group + i));
    }
    return r.probabilityRuns(heads, probabilities, 1 + rows + 3 * rows * group + group, s);
  }
}
