package org.llmnpu.sw.lower;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.llmnpu.isa.Command;
import org.llmnpu.isa.MachineParams;
import org.llmnpu.isa.dsp.DspInstruction;
import org.llmnpu.isa.dsp.DspInterpreter;
import org.llmnpu.isa.dsp.DspMath;
import org.llmnpu.isa.dsp.DspProgram;
import org.llmnpu.isa.dsp.DspRunParameters;
import org.llmnpu.sw.io.ModelCatalog;
import org.llmnpu.sw.model.ModelConfig;

/**
 * Every DSP run of the stories260K 16-token prefill at {@code --fusion full}, rewritten for run parameters and run
 * with them, leaves the golden DSP's buffer as the run with rows and lengths compiled in does, in the
 * same cycles; the rewritten runs are fewer distinct programs than the compiled-in ones.
 */
class DspRunParameterizerTest {
  @Test
  void rewrittenRunsEqualTheCompiledInRunsOnStories260K() throws Exception {
    ModelConfig c = ModelCatalog.load("stories260K", 1).config();
    MachineParams p = NpuTargets.defaultNpu();
    MachineParams.DspParams d = p.dsp();
    Map<List<DspInstruction>, DspProgram> distinct = new LinkedHashMap<>();
    for (DspProgram run : runs(c, p)) {
      distinct.putIfAbsent(run.instructions(), run);
    }
    java.util.Set<List<DspInstruction>> rewritten = new java.util.HashSet<>();
    Random rnd = new Random(32);
    for (DspProgram run : distinct.values()) {
      DspRunParameterizer.Parameterized q = DspRunParameterizer.of(run, d.rows());
      rewritten.add(q.program().instructions());
      assertSameRun(d, run, q, rnd.nextLong());
    }
    assertTrue(rewritten.size() < distinct.size(), rewritten.size() + " rewritten of " + distinct.size());
    assertNotEquals(0, rewritten.size());
  }

  /**
   * The program the lowering encodes at {@code full} hands its runs their parameters ({@code dsprun} words 4..6): its
   * resident runs carry row bases; at {@code vertical} (no residency) no run does.
   */
  @Test
  void theEncodedProgramCarriesTheParametersAtFullOnly() throws Exception {
    ModelConfig c = ModelCatalog.load("stories260K", 1).config();
    MachineParams p = NpuTargets.defaultNpu();
    int[] full = parameterizedRuns(c, p, Fusion.FULL);
    int[] vertical = parameterizedRuns(c, p, Fusion.VERTICAL);
    assertTrue(full[1] > 100, "resident runs with parameters: " + full[1]);
    assertTrue(full[0] > full[1], "plain runs with parameters too: " + full[0]);
    assertEquals(0, vertical[0] + vertical[1]);
  }

  /** {dsprun commands with parameters, resident ones among them} of the 16-token prefill encoded at {@code fusion}. */
  private static int[] parameterizedRuns(ModelConfig c, MachineParams p, Fusion fusion) {
    LoweredModel layout = LoweredModel.layoutOnly(c, p, 18, 18, WeightFormats.bits("int8"), WeightFormats.group("int8"),
        WeightFormats.sparsity("int8"), WeightFormats.mx("int8"));
    org.llmnpu.isa.Program.Builder builder = org.llmnpu.isa.Program.builder();
    new DecoderLowering(layout, 16, program -> layout.dspPool, fusion).emit(new int[16], 0, false,
        CommandStream.program(builder));
    org.llmnpu.isa.Program program = builder.build();
    int[] counts = new int[2];
    for (int i = 0; i < program.size(); i++) {
      if (org.llmnpu.isa.CommandCodec.decode(program.words(i)).orElseThrow() instanceof Command.DspRun r
          && !r.parameters().equals(DspRunParameters.NONE)) {
        counts[0]++;
        counts[1] += r.resident() ? 1 : 0;
      }
    }
    return counts;
  }

  /** {@code run} and {@code q} with its parameters leave the golden DSP's buffer (random from {@code seed}) alike. */
  static void assertSameRun(MachineParams.DspParams d, DspProgram run, DspRunParameterizer.Parameterized q, long seed) {
    DspInterpreter a = dsp(d, seed);
    DspInterpreter b = dsp(d, 0).parameters(q.parameters());
    for (int e = 0; e < d.rows() * d.lanes(); e++) {
      b.write(e, a.read(e));
    }
    assertTrue(a.run(run.instructions(), 1L << 24, 0));
    assertTrue(b.run(q.program().instructions(), 1L << 24, 0));
    assertEquals(a.cycles(), b.cycles(), run.name());
    for (int e = 0; e < d.rows() * d.lanes(); e++) {
      assertEquals(a.read(e), b.read(e), run.name() + " element " + e);
    }
  }

  private static DspInterpreter dsp(MachineParams.DspParams d, long seed) {
    DspInterpreter i = new DspInterpreter(d.lanes(), d.rows(), DspMath.DEFAULT).pipeline(d.pipeline());
    Random rnd = new Random(seed);
    for (int e = 0; seed != 0 && e < d.rows() * d.lanes(); e++) {
      i.write(e, (short) rnd.nextInt(0x7C00));
    }
    return i;
  }

  private static DspProgram joined(List<DspProgram> parts) {
    return parts.size() == 1 ? parts.get(0) : DspChain.join(parts);
  }

  /** The joined runs of the 16-token prefill as the lowering compiles them (before it rewrites them for parameters). */
  static List<DspProgram> runs(ModelConfig c, MachineParams p) {
    LoweredModel layout = LoweredModel.layoutOnly(c, p, 18, 18, WeightFormats.bits("int8"), WeightFormats.group("int8"),
        WeightFormats.sparsity("int8"), WeightFormats.mx("int8"));
    DecoderLowering lowering = new DecoderLowering(layout, 16, program -> layout.dspPool, Fusion.FULL);
    List<DspProgram> runs = new ArrayList<>();
    lowering.emit(new int[16], 0, false, new CommandSink() {
      @Override
      public void command(Command cmd) {
      }

      @Override
      public void dspRun(long address, DspProgram program) {
        runs.add(program);
      }

      @Override
      public void dspLoad(long address, DspProgram program, long at) {
      }

      @Override
      public void dspRunResident(DspProgram program, long entry) {
        runs.add(program);
      }

      @Override
      public void dspRun(long address, DspProgram run, List<DspProgram> parts, DspRunParameters params) {
        runs.add(joined(parts));
      }

      @Override
      public void dspRunResident(DspProgram run, List<DspProgram> parts, long entry, DspRunParameters params) {
        runs.add(joined(parts));
      }
    });
    return runs;
  }
}
