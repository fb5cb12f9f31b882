package org.llmnpu.cosim;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.llmnpu.isa.Counter;
import org.llmnpu.isa.CycleFormulas;
import org.llmnpu.isa.MachineParams;
import org.llmnpu.isa.Program;
import org.llmnpu.rtl.npu.NpuConfig;

/**
 * Each command alone against its formula: a LOAD's DMA cycles, a GEMM's array cycles (the engine
 * recurrence + 1) and controller cycles, a STORE's DMA cycles — over ragged shapes, the RTL's
 * counters equal to the cycle model exactly.
 */
class CommandCyclesTest {
  @RegisterExtension
  static final NpuRtlFixture NPU = new NpuRtlFixture(NpuConfig.small());

  @ParameterizedTest(name = "M {0}, K {1}, N {2}")
  @CsvSource({"1, 1, 1", "4, 4, 4", "5, 7, 6", "17, 3, 9", "8, 33, 5", "3, 64, 1", "20, 20, 20"})
  void eachCommandAloneTakesItsFormulaCycles(int m, int k, int n) {
    MachineParams p = NPU.rtl().config().machine();
    int line = p.lineBytes();
    long xStride = (k + line - 1) / line * line;
    long wStride = (n + line - 1) / line * line;
    long yStride = (4L * n + line - 1) / line * line;
    long w = m * xStride;
    long y = w + k * wStride;
    byte[] image = new byte[(int) p.extMemBytes()];
    new Random(m * 1000 + k * 10 + n).nextBytes(image);
    Program loads = Program.builder().load(0x10000, xStride, 0, xStride, k, m).load(0x20000, wStride, w, wStride, n, k)
        .halt().build();
    Program all = Program.builder().load(0x10000, xStride, 0, xStride, k, m).load(0x20000, wStride, w, wStride, n, k)
        .gemm(m, k, n, 0, xStride, w, wStride, y, yStride).store(0x30000, yStride, y, yStride, 4L * n, m).halt().build();
    ProgramCosim.Outcome first = ProgramCosim.run(NPU.rtl(), RandomPrograms.place(image.clone(), loads, 0), 0);
    ProgramCosim.Outcome o = ProgramCosim.run(NPU.rtl(), RandomPrograms.place(image.clone(), all, 0), 0);
    for (ProgramCosim.Outcome out : new ProgramCosim.Outcome[] {first, o}) {
      assertTrue(out.bitExact());
      assertEquals(Map.of(), RandomProgramCosimTest.mismatches(out));
    }
    long engine = CycleFormulas.engineCycles(p.rows(), p.rows(), p.mTile(), m, k, n);
    assertEquals(engine + 1, o.rtl().counters().get(Counter.ARRAY_CYCLES), "array = engine recurrence + start");
    long kTiles = (k + p.rows() - 1) / p.rows();
    long nTiles = (n + p.rows() - 1) / p.rows();
    long drain = m * ((4L * n + line - 1) / line);
    assertEquals(m * kTiles + CycleFormulas.weightCopyCycles(p, k, n) + 1 + (engine + 1) + drain,
        o.rtl().counters().get(Counter.GEMM_CYCLES),
        "copy + start + run until done + drain");
    // Beats of the two loads at one per cycle (interval 1 here), then the latency and one cycle.
    long loadBeats = m * ((k + line - 1) / line) + k * ((n + line - 1) / line);
    long loadCycles = first.rtl().counters().get(Counter.DMA_CYCLES);
    assertEquals(loadBeats - 2 + 2 * (p.memLatency() + 1), loadCycles, "two loads: beats − 1 + latency + 1 each");
    long storeCycles = o.rtl().counters().get(Counter.DMA_CYCLES) - loadCycles;
    assertEquals(drain, storeCycles, "a store: one cycle per beat");
  }
}
