package org.llmnpu.sw.lower;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.llmnpu.isa.MachineParams;
import org.llmnpu.isa.dsp.DspAssembler;
import org.llmnpu.isa.dsp.DspInstruction;
import org.llmnpu.isa.dsp.DspProgram;
import org.llmnpu.sw.io.ModelCatalog;
import org.llmnpu.sw.model.ModelConfig;

/**
 * {@link DspRunForms}: every run of the stories260K 16-token prefill at {@code --fusion full}, rewritten against its
 * form's first run and run with its parameters, leaves the golden DSP's buffer as the compiled-in run does, in the
 * same cycles; and the runs come down to fewer distinct programs than {@link DspRunParameterizer} alone gives.
 */
class DspRunFormsTest {
  @Test
  void rewrittenRunsEqualTheCompiledInRunsAndAreFewerPrograms() throws Exception {
    ModelConfig c = ModelCatalog.load("stories260K", 1).config();
    MachineParams p = NpuTargets.defaultNpu();
    MachineParams.DspParams d = p.dsp();
    DspRunForms forms = new DspRunForms(d.rows());
    Set<List<DspInstruction>> byForms = new HashSet<>();
    Set<List<DspInstruction>> plain = new HashSet<>();
    Map<List<DspInstruction>, Set<List<DspInstruction>>> checked = new HashMap<>();
    Random rnd = new Random(33);
    for (DspProgram run : DspRunParameterizerTest.runs(c, p)) {
      DspRunParameterizer.Parameterized q = forms.rewrite(run, program -> false);
      byForms.add(q.program().instructions());
      plain.add(DspRunParameterizer.of(run, d.rows()).program().instructions());
      if (!checked.computeIfAbsent(run.instructions(), k -> new HashSet<>()).add(q.program().instructions())) {
        continue;
      }
      DspRunParameterizerTest.assertSameRun(d, run, q, rnd.nextLong());
    }
    assertTrue(byForms.size() * 2 < plain.size(), byForms.size() + " programs by form, " + plain.size() + " plain");
  }

  /** Rows that move by five different amounts leave the form to the plain rewriting; an unmoved run too. */
  @Test
  void moreThanFourMovesOrNoneKeepThePlainRewriting() {
    DspProgram first = fiveRows(0);
    DspProgram second = fiveRows(1);
    assertNull(DspRunForms.Moving.of(first, first, 512));
    assertTrue(DspRunForms.Moving.of(second, first, 512).unshareable());
    DspRunForms forms = new DspRunForms(512);
    forms.rewrite(first, program -> false);
    assertEquals(DspRunParameterizer.of(second, 512), forms.rewrite(second, program -> false));
  }

  /** Five loads whose rows move by 1, 2, 3, 4 and 5 times {@code step}. */
  private static DspProgram fiveRows(int step) {
    DspAssembler a = new DspAssembler();
    for (int k = 1; k <= 5; k++) {
      a.load(k, 10 * k + k * step);
    }
    return a.finish("five rows " + step);
  }
}
