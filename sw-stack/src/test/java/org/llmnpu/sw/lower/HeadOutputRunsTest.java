package org.llmnpu.sw.lower;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.llmnpu.isa.Command;
import org.llmnpu.isa.MachineParams;
import org.llmnpu.sw.estimate.ModelShapes;
import org.llmnpu.sw.io.ModelCatalog;
import org.llmnpu.sw.model.ModelConfig;
import org.llmnpu.sw.model.ModelWeights;

/**
 * A token's P·V results into the DSP with one {@code dspin} per run of evenly spaced heads ({@link HeadOutputRuns},
 * issue 32): which heads merge, and on the golden simulator the logits equal the unfused program's where they do
 * (stories260K on a DSP of 8 lanes: a head's 8 results one whole row; on 16 lanes half a row, through the DSP row
 * stride), with the cost model following.
 */
class HeadOutputRunsTest {
  @Test
  void everyHeadOfATokenGoesInOneDspinWhereEachQueryHeadHasItsOwnKvHead() {
    ModelConfig c = ModelShapes.of("llama-2-7b").config();
    long outStride = LoweredModel.roundUp(4L * (c.headDim() + 64), 64);
    List<long[]> runs = HeadOutputRuns.runs(c, 64, 64, 256, outStride, 5, 0, c.heads());
    assertEquals(1, runs.size());
    assertArrayEquals(new long[] {0, 32, 256 * outStride, 0}, runs.get(0));
    // a head group's heads alone
    assertArrayEquals(new long[] {3, 7, 256 * outStride, 0}, HeadOutputRuns.runs(c, 64, 64, 256, outStride, 0, 3, 7)
        .get(0));
    // a head of 128 results on 48 lanes does not fill whole rows: one dspin with a DSP row stride of 3 rows
    assertArrayEquals(new long[] {0, 32, 256 * outStride, 3},
        HeadOutputRuns.runs(c, 48, 64, 256, outStride, 5, 0, c.heads()).get(0));
  }

  @Test
  void groupedQueriesMergeTheirKvHeadsQueriesOnly() {
    ModelConfig c = ModelConfig.stories260K();
    long outStride = LoweredModel.roundUp(4L * (c.headDim() + 16), 16);
    List<long[]> runs = HeadOutputRuns.runs(c, 8, 16, 6, outStride, 2, 0, c.heads());
    assertEquals(c.kvHeads(), runs.size());
    for (int g = 0; g < c.kvHeads(); g++) {
      assertArrayEquals(new long[] {2L * g, 2, outStride, 0}, runs.get(g));
    }
    // on 16 lanes a head of 8 is half a row: a KV head's two query heads a dspin, a DSP row apart (the row stride)
    List<long[]> strided = HeadOutputRuns.runs(c, 16, 16, 6, outStride, 2, 0, c.heads());
    assertEquals(c.kvHeads(), strided.size());
    for (int g = 0; g < c.kvHeads(); g++) {
      assertArrayEquals(new long[] {2L * g, 2, outStride, 1}, strided.get(g));
    }
  }

  /**
   * For INT8 and {@code int4-g32} weights on a DSP of 8 lanes (a head whole rows: flat) and INT8 on 16 (half a row: the
   * DSP row stride): a KV head's two query heads a dspin, logits = vertical's, cost model = golden.
   */
  @ParameterizedTest
  @CsvSource({"int8, 8", "int4-g32, 8", "int8, 16"})
  void mergedOutputsGiveTheUnfusedLogitsAndTheCostModelFollows(String format, int lanes) throws Exception {
    ModelWeights w = ModelCatalog.load("stories260K", 1);
    MachineParams m = NpuTargets.defaultNpu().withDsp(new MachineParams.DspParams(lanes, 1024, 256, 12, 2, 1L << 24));
    LoweredModel model = WeightFormats.lower(w, format, m, 24, 12);
    int[] prompt = new int[12];
    for (int i = 0; i < prompt.length; i++) {
      prompt[i] = (37 * i + 11) % w.config().vocabSize();
    }
    NpuDecoder vertical = new NpuDecoder(model, 6, NpuEngine.GOLDEN, Fusion.VERTICAL);
    NpuDecoder full = new NpuDecoder(model, 6, NpuEngine.GOLDEN, Fusion.FULL);
    NpuDecoder.Step p1 = full.prefill(prompt, false);
    assertArrayEquals(vertical.prefill(prompt, false).logits()[0], p1.logits()[0], "prefill logits");
    PhaseCostModel cost = PhaseCostModel.forFormat(w.config(), m, 24, 6, format, Fusion.FULL);
    PhaseCostModelTest.assertEveryCounterEqual(p1, cost.step(prompt.length, 0, w.config().layers()));
    // the program's P·V results come in two heads a dspin: a KV head's two query rows
    org.llmnpu.isa.Program.Builder builder = org.llmnpu.isa.Program.builder();
    new DecoderLowering(model, 6, program -> model.dspPool, Fusion.FULL).emit(prompt, 0, false,
        CommandStream.program(builder));
    org.llmnpu.isa.Program program = builder.build();
    int merged = 0;
    for (int i = 0; i < program.size(); i++) {
      if (org.llmnpu.isa.CommandCodec.decode(program.words(i)).orElseThrow() instanceof Command.DspIn in
          && in.format() == Command.FMT_INT32 && in.rows() == w.config().groupSize()
          && in.rowElems() == w.config().headDim() && in.dstStride() == (lanes == 8 ? 0 : 1)) {
        merged++;
      }
    }
    assertTrue(merged >= w.config().layers() * prompt.length * w.config().kvHeads(), format + " merged dspins: "
        + merged);
  }
}
