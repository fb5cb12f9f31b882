package org.llmnpu.sw.lower;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.llmnpu.isa.dsp.DspInstruction;
import org.llmnpu.isa.dsp.DspOp;
import org.llmnpu.isa.dsp.DspProgram;
import org.llmnpu.isa.dsp.DspRunParameters;

/**
 * Rewrites a DSP program with its rows and lengths compiled in as one that takes them from its {@code dsprun}
 * ({@link DspRunParameters}): the same program then serves every token and head whose runs differ only in rows and
 * lengths, and can stay resident. The rewritten program run with the returned parameters does exactly what the
 * original does (rows are taken mod the buffer's rows, as the DSP takes them).
 *
 * <p>Rows: the row immediates of the row instructions (LD, ST, LDS, STS, LDG, STG), mod {@code rows}, in order of
 * first appearance: the first three distinct ones become bases 0..2 (immediate 0), every later one an offset from
 * base 3 (the fourth distinct row): two runs share the rewritten program when their first three rows are anything and
 * the rest move together. Lengths: every {@code SETLEN} adds the run's length, the first one's immediate (the others
 * keep their difference to it).
 */
final class DspRunParameterizer {
  private DspRunParameterizer() {
  }

  /** A rewritten program and the parameters that make it do what the original did. */
  record Parameterized(DspProgram program, DspRunParameters parameters) {
  }

  /** {@code program} rewritten for a DSP buffer of {@code rows} rows (a power of two, at most 65,536). */
  static Parameterized of(DspProgram program, int rows) {
    if (rows < 1 || rows > 65536 || Integer.bitCount(rows) != 1) {
      throw new IllegalArgumentException("rows must be a power of two in 1..65536, got " + rows);
    }
    Map<Integer, Integer> baseOf = new LinkedHashMap<>();
    Integer length = null;
    for (DspInstruction i : program.instructions()) {
      if (i.op().addressesRows()) {
        baseOf.putIfAbsent(Math.floorMod(i.imm(), rows), Math.min(baseOf.size(), DspRunParameters.BASES - 1));
      } else if (i.op() == DspOp.SETLEN && length == null) {
        length = i.imm();
      }
    }
    int[] base = new int[DspRunParameters.BASES];
    int n = 0;
    for (int row : baseOf.keySet()) {
      if (n < DspRunParameters.BASES) {
        base[n] = row;
      }
      n++;
    }
    int len = length == null ? 0 : length;
    List<DspInstruction> out = new ArrayList<>();
    for (DspInstruction i : program.instructions()) {
      if (i.op().addressesRows()) {
        int k = baseOf.get(Math.floorMod(i.imm(), rows));
        int imm = Math.floorMod(i.imm() - base[k], rows);
        out.add(new DspInstruction(i.op(), i.rd(), i.ra(), i.rb(), DspRunParameters.RC_PARAMETER + k, i.masked(),
            i.aux(), imm));
      } else if (i.op() == DspOp.SETLEN) {
        out.add(new DspInstruction(i.op(), i.rd(), i.ra(), i.rb(), DspRunParameters.RC_PARAMETER, i.masked(), i.aux(),
            i.imm() - len));
      } else {
        out.add(i);
      }
    }
    return new Parameterized(new DspProgram(program.name(), out),
        new DspRunParameters(base[0], base[1], base[2], base[3], len));
  }
}
