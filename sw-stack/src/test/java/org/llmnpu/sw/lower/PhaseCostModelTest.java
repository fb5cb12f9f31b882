package org.llmnpu.sw.lower;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;
import org.llmnpu.isa.Counter;
import org.llmnpu.sw.io.ModelCatalog;
import org.llmnpu.sw.model.ModelWeights;

/** The shape-only cost model reproduces the golden simulator's counters of the lowered programs. */
class PhaseCostModelTest {
  @Test
  void matchesTheGoldenCyclesOfPrefillAndDecode() throws Exception {
    ModelWeights w = ModelCatalog.load("stories260K", 1);
    LoweredModel model = new LoweredModel(w, NpuTargets.defaultNpu(), 24, 16);
    NpuDecoder npu = new NpuDecoder(model, 4, NpuEngine.GOLDEN);
    int[] prompt = {1, 403, 407, 261, 378, 300};
    NpuDecoder.Step pre = npu.prefill(prompt, false);
    NpuDecoder.Step dec = npu.decode(301);
    PhaseCostModel cost = new PhaseCostModel(w.config(), model.machine(), 24, 4, false);
    PhaseCost p = cost.step(prompt.length, 0, w.config().layers());
    PhaseCost d = cost.step(1, prompt.length, w.config().layers());
    assertEveryCounterEqual(pre, p);
    assertEveryCounterEqual(dec, d);
    PhaseCost scaled = cost.step(1, prompt.length, 1);
    System.out.printf("decode: golden %d cycles, one layer costed and scaled %d (%+.3f %%)%n", d.cycles(),
        scaled.cycles(), 100.0 * (scaled.cycles() - d.cycles()) / d.cycles());
    assertEquals(d.cycles(), scaled.cycles(), d.cycles() * 0.01);
  }

  /** A synthetic model (head dim 32, hidden 352) on three memory timings and a 4-lane, 8×8 NPU. */
  @org.junit.jupiter.params.ParameterizedTest
  @org.junit.jupiter.params.provider.CsvSource({"16, 32, 16, 16", "16, 4, 2, 16", "16, 100, 16, 16", "8, 16, 8, 4"})
  void matchesTheGoldenOnOtherShapesAndMachines(int rows, int latency, int bytesPerCycle, int lanes) {
    ModelWeights w = org.llmnpu.sw.model.SyntheticWeights.generate(org.llmnpu.sw.model.ModelConfig.tiny(), 5);
    org.llmnpu.isa.MachineParams m = org.llmnpu.isa.MachineParams.builder().rows(rows).lineBytes(rows)
        .spadBytes(256 * 1024).spadBanks(4).extMemBytes(16L << 20).mTile(16).accWidth(32).icAccumDepth(0).maxM(64)
        .maxK(512).maxN(128).memLatency(latency).memBytesPerCycle(bytesPerCycle).watchdogCycles(1 << 20)
        .dsp(new org.llmnpu.isa.MachineParams.DspParams(lanes, 2048, 256, 12, 2, 1L << 24)).build();
    LoweredModel model = new LoweredModel(w, m, 12, 8);
    NpuDecoder npu = new NpuDecoder(model, 3, NpuEngine.GOLDEN);
    NpuDecoder.Step pre = npu.prefill(new int[] {1, 5, 9, 200, 7}, false);
    NpuDecoder.Step dec = npu.decode(42);
    PhaseCostModel cost = new PhaseCostModel(w.config(), m, 12, 3, false);
    assertEveryCounterEqual(pre, cost.step(5, 0, 4));
    assertEveryCounterEqual(dec, cost.step(1, 5, 4));
  }

  @Test
  void int4WeightsGoThroughLoad4AndTheCostModelFollows() throws Exception {
    ModelWeights w = ModelCatalog.load("stories260K", 1);
    LoweredModel model = new LoweredModel(w, NpuTargets.defaultNpu(), 12, 8, 4);
    LoweredModel int8 = new LoweredModel(w, NpuTargets.defaultNpu(), 12, 8);
    NpuDecoder npu = new NpuDecoder(model, 8, NpuEngine.GOLDEN);
    NpuDecoder.Step pre = npu.prefill(new int[] {1, 403, 407}, false);
    NpuDecoder.Step dec = npu.decode(261);
    PhaseCostModel cost = new PhaseCostModel(w.config(), model.machine(), 12, 8, false, 4);
    assertEveryCounterEqual(pre, cost.step(3, 0, 5));
    assertEveryCounterEqual(dec, cost.step(1, 3, 5));
    NpuDecoder npu8 = new NpuDecoder(int8, 8, NpuEngine.GOLDEN);
    npu8.prefill(new int[] {1, 403, 407}, false);
    NpuDecoder.Step dec8 = npu8.decode(261);
    org.junit.jupiter.api.Assertions.assertTrue(model.weightBytes() < 0.7 * int8.weightBytes());
    long saved = dec8.counter(Counter.DMA_LOAD_BYTES) - dec.counter(Counter.DMA_LOAD_BYTES);
    assertEquals(int8.weightBytes() - model.weightBytes(), saved, "a decode step loads every weight once");
  }

  /**
   * K chunks (maxK 48: every block GEMM and the LM head; maxK 16: also the scores over kvDim 32 and
   * P·V over more than 16 slots), int4-g32 groups, MXFP8 blocks (loadmx) and 2:4-sparse weights: exact.
   */
  @org.junit.jupiter.params.ParameterizedTest
  @org.junit.jupiter.params.provider.CsvSource({"int8, 48, 6", "int8, 16, 18", "int4-g32, 512, 6", "int4-g32, 48, 6",
      "s2_4, 512, 6", "s2_4, 48, 18", "mxfp8, 512, 6", "mxfp8, 48, 6"})
  void isExactForKChunksGroupsAndSparseWeights(String format, int maxK, int promptLen) throws Exception {
    ModelWeights w = ModelCatalog.load("stories260K", 1);
    org.llmnpu.isa.MachineParams m = KTilingTest.withMaxK(maxK)
        .withUnits(0, false, WeightFormats.sparsity(format)).withMxLoad(WeightFormats.mx(format) >= 0);
    LoweredModel model = WeightFormats.lower(w, format, m, 24, 24);
    int block = DecoderLowering.largestBlock(model, 16);
    NpuDecoder npu = new NpuDecoder(model, block, NpuEngine.GOLDEN);
    int[] prompt = new int[promptLen];
    for (int i = 0; i < promptLen; i++) {
      prompt[i] = i == 0 ? 1 : 256 + 7 * i;
    }
    NpuDecoder.Step pre = npu.prefill(prompt, false);
    NpuDecoder.Step dec = npu.decode(301);
    PhaseCostModel cost = PhaseCostModel.forFormat(w.config(), m, 24, block, format);
    PhaseCost p = cost.step(promptLen, 0, w.config().layers());
    PhaseCost d = cost.step(1, promptLen, w.config().layers());
    assertEveryCounterEqual(pre, p);
    assertEveryCounterEqual(dec, d);
    assertEquals(d.cycles(), cost.step(1, promptLen, 1).cycles(), "one layer costed and scaled");
  }

  /** Every counter of the golden simulator's step (work counts and cycle counts) equals the cost model's. */
  static void assertEveryCounterEqual(NpuDecoder.Step golden, PhaseCost model) {
    for (Counter c : Counter.values()) {
      assertEquals(golden.counter(c), model.counter(c), golden.phase() + " " + c.key());
    }
  }
}
