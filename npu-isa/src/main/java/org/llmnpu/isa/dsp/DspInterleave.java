package org.llmnpu.isa.dsp;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Row interleaving for {@link DspKernels.Options#interleave()}: a pass whose loop body handles one
 * row independently of the others (a map, no accumulation) runs two rows per iteration, the
 * body's instructions alternating with a copy of themselves that works on other registers. Every
 * instruction is then two issue slots after the one whose result it uses, which hides the
 * one-cycle interlock of the two-stage execute ({@link DspPipeline#TWO_STAGE_EXECUTE}).
 *
 * <p>With R rows and {@code h = floor(R/2)}: copy A handles rows {@code 0..h−1} (full rows, its
 * stores unmasked), copy B rows {@code h..2h−1} (its loads and stores' rows offset by h, masked
 * against the length {@code len − h·lanes}, so that the ragged last row is handled); an odd last
 * row runs once more as straight-line code (rows offset 2h, length {@code len − 2h·lanes}); then
 * the length is set back to {@code len}. A single row runs as that odd row (in a loop of one
 * iteration, preceded by one more {@code SETLEN}, so that every length costs the same instructions). Copy B renames every register the body writes to one of
 * the free registers (those the kernel never uses); a body that needs more than there are runs as
 * one plain loop. Results are those of the plain loop: every row sees the same instructions.
 */
final class DspInterleave {
  private DspInterleave() {
  }

  /**
   * Emits the pass of {@code body} (the instructions of one row, loads and stores at {@code idx}
   * relative rows) over {@code rows} rows.
   */
  static void emit(DspAssembler a, List<DspInstruction> body, int rows, int lanes, int len, List<Integer> free) {
    Map<Integer, Integer> rename = new LinkedHashMap<>();
    for (DspInstruction in : body) {
      if (in.op().writesRegister() && !rename.containsKey(in.rd())) {
        rename.put(in.rd(), rename.size() < free.size() ? free.get(rename.size()) : -1);
      }
    }
    if (rename.containsValue(-1)) {
      a.loop(rows, () -> a.emitAll(body));
      return;
    }
    int h = rows / 2;
    if (h >= 1) {
      List<DspInstruction> merged = new ArrayList<>();
      for (DspInstruction in : body) {
        merged.add(with(in, in.rd(), in.ra(), in.rb(), in.rc(), false, 0));
        merged.add(with(in, map(rename, in.rd()), map(rename, in.ra()), map(rename, in.rb()), map(rename, in.rc()),
            in.masked(), h));
      }
      a.setLength(len - h * lanes);
      a.loop(h, () -> a.emitAll(merged));
    }
    if (rows % 2 == 1) {
      List<DspInstruction> tail = new ArrayList<>();
      for (DspInstruction in : body) {
        tail.add(with(in, in.rd(), in.ra(), in.rb(), in.rc(), in.masked(), 2 * h));
      }
      a.setLength(len - 2 * h * lanes);
      if (h == 0) {
        // one row: the same instructions as the odd row of a longer vector (a loop of one iteration
        // in place of the pairs' loop), so the cycle formula holds for every length
        a.setLength(len);
        a.loop(1, () -> a.emitAll(tail));
      } else {
        a.emitAll(tail);
      }
    }
    a.setLength(len);
  }

  private static int map(Map<Integer, Integer> rename, int r) {
    return rename.getOrDefault(r, r);
  }

  /** {@code in} with new registers and mask, and its buffer row moved by {@code rowOffset} (loads and stores). */
  private static DspInstruction with(DspInstruction in, int rd, int ra, int rb, int rc, boolean masked,
      int rowOffset) {
    boolean memory = in.op() == DspOp.LD || in.op() == DspOp.ST;
    return new DspInstruction(in.op(), rd, ra, rb, rc, masked, in.aux(), memory ? in.imm() + rowOffset : in.imm());
  }
}
