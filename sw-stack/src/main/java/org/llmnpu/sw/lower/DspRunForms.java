package org.llmnpu.sw.lower;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Predicate;
import org.llmnpu.isa.dsp.DspInstruction;
import org.llmnpu.isa.dsp.DspOp;
import org.llmnpu.isa.dsp.DspProgram;
import org.llmnpu.isa.dsp.DspRunParameters;

/**
 * Which rewriting for run parameters a run's program gets ({@code --fusion full}, with residency): the lowering's
 * runs of one routine differ from token to token and head to head only in some rows and lengths, but
 * {@link DspRunParameterizer}'s rule (the first three distinct rows are bases, the rest move with the fourth) does not
 * follow rows that move after the third, such as a quantization's per-token scale row, nor a full-lane {@code SETLEN}
 * after a run-length one. So each program is also compared with the layer's first program of the same <em>form</em>
 * (the same instructions up to row and {@code SETLEN} immediates, its reference): the rows that differ from the
 * reference's become row bases (rows that moved by the same amount share one), the other rows stay absolute
 * ({@code rc = 0}), and a {@code SETLEN} that differs adds the run's length (the first such one's immediate; the rest
 * keep their difference to it) while an equal one stays absolute. Every token and head of the routine then runs one
 * program, from the second run of the layer on.
 *
 * <p>The choice per run: the {@link DspRunParameterizer} rewriting when its program is intact in the program memory
 * (as before); else the rewriting against the reference (the first of its form keeps the plain rewriting and becomes
 * the reference, unless an earlier layer's runs of its shape already said what moves: {@link #moving} is kept from
 * layer to layer). The cost model's walk follows the same rule without rows ({@link CommandCosts}: a run that is not
 * shared by {@link DspRunParameterizer} is its own program the first time in the step, the shared one afterwards).
 * A rewritten program run with its parameters does exactly what the original does: rows are taken mod the buffer's.
 */
final class DspRunForms {
  private final int rows;
  /** The layer's first program of each form ({@link #form}). */
  private final Map<List<DspInstruction>, DspProgram> references = new HashMap<>();
  /**
   * What moves in each form's shape ({@link #shape}), once a run differed from its reference: kept from layer to layer
   * (a layer's runs of a routine move as the layer before's did), so that from the second layer on the first run of a
   * form is already rewritten as the later ones are, and loads the program they run resident.
   */
  private final Map<List<DspInstruction>, Moving> moving = new HashMap<>();

  /** For a DSP buffer of {@code rows} rows (a power of two). */
  DspRunForms(int rows) {
    this.rows = rows;
  }

  /**
   * The rewriting of {@code program} for a run: {@code plain} ({@link DspRunParameterizer#of}) when {@code intact}
   * says its program is in the program memory, when {@code program} is the first of its form, or while every run of
   * its form had the first's rows; else by what moves in its form ({@link Moving}).
   */
  DspRunParameterizer.Parameterized rewrite(DspProgram program, Predicate<DspProgram> intact) {
    DspRunParameterizer.Parameterized plain = DspRunParameterizer.of(program, rows);
    if (intact.test(plain.program())) {
      return plain;
    }
    List<DspInstruction> form = form(program);
    List<DspInstruction> shape = shape(form);
    DspProgram reference = references.putIfAbsent(form, program);
    Moving m = moving.get(shape);
    if (m == null) {
      m = reference == null ? null : Moving.of(program, reference, rows);
      if (m == null) {
        return plain;
      }
      moving.put(shape, m);
    }
    return m.unshareable() ? plain : m.rewrite(program, rows);
  }

  /** The program's instructions with the row and {@code SETLEN} immediates (and their {@code rc}) cleared. */
  static List<DspInstruction> form(DspProgram program) {
    List<DspInstruction> out = new ArrayList<>(program.size());
    for (DspInstruction i : program.instructions()) {
      boolean variable = i.op().addressesRows() || i.op() == DspOp.SETLEN;
      out.add(variable ? new DspInstruction(i.op(), i.rd(), i.ra(), i.rb(), 0, i.masked(), i.aux(), 0) : i);
    }
    return out;
  }

  /** A form with its constants ({@code LI} immediates) cleared too: a routine's form in every layer. */
  static List<DspInstruction> shape(List<DspInstruction> form) {
    List<DspInstruction> out = new ArrayList<>(form.size());
    for (DspInstruction i : form) {
      out.add(i.op() == DspOp.LI ? new DspInstruction(i.op(), i.rd(), i.ra(), i.rb(), i.rc(), i.masked(), i.aux(), 0)
          : i);
    }
    return out;
  }

  /**
   * Which instructions of a form move from run to run, learned from the first run that differs from the reference:
   * {@code group[n]} the row base of row instruction n (−1: an absolute row; rows that moved by the same amount share
   * a base), {@code length[n]} whether {@code SETLEN} n takes the run's length; {@code unshareable} when the rows
   * moved in more than four ways.
   */
  record Moving(int[] group, boolean[] length, boolean unshareable) {
    /** What moved between {@code program} and {@code reference} (the same form); null when nothing did. */
    static Moving of(DspProgram program, DspProgram reference, int rows) {
      List<DspInstruction> in = program.instructions();
      List<DspInstruction> ref = reference.instructions();
      int[] group = new int[in.size()];
      boolean[] length = new boolean[in.size()];
      Map<Integer, Integer> groupOfShift = new LinkedHashMap<>();
      boolean moved = false;
      for (int n = 0; n < in.size(); n++) {
        DspInstruction i = in.get(n);
        group[n] = -1;
        if (i.op().addressesRows()) {
          int shift = Math.floorMod(i.imm() - ref.get(n).imm(), rows);
          if (shift != 0) {
            if (!groupOfShift.containsKey(shift) && groupOfShift.size() == DspRunParameters.BASES) {
              return new Moving(group, length, true);
            }
            group[n] = groupOfShift.computeIfAbsent(shift, x -> groupOfShift.size());
            moved = true;
          }
        } else if (i.op() == DspOp.SETLEN && i.imm() != ref.get(n).imm()) {
          length[n] = true;
          moved = true;
        }
      }
      return moved ? new Moving(group, length, false) : null;
    }

    /**
     * {@code program} rewritten: the moving rows from their group's base (the group's first row in {@code program}),
     * the moving {@code SETLEN}s from the run's length (the first one's immediate), the rest as they are.
     */
    DspRunParameterizer.Parameterized rewrite(DspProgram program, int rows) {
      List<DspInstruction> in = program.instructions();
      int[] base = new int[DspRunParameters.BASES];
      boolean[] set = new boolean[DspRunParameters.BASES];
      Integer len = null;
      for (int n = 0; n < in.size(); n++) {
        if (group[n] >= 0 && !set[group[n]]) {
          base[group[n]] = Math.floorMod(in.get(n).imm(), rows);
          set[group[n]] = true;
        } else if (length[n] && len == null) {
          len = in.get(n).imm();
        }
      }
      int l = len == null ? 0 : len;
      List<DspInstruction> out = new ArrayList<>(in.size());
      for (int n = 0; n < in.size(); n++) {
        DspInstruction i = in.get(n);
        if (group[n] >= 0) {
          out.add(new DspInstruction(i.op(), i.rd(), i.ra(), i.rb(), DspRunParameters.RC_PARAMETER + group[n],
              i.masked(), i.aux(), Math.floorMod(i.imm() - base[group[n]], rows)));
        } else if (length[n]) {
          out.add(new DspInstruction(i.op(), i.rd(), i.ra(), i.rb(), DspRunParameters.RC_PARAMETER, i.masked(),
              i.aux(), i.imm() - l));
        } else {
          out.add(i);
        }
      }
      return new DspRunParameterizer.Parameterized(new DspProgram(program.name(), out),
          new DspRunParameters(base[0], base[1], base[2], base[3], l));
    }
  }

  /** Forgets the references (a layer's start: its programs' constants are the layer's own), not what moves. */
  void clear() {
    references.clear();
  }
}
