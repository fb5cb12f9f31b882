package org.llmnpu.sw.lower;

import java.util.ArrayList;
import java.util.List;
import java.util.TreeSet;
import org.llmnpu.isa.dsp.DspAssembler;
import org.llmnpu.isa.dsp.DspInstruction;
import org.llmnpu.isa.dsp.DspKernel;
import org.llmnpu.isa.dsp.DspKernels;
import org.llmnpu.isa.dsp.DspLayout;
import org.llmnpu.isa.dsp.DspMath;
import org.llmnpu.isa.dsp.DspOp;
import org.llmnpu.isa.dsp.DspPipeline;
import org.llmnpu.isa.dsp.DspProgram;

/**
 * Attention's score scale and SoftMax of a head group in one run at {@code --fusion full} (issue 32): per head the
 * scale {@code x = ((a·q)·k)·c} ({@link DspRoutines#scale}: the query's scale row q, the slots' K scales k, the
 * constant {@code c = 2^−σ/√headDim}) folded into SoftMax's max pass, then the group's programs merged into one whose
 * loops run every head's row in turn ({@link DspLoopMerge}).
 *
 * <p><b>Numerics.</b> Every element sees the instructions of the separate scale and {@link DspKernels} SoftMax runs
 * in their order, each rounded to FP16 as there: x is stored to the same rows, its max reduced, and the rest of the
 * SoftMax kernel (exp pass, sum, reciprocal, normalization) is the one-stage-execute kernel's code as it is. The
 * probabilities equal the separate runs' bit for bit.
 *
 * <p><b>Cycles.</b> The separate runs are the scale (a pass over the rows), the SoftMax kernel compiled for the
 * pipeline (rows interleaved in its element-wise passes; its reductions, trees and reciprocal one dependent chain
 * that stalls {@code executeStages − 1} cycles an instruction), each loaded by its own {@code dsprun} (three runs for
 * three heads on the stated 32-lane NPU at 128 slots). Merged, the heads' chains interleave, so a dependent
 * instruction issues {@code heads} slots after its producer: with three heads on four execute stages it waits one
 * cycle instead of three; and the scale pass's loads and stores of the scores vanish into the max pass. A group
 * whose merged program does not fit the program memory (or its registers) runs in fewer merged parts, and where the
 * separate runs cost fewer cycles ({@link #runs}) they are kept. Rows every head reads (the query's scale row, the
 * slots' K scales, with codes the V weights, {@code y} and {@code f}) are loaded once for the merged heads, in the
 * loops too ({@link DspLoopMerge}); the merged program is then reordered for the interlock ({@link DspListSchedule}:
 * the same instructions, every dependence kept, taken only where its static cycles are fewer), so that the heads'
 * chains skew into each other's waits: 7B's three heads over 193 slots on edge-64, 588 cycles (520 issued) → 527
 * (502 issued).
 */
final class AttentionSoftmax {
  /**
   * One head's operands (DSP rows): its FP16 scores, the query's broadcast scale row, the slots' K scales, the FP16
   * constant, the scaled scores x (the scale's output, SoftMax's input), the probabilities.
   */
  record Head(int scores, int scaleRow, int vec, short c, int x, int out) {
    /**
     * A head's SoftMax over its scaled scores at {@code x} (computed by its own scale run) into {@code out}: the
     * scale folded into the SoftMax program with no operand but the constant 1 ({@code x·1 = x} in FP16), so that the
     * codes are {@link AttentionSoftmax#withCodes}' as at {@code --fusion full}.
     */
    static Head unscaled(int x, int out) {
      return new Head(x, -1, -1, (short) 0x3C00, x, out);
    }
  }

  private AttentionSoftmax() {
  }

  /**
   * The runs of the group {@code heads} over {@code len} slots: the fused heads merged
   * ({@link #fused}), or {@code separate} (the scale and SoftMax runs as emitted before) when those, chained with
   * {@code after} (the runs that follow: the quantization), take fewer {@code dsprun}s or, as many, fewer cycles.
   */
  static List<DspProgram> runs(List<Head> heads, int len, int lanes, float eps, DspPipeline pipeline, int depth,
      List<DspProgram> separate, List<DspProgram> after) {
    List<DspProgram> each = new ArrayList<>();
    for (Head h : heads) {
      each.add(fused(h, len, lanes, eps));
    }
    List<DspProgram> merged = merged(each, pipeline, depth, after);
    return cost(merged, after, pipeline, depth) < cost(separate, after, pipeline, depth) ? merged : separate;
  }

  /**
   * {@code each} merged ({@link DspLoopMerge}) and scheduled, its loops of one pass (scores of one row) as
   * straight-line code ({@link #singlePassesStraight}) where that costs fewer cycles before {@code after}: the list
   * scheduler then skews the heads' max pass, trees, exp pass and reciprocals into each other's waits across what were
   * loop boundaries (7B on edge-64, 3 heads over up to 64 slots: 254 → 246 cycles, 244 → 242 words).
   */
  private static List<DspProgram> merged(List<DspProgram> each, DspPipeline pipeline, int depth,
      List<DspProgram> after) {
    List<DspProgram> merged = scheduled(DspLoopMerge.mergeRuns(each, depth), pipeline);
    List<DspProgram> straight = new ArrayList<>();
    for (DspProgram p : each) {
      straight.add(singlePassesStraight(p));
    }
    if (straight.equals(each)) {
      return merged;
    }
    List<DspProgram> unlooped = scheduled(DspLoopMerge.mergeRuns(straight, depth), pipeline);
    return cost(unlooped, after, pipeline, depth) < cost(merged, after, pipeline, depth) ? unlooped : merged;
  }

  /**
   * The runs of the group {@code heads} and their probabilities' codes {@code probabilities} (one vector a head, in
   * order) over {@code len} slots: the heads' {@link #withCodes} programs merged ({@link DspLoopMerge}), or each its own
   * run where that takes fewer {@code dsprun}s or, as many, fewer cycles (the same values either way).
   */
  static List<DspProgram> runsWithCodes(List<Head> heads, List<DspQuantizer.Vector> probabilities, int bound, int len,
      int lanes, float eps, DspPipeline pipeline, int depth) {
    List<DspProgram> each = new ArrayList<>();
    for (int i = 0; i < heads.size(); i++) {
      each.add(withCodes(heads.get(i), probabilities.get(i), bound, len, lanes, eps));
    }
    List<DspProgram> merged = merged(each, pipeline, depth, List.of());
    return cost(merged, List.of(), pipeline, depth) <= cost(each, List.of(), pipeline, depth) ? merged : each;
  }

  /** Each of {@code runs} reordered for the interlock where that saves cycles ({@link DspListSchedule}). */
  private static List<DspProgram> scheduled(List<DspProgram> runs, DspPipeline pipeline) {
    List<DspProgram> out = new ArrayList<>();
    for (DspProgram p : runs) {
      out.add(DspListSchedule.schedule(p, pipeline));
    }
    return out;
  }

  /**
   * One head's scale, SoftMax and probability codes as one program, the codes straight out of the exp pass against the
   * token's V-scale bound ({@link ValueScaleBound}): {@link #fused} with its exp pass storing
   * {@code TOINT(fp16(e_j · u_j) · y)} (the vector's {@code vec} rows hold the weights {@code u_j}, row {@code bound}
   * the token's {@code y}, its {@code out} rows take the codes) instead of e, and its normalization pass replaced by
   * the query's scale {@code fp16(r · f)} ({@code r = 1/Σe} as the kernel computes it, {@code f} at row
   * {@code bound + 1}) broadcast to the vector's scale row. e, Σe and r are the SoftMax kernel's bit for bit; per row
   * 3 instructions more in the exp pass ({@code y} loaded before it, one register merged heads share:
   * {@link DspLoopMerge}) and no normalization, absmax or codes pass (the vector's {@code in} rows, the
   * probabilities', are not written).
   */
  static DspProgram withCodes(Head h, DspQuantizer.Vector v, int bound, int len, int lanes, float eps) {
    if (v.len() != len || v.in() != h.out() || v.vec() < 0 || v.product() != null || bound < 0) {
      throw new IllegalArgumentException("the codes must be the head's probabilities against the V weights and a "
          + "bound row, got " + v + ", bound row " + bound);
    }
    DspProgram softmax = fused(h, len, lanes, eps);
    List<DspInstruction> code = softmax.instructions();
    int norm = code.size() - 5;
    DspInstruction loop = code.get(norm);
    DspInstruction mul = code.get(norm + 2);
    if (loop.op() != DspOp.LOOP || loop.imm() >>> 16 != 3 || code.get(norm + 1).op() != DspOp.LD
        || mul.op() != DspOp.MUL16 || code.get(norm + 3).op() != DspOp.ST) {
      throw new IllegalStateException("the SoftMax program does not end with its normalization pass: "
          + code.subList(norm, code.size()));
    }
    int r = mul.rb();
    int exp = norm - 1;
    while (code.get(exp).op() != DspOp.LOOP) {
      exp--;
    }
    int body = code.get(exp).imm() >>> 16;
    int store = exp + 1;
    while (store <= exp + body && !(code.get(store).op() == DspOp.ST && code.get(store).imm() == h.out())) {
      store++;
    }
    if (store > exp + body || exp + body >= norm) {
      throw new IllegalStateException("the SoftMax program's exp pass does not store e: " + code.subList(exp, norm));
    }
    TreeSet<Integer> named = new TreeSet<>();
    for (DspInstruction in : code) {
      named.addAll(List.of(in.rd(), in.ra(), in.rb(), in.rc()));
    }
    int w = 0;
    while (named.contains(w)) {
      w++;
    }
    int yreg = free(named, w + 1);
    if (yreg < 0) {
      throw new IllegalStateException("the SoftMax program leaves no register for the codes");
    }
    // u and f each in a register only its load writes, so that merged heads load them once (DspLoopMerge); in w
    // where the program has no register left for them
    int ureg = free(named, yreg + 1);
    int freg = ureg < 0 ? -1 : free(named, ureg + 1);
    ureg = ureg < 0 ? w : ureg;
    freg = freg < 0 ? w : freg;
    int e = code.get(store).ra();
    DspAssembler a = new DspAssembler();
    a.emitAll(code.subList(0, exp));
    // y before the exp pass: the same row and register in every head's copy, so merged heads share it (DspLoopMerge)
    a.load(yreg, bound);
    a.emit(DspOp.LOOP, 0, 0, 0, 0, false, 0, (body + 3) << 16 | code.get(exp).imm() & 0xFFFF);
    a.emitAll(code.subList(exp + 1, store));
    a.load(ureg, v.vec()).op(DspOp.MUL16, w, e, ureg).aux(DspOp.TOINT, 0, w, w, yreg).store(v.out(), w);
    a.emitAll(code.subList(store + 1, norm));
    a.load(freg, bound + 1).op(DspOp.MUL16, w, r, freg).setLength(lanes).store(v.scaleRow(), w);
    return new DspProgram("bounded " + softmax.name() + " *" + v.vec() + "->" + v.out() + "/" + v.scaleRow() + "*"
        + bound, a.finish("").instructions());
  }

  /**
   * {@code p} with each loop of one pass ({@code LOOP} count 0 or 1: idx 0, as outside loops; every instruction then
   * does what it did in the loop) as straight-line code, a word and a cycle fewer each, so that the list scheduler
   * reorders across it ({@link DspListSchedule} keeps loops and their bodies in place).
   */
  static DspProgram singlePassesStraight(DspProgram p) {
    List<DspInstruction> out = new ArrayList<>();
    for (DspInstruction in : p.instructions()) {
      if (in.op() != DspOp.LOOP || (in.imm() & 0xFFFF) > 1) {
        out.add(in);
      }
    }
    return out.size() == p.size() ? p : new DspProgram(p.name(), out);
  }

  /** The lowest register from {@code from} not in {@code named}, or −1 when there is none. */
  private static int free(java.util.Set<Integer> named, int from) {
    int r = from;
    while (named.contains(r)) {
      r++;
    }
    return r < DspInstruction.REGISTERS ? r : -1;
  }

  /** Runs after chaining (high part) and their cycles: what the stream's {@code dsprun}s of {@code runs, after} cost. */
  private static long cost(List<DspProgram> runs, List<DspProgram> after, DspPipeline pipeline, int depth) {
    List<DspProgram> all = new ArrayList<>(runs);
    all.addAll(after);
    long cycles = 0;
    List<DspProgram> chained = DspChain.chain(all, depth);
    for (DspProgram p : chained) {
      cycles += p.cycles(pipeline);
    }
    return (long) chained.size() << 40 | cycles;
  }

  /**
   * One head's scale and SoftMax as one program: the one-stage-execute SoftMax kernel relocated to rows {@code x →
   * out}, its max pass reading the scores and storing x as the scale does.
   */
  static DspProgram fused(Head h, int len, int lanes, float eps) {
    DspProgram kernel = DspKernels.compile(DspKernel.SOFTMAX, len, lanes, eps, DspMath.DEFAULT,
        DspKernels.Options.DEFAULT);
    DspLayout layout = new DspLayout(DspKernel.SOFTMAX, len, lanes);
    List<DspInstruction> code = kernel.instructions();
    if (code.get(code.size() - 1).op() != DspOp.HALT) {
      throw new IllegalStateException("SoftMax kernel does not end with HALT");
    }
    int loop = 0;
    while (code.get(loop).op() != DspOp.LOOP) {
      loop++;
    }
    DspInstruction load = code.get(loop + 1);
    DspInstruction max = code.get(loop + 2);
    if ((code.get(loop).imm() >>> 16) != 2 || load.op() != DspOp.LD || max.op() != DspOp.MAX16 || !max.masked()
        || load.imm() != layout.inputBase(0)) {
      throw new IllegalStateException("SoftMax kernel's max pass is not LD, masked MAX16: " + code.subList(loop,
          loop + 3));
    }
    TreeSet<Integer> used = new TreeSet<>();
    for (DspInstruction in : code) {
      used.addAll(List.of(in.rd(), in.ra(), in.rb(), in.rc()));
    }
    List<Integer> free = new ArrayList<>();
    for (int r = DspInstruction.REGISTERS - 1; r >= 0 && free.size() < 3; r--) {
      if (!used.contains(r)) {
        free.add(r);
      }
    }
    int q = free.get(0);
    int k = free.get(1);
    int cr = free.get(2);
    int x = load.rd();
    DspAssembler a = new DspAssembler();
    a.emitAll(relocated(code.subList(0, loop), layout, h));
    a.li(cr, h.c() & 0xFFFF);
    if (h.scaleRow() >= 0) {
      a.load(q, h.scaleRow());
    }
    a.loop(code.get(loop).imm() & 0xFFFF, () -> {
      // DspRoutines#scale's row: ((a·q)·k)·c, rounded after each step, stored to x; then SoftMax's max
      a.load(x, h.scores());
      if (h.scaleRow() >= 0) {
        a.op(DspOp.MUL16, x, x, q);
      }
      if (h.vec() >= 0) {
        a.load(k, h.vec()).op(DspOp.MUL16, x, x, k);
      }
      a.op(DspOp.MUL16, x, x, cr).store(h.x(), x);
      a.emitAll(List.of(max));
    });
    // the kernel's rest without its HALT (finish ends the program with one)
    a.emitAll(relocated(code.subList(loop + 3, code.size() - 1), layout, h));
    return new DspProgram("scaled softmax len " + len + " @" + h.scores() + "*" + h.scaleRow() + "*" + h.vec() + "->"
        + h.x() + "->" + h.out(), constantsSunk(a.finish("").instructions()));
  }

  /**
   * {@code code} with each constant (an {@code LI} before the first loop to a register nothing else writes) loaded
   * just before its first reader (before the loop holding it), and dropped when nothing reads it: the same values
   * where they are read, fewer registers live at once, so that more heads' copies fit ({@link DspLoopMerge}).
   */
  static List<DspInstruction> constantsSunk(List<DspInstruction> code) {
    int firstLoop = 0;
    while (firstLoop < code.size() && code.get(firstLoop).op() != DspOp.LOOP) {
      firstLoop++;
    }
    int[] loopStart = new int[code.size()];
    for (int i = 0; i < code.size(); i++) {
      loopStart[i] = i;
      if (code.get(i).op() == DspOp.LOOP) {
        int end = i + (code.get(i).imm() >>> 16);
        for (int k = i; k <= end && k < code.size(); k++) {
          loopStart[k] = i;
        }
        i = end;
      }
    }
    java.util.Map<Integer, List<DspInstruction>> before = new java.util.HashMap<>();
    java.util.Set<Integer> moved = new java.util.HashSet<>();
    for (int i = 0; i < firstLoop; i++) {
      DspInstruction li = code.get(i);
      if (li.op() != DspOp.LI || writes(code, li.rd()) != 1) {
        continue;
      }
      moved.add(i);
      for (int k = i + 1; k < code.size(); k++) {
        if (reads(code.get(k), li.rd())) {
          before.computeIfAbsent(loopStart[k], x -> new ArrayList<>()).add(li);
          break;
        }
      }
    }
    List<DspInstruction> out = new ArrayList<>();
    for (int i = 0; i < code.size(); i++) {
      out.addAll(before.getOrDefault(i, List.of()));
      if (!moved.contains(i)) {
        out.add(code.get(i));
      }
    }
    return out;
  }

  private static int writes(List<DspInstruction> code, int r) {
    int n = 0;
    for (DspInstruction in : code) {
      n += in.op().writesRegister() && in.rd() == r ? 1 : 0;
    }
    return n;
  }

  private static boolean reads(DspInstruction in, int r) {
    DspOp op = in.op();
    return op.readsA() && in.ra() == r || op.readsB() && in.rb() == r || op.readsC() && in.rc() == r
        || op.writesRegister() && in.masked() && in.rd() == r;
  }

  private static List<DspInstruction> relocated(List<DspInstruction> code, DspLayout layout, Head h) {
    List<DspInstruction> out = new ArrayList<>();
    for (DspInstruction i : code) {
      if (i.op() == DspOp.LD || i.op() == DspOp.ST) {
        int row = i.imm();
        int in = layout.inputBase(0);
        int rel = row >= in && row < in + layout.inputRows() ? h.x() + row - in : h.out() + row - layout.outputBase(0);
        out.add(new DspInstruction(i.op(), i.rd(), i.ra(), i.rb(), i.rc(), i.masked(), i.aux(), rel));
      } else {
        out.add(i);
      }
    }
    return out;
  }
}
