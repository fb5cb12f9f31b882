package org.llmnpu.sw.lower;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.llmnpu.isa.dsp.DspInstruction;
import org.llmnpu.isa.dsp.DspOp;
import org.llmnpu.isa.dsp.DspProgram;
import org.llmnpu.isa.dsp.DspRunParameters;

/**
 * A static INT8 quantization ({@link DspRoutines#quantizeStatic}) folded into the straight-line program that produces
 * its input ({@code --fusion full}: the merged RMSNorms of two tokens, {@link NormEmitter#residualNormQuantizePair}).
 * Separate, the producer stores each row of its output and the quantization loads it back, times the constant
 * {@code k} and rounds it ({@code TOINT}), and stores the codes and the broadcast scale {@code d}; and the two programs
 * are two {@code dsprun}s that, next to the residual's scales (the pair 234 words, the quantization 34), overflow the
 * 256-word program memory, so each run loads the other's words again. Folded: right after the producer's last store
 * of each input row, {@code TOINT} of the same register (the value the quantization would load) into a register of its
 * own, and before the {@code HALT} the length at full lanes, the codes' stores and the scale rows' stores. A row's code
 * is {@code TOINT} of the same FP16 value by the same {@code k}, so the codes and scales are the two runs' bit for bit;
 * the codes' stores are deferred to the end so that none waits for its {@code TOINT} in the pipeline. The producer's
 * stores of the codes' input rows go ({@link #runs}: the lowering's RMSNorm rows are scratch, the codes their only
 * reader; NormEmitter writes them before every read), one instruction a row; those rows then hold what they held before
 * the run ({@link #fold(DspProgram, List, int)} keeps them, as the two runs leave the buffer). About 20 words instead
 * of the quantization's 34, and one run: the residual, the two RMSNorms and the codes fit the program memory together,
 * and with {@link DspRunForms} one resident program serves every pair of a layer.
 *
 * <p>Applies where the quantization's rows are whole rows ({@code len} a multiple of the lanes) stored by the
 * producer under a length of at least the lanes (every lane written, as the quantization's stores write them), the
 * producer has no loop, and enough registers are free (one a row, and the constants); else {@link #fold} answers null
 * and the two programs run as they are.
 */
final class DspQuantizeFold {
  private DspQuantizeFold() {
  }

  /**
   * One vector's static quantization as {@link DspRoutines#quantizeStatic} without a vector operand: {@code len}
   * elements from row {@code in}, codes {@code saturate(rint(x·k))} to {@code out}, {@code d} broadcast to
   * {@code scaleRow}.
   */
  record Codes(int in, int len, short k, int out, int scaleRow, short d) {
  }

  /** The key of a quantization's {@code k} among the constants: its 16 bits. */
  private static int kKey(Codes c) {
    return c.k() & 0xFFFF;
  }

  /** The key of its {@code d}: its 16 bits, apart from every {@code k}. */
  private static int dKey(Codes c) {
    return 0x10000 | c.d() & 0xFFFF;
  }

  /**
   * The runs of {@code norms} (programs producing the vectors) followed by the static quantization of each of
   * {@code codes}: one program with the quantizations folded in where {@link #fold} applies to a single producer, or
   * for a producer with loops {@link DspLoopQuantizeFold} (reordered by {@link DspListSchedule}) where that costs fewer
   * cycles than the two runs, else the producers and the quantizations merged ({@link DspRoutines#mergedKernels}).
   * The same codes, scales and other rows either way; a folded run leaves the codes' input rows (the producers' FP16
   * outputs, scratch) unwritten (2026-12-07: 64 instructions a token of LLaMA-2-7B's RMSNorm pairs on edge-64).
   */
  static List<DspProgram> runs(DspRoutines r, List<DspProgram> norms, List<Codes> codes) {
    DspProgram folded = norms.size() == 1 ? fold(norms.get(0), codes, r.lanes(), false) : null;
    if (folded != null && folded.size() <= r.programDepth()) {
      return List.of(folded);
    }
    List<DspProgram> runs = new ArrayList<>(norms);
    runs.addAll(r.mergedKernels(codes.stream()
        .map(c -> r.quantizeStatic(c.in(), c.len(), -1, c.k(), c.out(), c.scaleRow(), c.d())).toList()));
    DspProgram looped = norms.size() == 1 ? DspLoopQuantizeFold.fold(norms.get(0), codes, r.lanes(), false) : null;
    if (looped != null) {
      looped = DspListSchedule.schedule(looped, r.pipeline());
      long separate = runs.stream().mapToLong(p -> p.cycles(r.pipeline())).sum();
      if (looped.size() <= r.programDepth() && looped.cycles(r.pipeline()) < separate) {
        return List.of(looped);
      }
    }
    return runs;
  }

  /** {@code producer} with {@code codes} folded in, or null where the fold does not apply (see the class comment). */
  static DspProgram fold(DspProgram producer, List<Codes> codes, int lanes) {
    return fold(producer, codes, lanes, true);
  }

  /**
   * As {@link #fold(DspProgram, List, int)}; without {@code keepInput} the producer's folded stores of the codes' input
   * rows go (their {@code TOINT} reads the same register), unless the producer loads one of those rows
   * ({@link #readsAny}): the rows then hold what they held before the run.
   */
  static DspProgram fold(DspProgram producer, List<Codes> codes, int lanes, boolean keepInput) {
    List<DspInstruction> in = producer.instructions();
    if (in.isEmpty() || in.get(in.size() - 1).op() != DspOp.HALT) {
      return null;
    }
    boolean[] used = new boolean[DspInstruction.REGISTERS];
    // the producer's last store of every buffer row, and the length it was stored under
    Map<Integer, Integer> lastStore = new HashMap<>();
    Map<Integer, Integer> lengthAt = new HashMap<>();
    int length = -1;
    for (int n = 0; n < in.size() - 1; n++) {
      DspInstruction i = in.get(n);
      boolean parameterRow = i.op().addressesRows() && i.rc() >= DspRunParameters.RC_PARAMETER;
      if (i.op() == DspOp.LOOP || i.op() == DspOp.HALT || i.op().permutes() || parameterRow) {
        return null;
      }
      used[i.rd()] = used[i.ra()] = used[i.rb()] = true;
      if (i.op().readsC()) {
        used[i.rc()] = true;
      }
      if (i.op() == DspOp.SETLEN) {
        length = i.imm();
      } else if (i.op() == DspOp.ST) {
        lastStore.put(i.imm(), n);
        lengthAt.put(i.imm(), length);
      }
    }
    List<Integer> free = new ArrayList<>();
    for (int r = 1; r < DspInstruction.REGISTERS; r++) {
      if (!used[r]) {
        free.add(r);
      }
    }
    // the constants (a register per distinct k and per distinct d, even where a k equals a d: the program's shape
    // must not hang on the values, which the cost model's layout-only lowering does not have), then one a folded row
    Map<Integer, Integer> constant = new LinkedHashMap<>();
    Map<Integer, int[]> rowCode = new HashMap<>(); // producer index → {code register, out row, k register}
    List<int[]> stores = new ArrayList<>(); // {out row, code register}
    int next = 0;
    for (Codes c : codes) {
      if (c.len() % lanes != 0 || c.len() < lanes) {
        return null;
      }
      for (int v : new int[] {kKey(c), dKey(c)}) {
        if (!constant.containsKey(v)) {
          if (next == free.size()) {
            return null;
          }
          constant.put(v, free.get(next++));
        }
      }
      for (int row = 0; row < c.len() / lanes; row++) {
        Integer at = lastStore.get(c.in() + row);
        if (at == null || lengthAt.get(c.in() + row) < lanes || rowCode.containsKey(at) || next == free.size()) {
          return null;
        }
        int reg = free.get(next++);
        rowCode.put(at, new int[] {reg, c.out() + row, constant.get(kKey(c))});
        stores.add(new int[] {c.out() + row, reg});
      }
    }
    boolean drop = !keepInput && !readsAny(in, codes, lanes);
    List<DspInstruction> out = new ArrayList<>();
    constant.forEach((v, r) -> out.add(new DspInstruction(DspOp.LI, r, 0, 0, 0, false, 0, v & 0xFFFF)));
    for (int n = 0; n < in.size() - 1; n++) {
      DspInstruction i = in.get(n);
      int[] code = rowCode.get(n);
      if (code == null || !drop) {
        out.add(i);
      }
      if (code != null) {
        out.add(new DspInstruction(DspOp.TOINT, code[0], i.ra(), code[2], 0, false, 0, 0));
      }
    }
    out.add(new DspInstruction(DspOp.SETLEN, 0, 0, 0, 0, false, 0, lanes));
    for (int[] s : stores) {
      out.add(new DspInstruction(DspOp.ST, 0, s[1], 0, 0, true, 0, s[0]));
    }
    for (Codes c : codes) {
      out.add(new DspInstruction(DspOp.ST, 0, constant.get(dKey(c)), 0, 0, true, 0, c.scaleRow()));
    }
    out.add(in.get(in.size() - 1));
    StringBuilder name = new StringBuilder(producer.name());
    for (Codes c : codes) {
      name.append(" [quantizeStatic ").append(c.len()).append(" @").append(c.in()).append("->").append(c.out())
          .append('/').append(c.scaleRow()).append(']');
    }
    return new DspProgram(name.toString(), out);
  }

  /**
   * Whether an instruction of {@code code} reads a buffer row of the codes' inputs: an {@code LD} of one (in a loop
   * of count c, rows {@code imm .. imm + c − 1}), or any other row-reading op (the permutations, which read rows a
   * register chooses).
   */
  static boolean readsAny(List<DspInstruction> code, List<Codes> codes, int lanes) {
    int loopEnd = -1;
    int count = 1;
    for (int i = 0; i < code.size(); i++) {
      DspInstruction s = code.get(i);
      if (i > loopEnd) {
        count = 1;
      }
      if (s.op() == DspOp.LOOP) {
        count = Math.max(1, s.imm() & 0xFFFF);
        loopEnd = i + (s.imm() >>> 16);
      } else if (s.op() == DspOp.LDS || s.op() == DspOp.LDG) {
        return true;
      } else if (s.op() == DspOp.LD) {
        for (Codes c : codes) {
          int rows = (c.len() + lanes - 1) / lanes;
          if (s.imm() < c.in() + rows && s.imm() + count > c.in()) {
            return true;
          }
        }
      }
    }
    return false;
  }
}
