package org.llmnpu.cosim.axi;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.llmnpu.cosim.decoder.DecoderRun;
import org.llmnpu.isa.Counter;
import org.llmnpu.rtl.npu.NpuConfig;
import org.llmnpu.sw.io.ModelCatalog;
import org.llmnpu.sw.lower.DecoderLowering;
import org.llmnpu.sw.lower.Fusion;
import org.llmnpu.sw.lower.LoweredModel;
import org.llmnpu.sw.lower.NpuDecoder;
import org.llmnpu.sw.lower.WeightFormats;
import org.llmnpu.sw.model.ModelWeights;
import org.llmnpu.sw.model.Ops;
import org.llmnpu.verilator.SimModes;
import org.llmnpu.verilator.axi.Axi4MemoryConfig;

/**
 * stories260K on the default NPU over AXI (16-byte AXI data, read latency 30, write latency 4, 10 % back-pressure,
 * reordering, the protocol checker on): a one-token prefill (BOS) and one decode step, every program bit-exact with
 * the golden ISA simulator, status and work counters equal, and the NPU's cycles at least the cycle model's at
 * {@code memLatency} 32 (a lower side below the stated bound's 30 + 3; the bound itself is checked without
 * back-pressure in {@link NpuAxiCycleBoundTest} and in the test below).
 */
class NpuAxiDecoderCosimTest {
  @Test
  void prefillAndOneDecodeStepAreBitExactOverAxi() throws Exception {
    NpuConfig axi = NpuConfig.defaults().toBuilder().bus("axi").build();
    ModelWeights w = ModelCatalog.load("stories260K", Optional.empty(), 1);
    ModelWeights prepared = WeightFormats.prepare(w, "int8");
    LoweredModel model = new LoweredModel(prepared, axi.machine(), 2, 1, WeightFormats.bits("int8"),
        WeightFormats.group("int8"), WeightFormats.sparsity("int8"), WeightFormats.mx("int8"));
    try (NpuAxiHost host = NpuAxiHost.start(axi, SimModes.local())) {
      NpuAxiEngine engine = new NpuAxiEngine(host, new Axi4MemoryConfig(1, 30, 4, 1, 8, 0.1, true, 260));
      NpuDecoder npu = new NpuDecoder(model, DecoderLowering.largestBlock(model, 16), engine, Fusion.parse("none"));
      NpuDecoder.Step prefill = npu.prefill(new int[] {1}, false);
      npu.decode(Ops.argmax(prefill.logits()[0]));
      assertTrue(engine.checks().size() >= 2, "prefill and decode programs: " + engine.checks().size());
      for (NpuAxiEngine.Check c : engine.checks()) {
        System.out.printf("axi decoder: %s rtl %d cycles, model %d (ratio %.3f), %d read bursts, %d/%d beats, "
                + "%d reads out of order, startToFetch %d, lastStoreToIrq %d, %.1f s%n", c.label(), c.rtlCycles(),
            c.modelCycles(), (double) c.rtlCycles() / c.modelCycles(), c.run().readBursts(), c.run().readBeats(),
            c.run().writeBeats(), c.run().readsOutOfOrder(), c.run().startToFetch(), c.run().lastStoreToIrq(),
            c.run().wallSeconds());
        assertTrue(c.passes(), c.label() + ": bit-exact " + c.bitExact() + ", status " + c.statusEqual()
            + ", counters " + c.countsEqual());
        assertTrue(c.rtlCycles() >= c.modelCycles(), c.label() + ": " + c.rtlCycles() + " < model " + c.modelCycles());
      }
    }
  }

  /**
   * {@code cosim decoder -p bus=axi}'s path ({@code DecoderRun} on the AXI NPU, the same model as above): a one-token
   * prefill and a decode step through the register map, each bit-exact under {@link NpuAxiComparison} with its cycle
   * bound checked (read latency 32 − 3 = 29, a beat a cycle, no back-pressure).
   */
  @Test
  void decoderRunOnTheAxiBusIsBitExactWithinTheBound() throws Exception {
    NpuConfig axi = NpuConfig.defaults().toBuilder().bus("axi").build();
    DecoderRun.Result r = DecoderRun.run(new DecoderRun.Options("stories260K", 1, 2, "int8", DecoderRun.Engine.RTL, 3,
        0, 0, "none"), axi, SimModes.local());
    assertEquals(2, r.steps().size());
    for (DecoderRun.Step s : r.steps()) {
      System.out.printf("axi decoderRun: %s rtl %d cycles, model %d (ratio %.3f)%n", s.phase(), s.rtlCycles(),
          s.counter(Counter.CYCLES), (double) s.rtlCycles() / s.counter(Counter.CYCLES));
      assertTrue(s.bitExact(), s.phase() + ": " + s.difference());
      assertTrue(s.rtlCycles() >= s.counter(Counter.CYCLES), s.phase() + " cycles");
    }
  }
}
