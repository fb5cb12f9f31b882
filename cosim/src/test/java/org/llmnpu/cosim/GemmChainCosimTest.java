package org.llmnpu.cosim;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Map;
import java.util.Random;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.llmnpu.isa.Command;
import org.llmnpu.isa.Disassembler;
import org.llmnpu.isa.ErrorCause;
import org.llmnpu.isa.MachineParams;
import org.llmnpu.isa.Program;
import org.llmnpu.rtl.npu.NpuConfig;
import org.llmnpu.verilator.SimModes;

/**
 * Back-to-back GEMMs on the generated NPU: random chains of two to four GEMMs with nothing between them, each with
 * W from the scratchpad or streamed (INT8 or INT4, {@code wStream=1}, whose beats go beside the X copy), some
 * accumulating into the previous GEMM's Y, some reading the previous GEMM's results as their X (the hazard the
 * dispatch rule must respect), ragged shapes; the Y buffers stored at the end. RTL bit-exact with the golden ISA
 * simulator, every counter equal, cycles equal to the cycle model, under several memory timings.
 */
class GemmChainCosimTest {
  private static final long EXT_W = 0x8000;
  private static final long EXT_Y = 0x20000;

  @ParameterizedTest(name = "latency {0}, {1} B/cycle")
  @CsvSource({"3, 4", "9, 1", "1, 4"})
  void randomGemmChainsAreBitExactWithExactCountersAndCycles(int latency, int bytesPerCycle) {
    NpuConfig c = NpuConfig.small().withMemory(latency, bytesPerCycle);
    MachineParams p = c.machine();
    Random r = new Random(97L * latency + bytesPerCycle);
    try (NpuRtl rtl = NpuRtl.start(c, SimModes.local())) {
      for (int i = 0; i < 8; i++) {
        Program prog = chain(p, r);
        byte[] image = new byte[(int) p.extMemBytes()];
        r.nextBytes(image);
        ProgramCosim.Outcome o = ProgramCosim.run(rtl, RandomPrograms.place(image, prog, 0), 0);
        String what = "chain " + i + ":\n" + Disassembler.disassemble(prog);
        assertEquals(ErrorCause.NONE, o.golden().error(), what);
        assertTrue(o.statusMatches(), what + "status " + o.rtl().error() + " vs golden " + o.golden().error());
        assertTrue(o.bitExact(), what + "first differing byte at 0x" + Long.toHexString(o.firstDifference()));
        assertEquals(Map.of(), RandomProgramCosimTest.mismatches(o), what);
      }
    }
  }

  /**
   * X (rows of up to 40 bytes) loaded at scratchpad 0, W (40 rows of up to 12 bytes) after it and random Y buffers
   * after that, then two to four
   * GEMMs back to back into two Y buffers, then the stores of both buffers.
   */
  private static Program chain(MachineParams p, Random r) {
    int line = p.lineBytes();
    int maxK = 40;
    int maxN = 12;
    int maxM = 12;
    long xStride = GemmCosimFixture.lines(p, maxK);
    long wSpad = maxM * xStride;
    long wStride = GemmCosimFixture.lines(p, maxN);
    long yStride = GemmCosimFixture.lines(p, 4L * maxN);
    long[] y = {wSpad + maxK * wStride, wSpad + maxK * wStride + maxM * yStride};
    Program.Builder b = Program.builder()
        .load(0x4000, xStride, 0, xStride, maxK, maxM)
        .load(EXT_W, wStride, wSpad, wStride, maxN, maxK)
        // both Y buffers defined (the scratchpad keeps the previous program's bytes; the golden starts from zero)
        .load(0x10000, yStride, y[0], yStride, 4L * maxN, 2L * maxM);
    int gemms = 2 + r.nextInt(3);
    int prevM = 0;
    int prevN = 0;
    int prevBuffer = 0;
    for (int g = 0; g < gemms; g++) {
      int kind = g == 0 ? 0 : r.nextInt(4);
      int m = 1 + r.nextInt(maxM);
      int k = 1 + r.nextInt(maxK);
      int n = 1 + r.nextInt(maxN);
      long x = 0;
      long xs = xStride;
      int buffer = g % 2;
      int accumulate = 0;
      if (kind == 1) {
        // reads the previous GEMM's results (INT32 little-endian bytes) as its X
        m = prevM;
        k = Math.min(4 * prevN, maxK);
        x = y[prevBuffer];
        xs = yStride;
        buffer = 1 - prevBuffer;
      } else if (kind == 2) {
        // accumulates into the previous GEMM's Y
        m = prevM;
        n = prevN;
        buffer = prevBuffer;
        accumulate = 1;
      }
      int mode = r.nextInt(3);
      boolean int4 = mode == 2;
      if (mode == 0) {
        b.add(new Command.Gemm(m, k, n, x, xs, wSpad, wStride, y[buffer], yStride, Command.DENSE, accumulate));
      } else {
        long ws = int4 ? GemmCosimFixture.lines(p, (maxN + 1) / 2) : wStride;
        b.add(new Command.Gemm(m, k, n, x, xs, EXT_W + line * r.nextInt(4), ws, y[buffer], yStride, Command.DENSE,
            accumulate, 1, int4 ? 1 : 0, 0));
      }
      prevM = m;
      prevN = n;
      prevBuffer = buffer;
    }
    for (int i = 0; i < 2; i++) {
      b.store(EXT_Y + i * maxM * yStride, yStride, y[i], yStride, 4L * maxN, maxM);
    }
    return b.halt().build();
  }
}
