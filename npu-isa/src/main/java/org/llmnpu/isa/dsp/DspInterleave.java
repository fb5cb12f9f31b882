package org.llmnpu.isa.dsp;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Row interleaving for {@link DspKernels.Options#interleave()}: a pass whose loop body handles one
 * row independently of the others (a map, no accumulation) runs K rows per iteration
 * ({@link DspKernels.Options#interleaveRows()}, 2..4), the body's instructions alternating with K − 1
 * copies of themselves that work on other registers. Every instruction is then K issue slots after
 * the one whose result it uses, which hides the interlock of a pipeline with up to K execute stages
 * ({@link DspPipeline}). Public so that programs written elsewhere (the software stack's decoder routines)
 * interleave their row passes the same way.
 *
 * <p>With R rows and {@code h = floor(R/K)}: copy j handles rows {@code j·h..(j+1)·h−1}; copies
 * 0..K−2 hold only full rows (their masks dropped), copy K−1 is masked against the length
 * {@code len − (K−1)·h·lanes}, so that the ragged last row is handled. The {@code r = R mod K} rows
 * left run once more as straight-line code of r interleaved copies (rows {@code K·h..}, the last
 * masked against {@code len − (K·h + r − 1)·lanes}); then the length is set back to {@code len}.
 * Fewer than K rows run as those rows (in a loop of one iteration, preceded by one more
 * {@code SETLEN}, so that every length costs the same instructions). Copy j renames every
 * register the body writes to free registers (those the kernel never uses); when K copies need more
 * than there are, K is lowered ({@link #copiesThatFit}), and below 2 the pass runs as one plain
 * loop. Results are those of the plain loop: every row sees the same instructions.
 */
public final class DspInterleave {
  private DspInterleave() {
  }

  /** The number of copies, at most {@code copies}, whose registers fit in {@code free} (1: none). */
  public static int copiesThatFit(List<DspInstruction> body, int copies, List<Integer> free) {
    int written = written(body).size();
    int k = copies;
    while (k >= 2 && (k - 1) * written > free.size()) {
      k--;
    }
    return Math.max(k, 1);
  }

  /**
   * The register that copy {@code copy} (0 .. K−1) of {@link #emit}'s interleaved body uses for {@code register}: the
   * registers the body writes, in order of first write, are renamed to {@code free} in turn, copy j's from index
   * {@code (j − 1)·written}; copy 0 and every register the body does not write keep their own. So a caller can give the
   * copies of an accumulator their start values before the pass and combine them after it.
   */
  public static int renamed(List<DspInstruction> body, List<Integer> free, int copy, int register) {
    List<Integer> written = written(body);
    int i = written.indexOf(register);
    return copy == 0 || i < 0 ? register : free.get((copy - 1) * written.size() + i);
  }

  private static List<Integer> written(List<DspInstruction> body) {
    List<Integer> rds = new ArrayList<>();
    for (DspInstruction in : body) {
      if (in.op().writesRegister() && !rds.contains(in.rd())) {
        rds.add(in.rd());
      }
    }
    return rds;
  }

  /**
   * Emits the pass of {@code body} (the instructions of one row, loads and stores at {@code idx}
   * relative rows) over {@code rows} rows, {@code copies} rows per iteration (lowered to what fits).
   */
  public static void emit(DspAssembler a, List<DspInstruction> body, int rows, int lanes, int len, List<Integer> free,
      int copies) {
    int k = copiesThatFit(body, copies, free);
    if (k < 2) {
      a.loop(rows, () -> a.emitAll(body));
      return;
    }
    List<Integer> written = written(body);
    List<Map<Integer, Integer>> renames = new ArrayList<>();
    for (int j = 0; j < k; j++) {
      Map<Integer, Integer> rename = new LinkedHashMap<>();
      if (j > 0) {
        for (int i = 0; i < written.size(); i++) {
          rename.put(written.get(i), free.get((j - 1) * written.size() + i));
        }
      }
      renames.add(rename);
    }
    int h = rows / k;
    if (h >= 1) {
      a.setLength(len - (k - 1) * h * lanes);
      a.loop(h, () -> a.emitAll(merge(body, renames, k, j -> j * h)));
    }
    int r = rows % k;
    if (r >= 1) {
      List<DspInstruction> tail = merge(body, renames, r, j -> k * h + j);
      if (h == 0) {
        // fewer rows than copies: the same instructions as the rows left of a longer vector (a loop of one
        // iteration in place of the main loop, and its SETLEN), so the cycle formula holds for every length
        a.setLength(len);
      }
      a.setLength(len - (k * h + r - 1) * lanes);
      if (h == 0) {
        a.loop(1, () -> a.emitAll(tail));
      } else {
        a.emitAll(tail);
      }
    }
    a.setLength(len);
  }

  /** The body's instructions, each followed by its copies 1..n−1; copy j at {@code rowOffset(j)}, only copy n−1 masked. */
  private static List<DspInstruction> merge(List<DspInstruction> body, List<Map<Integer, Integer>> renames, int n,
      java.util.function.IntUnaryOperator rowOffset) {
    List<DspInstruction> merged = new ArrayList<>();
    for (DspInstruction in : body) {
      for (int j = 0; j < n; j++) {
        Map<Integer, Integer> rename = renames.get(j);
        merged.add(with(in, map(rename, in.rd()), map(rename, in.ra()), map(rename, in.rb()), map(rename, in.rc()),
            j == n - 1 && in.masked(), rowOffset.applyAsInt(j)));
      }
    }
    return merged;
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
