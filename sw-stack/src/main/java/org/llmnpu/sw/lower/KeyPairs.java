package org.llmnpu.sw.lower;

import java.util.ArrayList;
import java.util.List;
import org.llmnpu.isa.dsp.DspAssembler;
import org.llmnpu.isa.dsp.DspOp;
import org.llmnpu.isa.dsp.DspProgram;

/**
 * The DSP program that packs two tokens' K codes into one FP16 element a dimension, for {@link KeyColumns}: the
 * element's raw 16 bits are the two codes as they lie side by side in a line of {@code Kᵀ} (the earlier slot's code
 * in the low byte, the next slot's in the high byte), so that one one-element row of the staging carries two
 * columns of {@code Kᵀ} and a {@code dspout} FP16 of the gathered elements writes Kᵀ's bytes as they are.
 *
 * <p><b>Computes</b>, over {@code len} elements (the K rows as {@code dspin} INT8 leaves them: FP16 values equal to
 * the codes), per element: {@code a = TOINT(even · 1)} (INT8: the code, exact), {@code lo = a < 0 ? a + 256 : a}
 * (the code's byte, {@code SELNEG} on bit 15 of the integer), and with an odd row {@code hi = TOINT(odd · 256)}
 * (INT16: the code times 256, exact as |code·256| ≤ 32,768), stored {@code lo + hi} (the buffer keeps the low 16
 * bits: byte 0 the even code, byte 1 the odd one); without one, {@code lo} (byte 1 zero). Integer and exact: the
 * bytes are the codes bit for bit.
 *
 * <p><b>Cycles</b>: per DSP row 5 instructions ({@code LD}, {@code TOINT}, {@code IADD}, {@code SELNEG},
 * {@code ST}), 8 with an odd row, rows interleaved on a pipelined DSP ({@link DspRoutines#rowPass}); the run's
 * cycles are the program's ({@code DspProgram#cycles}).
 */
final class KeyPairs {
  private static final List<Integer> FREE = free();

  private KeyPairs() {
  }

  private static List<Integer> free() {
    List<Integer> r = new ArrayList<>();
    for (int i = 8; i <= 31; i++) {
      r.add(i);
    }
    return r;
  }

  /**
   * Packs the codes at DSP rows {@code even} and {@code odd} (negative: none) of {@code len} elements into
   * {@code out} (may be {@code even}).
   */
  static DspProgram compile(DspRoutines r, int even, int odd, int len, int out) {
    if (len < 1 || even < 0 || out < 0) {
      throw new IllegalArgumentException("KeyPairs needs len >= 1 and rows >= 0, got len " + len + ", even " + even
          + ", out " + out);
    }
    DspAssembler a = new DspAssembler();
    final int one = 1;
    final int byteUp = 2;
    final int times256 = 3;
    final int x = 4;
    final int y = 5;
    final int lo = 6;
    final int t = 7;
    a.li(one, 0x3C00).li(byteUp, 256);
    if (odd >= 0) {
      a.li(times256, 0x5C00);
    }
    a.setLength(len);
    r.rowPass(a, r.rows(len), len, FREE, true, () -> {
      a.load(x, even);
      a.aux(DspOp.TOINT, 0, x, x, one);
      a.op(DspOp.IADD, t, x, byteUp);
      a.emit(DspOp.SELNEG, lo, t, x, x, false, 0, 0);
      if (odd >= 0) {
        a.load(y, odd);
        a.aux(DspOp.TOINT, 1, y, y, times256);
        a.op(DspOp.IADD, lo, lo, y);
      }
      a.store(out, lo);
    });
    return a.finish("keyPair " + len + " @" + even + (odd >= 0 ? "+" + odd : "") + "->" + out);
  }
}
