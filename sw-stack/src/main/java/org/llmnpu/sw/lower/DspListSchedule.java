package org.llmnpu.sw.lower;

import java.util.ArrayList;
import java.util.List;
import org.llmnpu.isa.dsp.DspInstruction;
import org.llmnpu.isa.dsp.DspIssueWindow;
import org.llmnpu.isa.dsp.DspOp;
import org.llmnpu.isa.dsp.DspPipeline;
import org.llmnpu.isa.dsp.DspProgram;

/**
 * A DSP program's instructions reordered for a pipelined DSP's interlock (issue 32): each straight-line stretch and
 * each loop body on its own (the {@code LOOP}s, {@code HALT} and the stretches' order stay), its instructions issued
 * in an order that keeps every dependence of the original (a register read after its write, written after its
 * reads, written after its write; a masked instruction after the {@code SETLEN} before it and before the next; a
 * row's store after the loads and stores of that row before it and before those after it; the permuting row ops
 * in order with every row op), chosen by list scheduling against the interlock: at each issue the ready instruction
 * with the fewest stall cycles ({@link DspIssueWindow}), ties to the longest latency-weighted path to the stretch's
 * end, then to program order. A pipelined DSP's merged SoftMax runs ({@link AttentionSoftmax}) are several heads'
 * dependent chains (reduction trees, reciprocals, the exp pass) interleaved copy by copy, so that each FP result is
 * read by the next step's first copy before the pipeline writes it back; skewing the chains fills those waits.
 *
 * <p><b>Same results.</b> Within a loop body the dependences are those of one iteration; keeping all of them keeps
 * each iteration's values, so the program computes what the original does, bit for bit (the instructions are the
 * same, only their order changes). <b>Cycles.</b> {@link #schedule} returns the reordered program only where its
 * exact static count ({@link DspProgram#cycles}: the golden's and the RTL's) is lower, else the original.
 */
final class DspListSchedule {
  /** Priority variants tried: stall-first, path-first, then stall-first with the paths jittered by a fixed seed. */
  private static final int VARIANTS = 10;

  private DspListSchedule() {
  }

  /** {@code program} reordered (see the class) when that costs fewer cycles on {@code pipeline}, else itself. */
  static DspProgram schedule(DspProgram program, DspPipeline pipeline) {
    if (pipeline.executeStages() <= 1) {
      return program;
    }
    DspProgram best = program;
    long bestCycles = program.cycles(pipeline);
    java.util.Map<Integer, Graph> graphs = new java.util.HashMap<>();
    for (int mode = 0; mode < 2 * VARIANTS; mode++) {
      DspProgram p = new DspProgram(program.name(), schedule(program.instructions(), pipeline, mode / 2,
          (mode & 1) != 0, graphs));
      long cycles = p.cycles(pipeline);
      if (cycles < bestCycles) {
        best = p;
        bestCycles = cycles;
      }
    }
    return best;
  }

  /**
   * The list-scheduled order with priority {@code variant} (0 stalls first, 1 path first, more: stalls first with
   * jittered paths); {@code steady} schedules a loop body against the window its own end leaves (the passes after
   * the first); {@code graphs} the stretches' dependence graphs by their first instruction.
   */
  private static List<DspInstruction> schedule(List<DspInstruction> code, DspPipeline pipeline, int variant,
      boolean steady, java.util.Map<Integer, Graph> graphs) {
    List<DspInstruction> out = new ArrayList<>(code.size());
    DspIssueWindow window = new DspIssueWindow(pipeline);
    int start = 0;
    for (int i = 0; i <= code.size(); i++) {
      boolean end = i == code.size();
      DspOp op = end ? DspOp.HALT : code.get(i).op();
      if (op != DspOp.LOOP && op != DspOp.HALT) {
        continue;
      }
      int from = start;
      int to = i;
      out.addAll(stretch(graphs.computeIfAbsent(from, k -> new Graph(code.subList(from, to), pipeline)), window,
          variant));
      if (end) {
        break;
      }
      out.add(code.get(i));
      window.issue(code.get(i));
      if (op == DspOp.LOOP) {
        int body = Math.min(code.get(i).imm() >>> 16, code.size() - i - 1);
        int first = i + 1;
        Graph g = graphs.computeIfAbsent(first, k -> new Graph(code.subList(first, first + body), pipeline));
        if (steady) {
          DspIssueWindow entry = new DspIssueWindow(pipeline);
          out.forEach(entry::issue);
          stretch(g, entry, variant);
          List<DspInstruction> again = stretch(g, entry, variant);
          again.forEach(window::issue);
          out.addAll(again);
        } else {
          out.addAll(stretch(g, window, variant));
        }
        i += body;
      }
      start = i + 1;
    }
    return out;
  }

  /** A stretch's dependences: each instruction's later dependents, its count of earlier ones, its path. */
  private static final class Graph {
    final List<DspInstruction> code;
    final int[][] successors;
    final int[] preds;
    final long[] path;

    Graph(List<DspInstruction> code, DspPipeline pipeline) {
      this.code = code;
      int n = code.size();
      List<List<Integer>> succ = new ArrayList<>();
      preds = new int[n];
      for (int i = 0; i < n; i++) {
        succ.add(new ArrayList<>());
      }
      for (int j = 0; j < n; j++) {
        for (int i = 0; i < j; i++) {
          if (dependent(code.get(i), code.get(j))) {
            succ.get(i).add(j);
            preds[j]++;
          }
        }
      }
      successors = new int[n][];
      path = new long[n];
      for (int i = n - 1; i >= 0; i--) {
        successors[i] = succ.get(i).stream().mapToInt(Integer::intValue).toArray();
        long latency = (code.get(i).op().roundsLate() ? pipeline.fpLatency() : 1) * 4L;
        path[i] = latency;
        for (int j : successors[i]) {
          path[i] = Math.max(path[i], latency + path[j]);
        }
      }
    }
  }

  /** One stretch's instructions in list-scheduled order (priority {@code variant}), issued into {@code window}. */
  private static List<DspInstruction> stretch(Graph g, DspIssueWindow window, int variant) {
    List<DspInstruction> code = g.code;
    int n = code.size();
    int[] preds = g.preds.clone();
    long[] path = g.path.clone();
    if (variant >= 2) {
      java.util.Random jitter = new java.util.Random(variant);
      for (int i = 0; i < n; i++) {
        path[i] += jitter.nextInt(6);
      }
    }
    boolean pathFirst = variant == 1;
    boolean[] done = new boolean[n];
    List<DspInstruction> out = new ArrayList<>(n);
    for (int k = 0; k < n; k++) {
      int best = -1;
      int bestStalls = Integer.MAX_VALUE;
      for (int j = 0; j < n; j++) {
        if (done[j] || preds[j] > 0) {
          continue;
        }
        int stalls = window.stallsOf(code.get(j));
        boolean better = pathFirst
            ? best < 0 || path[j] > path[best] || path[j] == path[best] && stalls < bestStalls
            : stalls < bestStalls || stalls == bestStalls && path[j] > path[best];
        if (better) {
          best = j;
          bestStalls = stalls;
        }
      }
      done[best] = true;
      out.add(code.get(best));
      window.issue(code.get(best));
      for (int j : g.successors[best]) {
        preds[j]--;
      }
    }
    return out;
  }

  /** Whether {@code later} must stay after {@code earlier} (see the class). */
  static boolean dependent(DspInstruction earlier, DspInstruction later) {
    int[] w1 = writes(earlier);
    int[] w2 = writes(later);
    int[] r1 = reads(earlier);
    int[] r2 = reads(later);
    if (meets(w1, r2) || meets(r1, w2) || meets(w1, w2)) {
      return true;
    }
    DspOp a = earlier.op();
    DspOp b = later.op();
    if (!a.addressesRows() || !b.addressesRows()) {
      return false;
    }
    boolean store = a == DspOp.ST || a == DspOp.STS || a == DspOp.STG || b == DspOp.ST || b == DspOp.STS
        || b == DspOp.STG;
    boolean plain = (a == DspOp.LD || a == DspOp.ST) && (b == DspOp.LD || b == DspOp.ST);
    return store && (!plain || earlier.imm() == later.imm() || earlier.rc() != later.rc());
  }

  /** The length register's pseudo number (SETLEN writes it, masked instructions read it). */
  private static final int LEN = DspInstruction.REGISTERS;

  private static int[] writes(DspInstruction in) {
    if (in.op() == DspOp.SETLEN) {
      return new int[] {LEN};
    }
    return in.op().writesRegister() ? new int[] {in.rd()} : new int[0];
  }

  private static int[] reads(DspInstruction in) {
    DspOp op = in.op();
    int[] r = new int[5];
    int k = 0;
    if (op.readsA()) {
      r[k++] = in.ra();
    }
    if (op.readsB()) {
      r[k++] = in.rb();
    }
    if (op.readsC()) {
      r[k++] = in.rc();
    }
    if (in.masked()) {
      r[k++] = LEN;
      if (op.writesRegister()) {
        r[k++] = in.rd();
      }
    }
    return java.util.Arrays.copyOf(r, k);
  }

  private static boolean meets(int[] a, int[] b) {
    for (int x : a) {
      for (int y : b) {
        if (x == y) {
          return true;
        }
      }
    }
    return false;
  }
}
