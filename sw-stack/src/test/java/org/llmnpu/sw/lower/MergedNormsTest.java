package org.llmnpu.sw.lower;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.llmnpu.isa.Counter;
import org.llmnpu.isa.MachineParams;
import org.llmnpu.isa.dsp.DspKernel;
import org.llmnpu.isa.dsp.DspPipeline;
import org.llmnpu.isa.dsp.DspProgram;
import org.llmnpu.numerics.fp16.Fp16;
import org.llmnpu.sw.model.ModelConfig;
import org.llmnpu.sw.model.ModelWeights;
import org.llmnpu.sw.model.SyntheticWeights;

/**
 * {@link DspRoutines#mergedNorms}: two tokens' RMSNorms (the weight shared) as one program, loops merged with their
 * carried sums of squares ({@link DspLoopRegisters}) and reordered ({@link DspListSchedule}), leave the buffer as the
 * two kernels run one after the other do, bit for bit, on the golden DSP; the golden counts the merged program's
 * static cycles, fewer than the two kernels joined where the merge is taken. Shapes: LLaMA-2-7B's dim 4096 on
 * edge-64's DSP (64 lanes, four execute stages, 512 words), stories260K's 64 and ragged ones, a two-stage DSP.
 */
class MergedNormsTest {
  @ParameterizedTest
  @CsvSource({"4096,64,4,true", "4096,64,2,true", "288,64,4,true", "172,16,4,true", "64,16,4,false", "100,8,4,true",
      "768,32,4,true"})
  void pairBitExactAndFewerCycles(int dim, int lanes, int stages, boolean merges) {
    NormPair pair = NormPair.of(dim, lanes, stages);
    DspPipeline pipe = pair.pipe();
    DspRoutines r = pair.routines();
    int v = pair.v();
    List<DspProgram> norms = pair.norms();
    List<DspProgram> runs = r.mergedNorms(norms);
    if (merges) {
      assertEquals(1, runs.size(), "one run");
      assertTrue(runs.get(0).name().startsWith("merged"), runs.get(0).name());
      assertTrue(runs.get(0).size() <= 512);
    }
    Random rnd = new Random(dim * 7L + lanes + stages);
    short[] buffer = pair.buffer(11, rnd);
    long[] separate = new long[1];
    long[] merged = new long[1];
    short[] expected = DspListScheduleTest.run(lanes, 11 * v, pipe, buffer, norms, separate);
    assertArrayEquals(expected, DspListScheduleTest.run(lanes, 11 * v, pipe, buffer, runs, merged));
    long joined = DspChain.join(norms).cycles(pipe);
    long statics = runs.stream().mapToLong(p -> p.cycles(pipe)).sum();
    assertEquals(statics, merged[0], "the golden counts the static cycles");
    if (merges) {
      assertTrue(statics < joined, statics + " cycles against " + joined + " joined");
    }
  }

  /**
   * The pair's static quantizations folded into the merged program's loops ({@link DspLoopQuantizeFold}, via
   * {@link DspQuantizeFold#runs}): the buffer as the two RMSNorm kernels and the two quantizations run one after the
   * other leave it, bit for bit, but for the RMSNorms' FP16 rows, which the folded run does not store (they hold what
   * they held before); golden = static cycles; where it folds (whole rows) one run, fewer cycles than the merged
   * RMSNorms and the quantizations' own run.
   */
  @ParameterizedTest
  @CsvSource({"4096,64,4,true", "4096,64,2,true", "288,64,4,false", "256,16,4,true", "768,32,4,true", "100,8,4,false",
      "4096,64,1,false"})
  void quantizationsFoldIntoTheLoops(int dim, int lanes, int stages, boolean folds) {
    NormPair pair = NormPair.of(dim, lanes, stages);
    DspPipeline pipe = pair.pipe();
    DspRoutines r = pair.routines();
    int v = pair.v();
    List<DspProgram> norms = pair.norms();
    short k = Fp16.fromDouble(1 / 0.031);
    short d = Fp16.fromDouble(0.031);
    List<DspQuantizeFold.Codes> codes = List.of(new DspQuantizeFold.Codes(3 * v, dim, k, 4 * v, 11 * v, d),
        new DspQuantizeFold.Codes(8 * v, dim, k, 9 * v, 11 * v, d));
    List<DspProgram> separate = new java.util.ArrayList<>(norms);
    for (DspQuantizeFold.Codes c : codes) {
      separate.add(r.quantizeStatic(c.in(), c.len(), -1, c.k(), c.out(), c.scaleRow(), c.d()));
    }
    List<DspProgram> merged = r.mergedNorms(norms);
    List<DspProgram> runs = DspQuantizeFold.runs(r, merged, codes);
    assertEquals(folds, runs.size() == 1, runs.size() + " runs");
    Random rnd = new Random(dim * 5L + lanes + stages);
    short[] buffer = pair.buffer(12, rnd);
    long[] golden = new long[1];
    short[] expected = DspListScheduleTest.run(lanes, 12 * v, pipe, buffer, separate, new long[1]);
    if (folds) {
      // folded, the RMSNorms' FP16 rows (scratch: the codes are their only reader) are not stored: as before the run
      expected = DspQuantizeFoldTest.unwritten(expected, buffer, codes, lanes);
    }
    assertArrayEquals(expected, DspListScheduleTest.run(lanes, 12 * v, pipe, buffer, runs, golden));
    long statics = runs.stream().mapToLong(p -> p.cycles(pipe)).sum();
    assertEquals(statics, golden[0], "the golden counts the static cycles");
    if (folds) {
      long before = merged.stream().mapToLong(p -> p.cycles(pipe)).sum() + r.mergedKernels(separate.subList(2, 4))
          .stream().mapToLong(p -> p.cycles(pipe)).sum();
      assertTrue(statics < before, statics + " cycles against " + before);
      System.out.printf("pair of %d over %d lanes, %d stages: %,d cycles folded, %,d as two runs%n", dim, lanes,
          stages, statics, before);
    }
  }

  /**
   * {@link DspLoopQuantizeFold} on a hand-written producer whose loop stores the input rows masked: under a length that
   * covers every pass's row it folds, bit-exact against the producer and the quantization run one after the other;
   * where the last pass's row is stored on one lane only (what the quantization would load is the rest of the row as
   * it was) it refuses; and where the store's rows reach outside the quantization's input it refuses.
   */
  @Test
  void loopFoldOnlyWhereEveryInputRowIsStoredWhole() {
    int lanes = 4;
    var dsp = new MachineParams.DspParams(lanes, 64, 256, 12, 2, 1L << 32, 4);
    DspRoutines r = new DspRoutines(dsp, 1e-5f);
    short k = Fp16.fromDouble(5.0);
    List<DspQuantizeFold.Codes> codes =
        List.of(new DspQuantizeFold.Codes(8, 4 * lanes, k, 16, 24, Fp16.fromDouble(0.2)));
    assertTrue(DspLoopQuantizeFold.fold(producer(4 * lanes, 4, 8), codes, lanes) != null, "whole rows");
    assertEquals(null, DspLoopQuantizeFold.fold(producer(3 * lanes + 1, 4, 8), codes, lanes), "last row on one lane");
    assertEquals(null, DspLoopQuantizeFold.fold(producer(4 * lanes, 5, 7), codes, lanes), "rows outside the codes'");
    DspProgram whole = producer(4 * lanes, 4, 8);
    DspProgram folded = DspListSchedule.schedule(DspLoopQuantizeFold.fold(whole, codes, lanes), dsp.pipeline());
    Random rnd = new Random(5);
    short[] buffer = new short[32 * lanes];
    for (int e = 0; e < buffer.length; e++) {
      buffer[e] = Fp16.fromDouble(rnd.nextGaussian() * 8);
    }
    long[] cycles = new long[1];
    assertArrayEquals(DspListScheduleTest.run(lanes, 32, dsp.pipeline(), buffer, List.of(whole,
        r.quantizeStatic(8, 4 * lanes, -1, k, 16, 24, Fp16.fromDouble(0.2))), new long[1]),
        DspListScheduleTest.run(lanes, 32, dsp.pipeline(), buffer, List.of(folded), cycles));
    assertEquals(folded.cycles(dsp.pipeline()), cycles[0], "the golden counts the static cycles");
  }

  /** x·1.5 of rows 0.. stored masked to rows {@code out}.. over {@code passes} passes under length {@code len}. */
  private static DspProgram producer(int len, int passes, int out) {
    org.llmnpu.isa.dsp.DspAssembler a = new org.llmnpu.isa.dsp.DspAssembler();
    a.li(1, Fp16.fromDouble(1.5) & 0xFFFF).setLength(len);
    a.loop(passes, () -> a.load(2, 0).op(org.llmnpu.isa.dsp.DspOp.MUL16, 3, 2, 1)
        .emit(org.llmnpu.isa.dsp.DspOp.ST, 0, 3, 0, 0, true, 0, out));
    return a.finish("producer");
  }

  /**
   * A model whose RMSNorms loop on the default NPU's DSP (dim 128 over 16 lanes, four execute stages; hidden 256 so
   * that the fused feed-forward takes two tokens at a time): the prefill at {@code full} runs merged RMSNorm pairs,
   * its logits are the vertical level's, the cost model follows the golden on every counter, prefill and decode, and
   * the walk (the estimate's cost model, which compiles the pairs on rows of its own) counts the lowering's DSP cycles
   * and instructions.
   */
  @Test
  void loweringRunsThePairsAndTheCostModelFollows() {
    ModelWeights w = SyntheticWeights.generate(new ModelConfig(128, 256, 2, 4, 2, 512, 4096), 3);
    MachineParams m = NpuTargets.defaultNpu();
    LoweredModel model = WeightFormats.lower(w, "int8", m, 24, 16);
    int[] prompt = {1, 403, 407, 261, 378, 300, 12, 99};
    NpuDecoder vertical = new NpuDecoder(model, 8, NpuEngine.GOLDEN, Fusion.VERTICAL);
    NpuDecoder full = new NpuDecoder(model, 8, NpuEngine.GOLDEN, Fusion.FULL);
    NpuDecoder.Step p0 = vertical.prefill(prompt, false);
    NpuDecoder.Step p1 = full.prefill(prompt, false);
    assertArrayEquals(p0.logits()[0], p1.logits()[0], "prefill logits");
    PhaseCostModel cost = PhaseCostModel.forFormat(w.config(), m, 24, 8, "int8", Fusion.FULL);
    java.util.Map<String, java.util.Map<DspProgram, Long>> runs = new java.util.LinkedHashMap<>();
    PhaseCostModelTest.assertEveryCounterEqual(p1, cost.step(prompt.length, 0, w.config().layers()));
    PhaseCostModel walk = walk(w.config(), m);
    PhaseCost lowered = PhaseCostModel.forFormat(w.config(), m, 24, 8, "int8", Fusion.FULL)
        .step(prompt.length, 0, 2);
    PhaseCost walked = walk.step(prompt.length, 0, 2);
    // the DSP's counters (this shape's walk differs from the lowering in a few copies, with or without the pairs)
    for (Counter k : new Counter[] {Counter.DSP_CYCLES, Counter.DSP_INSTRUCTIONS, Counter.DSP_ELEMENTS}) {
      assertEquals(lowered.counter(k), walked.counter(k), "the walk's " + k.key() + " against the lowering's");
    }
    walk = walk(w.config(), m);
    walk.recordDspRuns(runs);
    walk.profile(prompt.length, 0, 1);
    assertTrue(runs.values().stream().flatMap(r -> r.keySet().stream())
        .anyMatch(p -> p.name().startsWith("merged [rmsnorm") && p.name().contains("] [quantizeStatic")
            && p.instructions().stream().anyMatch(i -> i.op() == org.llmnpu.isa.dsp.DspOp.LOOP)),
        "merged RMSNorm pairs with loops and their codes run");
    PhaseCostModelTest.assertEveryCounterEqual(full.decode(301), cost.step(1, prompt.length, w.config().layers()));
  }

  /** The extrapolating cost model (the estimate's: the walk compiles its own programs) at full, int8. */
  private static PhaseCostModel walk(ModelConfig c, MachineParams m) {
    return new PhaseCostModel(c, m, 24, 8, true, WeightFormats.bits("int8"), WeightFormats.group("int8"),
        WeightFormats.sparsity("int8"), WeightFormats.mx("int8"), Fusion.FULL);
  }

  /**
   * Two RMSNorm kernels over {@code dim} (inputs at rows 2v and 7v, outputs at 3v and 8v, one gamma at 10v) on a DSP of
   * {@code lanes} lanes and {@code stages} execute stages with 512 program words; v = rows of one vector.
   */
  private record NormPair(DspRoutines routines, DspPipeline pipe, int v, List<DspProgram> norms) {
    static NormPair of(int dim, int lanes, int stages) {
      var dsp = new MachineParams.DspParams(lanes, 4096, 512, 12, 2, 1L << 32, stages);
      DspRoutines r = new DspRoutines(dsp, 1e-5f);
      int v = r.rows(dim);
      int gamma = 10 * v;
      return new NormPair(r, dsp.pipeline(), v, List.of(
          r.kernel(DspKernel.RMSNORM, dim, new int[] {2 * v, gamma}, new int[] {3 * v}),
          r.kernel(DspKernel.RMSNORM, dim, new int[] {7 * v, gamma}, new int[] {8 * v})));
    }

    /** A buffer of {@code vectors}·v rows: the first 10·v rows (inputs, gamma) of spread 3, the rest 0.5. */
    short[] buffer(int vectors, Random rnd) {
      int lanes = routines.lanes();
      short[] buffer = new short[vectors * v * lanes];
      for (int e = 0; e < buffer.length; e++) {
        buffer[e] = Fp16.fromDouble(rnd.nextGaussian() * (e < 10 * v * lanes ? 3 : 0.5));
      }
      return buffer;
    }
  }
}
