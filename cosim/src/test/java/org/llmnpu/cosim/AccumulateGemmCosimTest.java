package org.llmnpu.cosim;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.Random;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.llmnpu.isa.Command;
import org.llmnpu.isa.Counter;
import org.llmnpu.isa.MachineParams;
import org.llmnpu.isa.Program;
import org.llmnpu.rtl.npu.NpuConfig;
import org.llmnpu.verilator.SimModes;

/**
 * The GEMM's accumulate-into flag ({@code Y = wrap32(Y + X·W)}) on the small dense NPU and on the 2:4 NPU of
 * {@link SparseGemmCosimTest}: lone accumulating GEMMs over random old Y (dense and N:M, ragged shapes; a STORE
 * right after each, which must wait for the drain) and a K split into two accumulating halves are bit-exact
 * with the golden ISA simulator, with every counter equal (the drain's Y reads in {@code spadReads}) and the
 * RTL's cycles equal to the cycle model's (a drain that reads Y takes no extra cycle).
 */
class AccumulateGemmCosimTest {

  @ParameterizedTest(name = "sparsity {0}")
  @ValueSource(strings = {"dense", "2:4"})
  void accumulatingGemmsAreBitExactWithExactCountersAndCycles(String sparsity) {
    NpuConfig c = sparsity.equals("dense") ? NpuConfig.small() : SparseGemmCosimTest.config(sparsity);
    MachineParams p = c.machine();
    Random r = new Random(41 + sparsity.length());
    int[][] shapes = sparsity.equals("dense") ? new int[][] {{1, 1, 1}, {5, 7, 6}, {9, 40, 13}, {4, 64, 20}}
        : new int[][] {{1, 1, 1}, {5, 7, 6}, {17, 172, 20}, {3, 30, 64}};
    try (NpuRtl rtl = NpuRtl.start(c, SimModes.local())) {
      for (int[] s : shapes) {
        for (int mode : c.sparsityCode() == Command.DENSE ? new int[] {Command.DENSE}
            : new int[] {c.sparsityCode(), Command.DENSE}) {
          GemmCosimFixture.Case t = GemmCosimFixture.gemm(p, r, s[0], s[1], s[2], mode, true);
          ProgramCosim.Outcome o = GemmCosimFixture.assertAgrees(rtl, t, "accumulate");
          int line = p.lineBytes();
          long yLines = s[0] * ((4L * s[2] + line - 1) / line);
          long xLines = s[0] * ((s[1] + line - 1) / line);
          long nTiles = (s[2] + line - 1) / line;
          assertEquals(xLines + nTiles * t.gemm().wRows() + yLines + xLines + yLines,
              o.rtl().counters().get(Counter.SPAD_READS),
              t.describe() + ": X and W copies, the drain's Y reads, the two stores");
        }
      }
      kSplitIntoTwoAccumulatingHalves(rtl, r);
    }
  }

  /** Y = X[:, :K1]·W[:K1] then Y += X[:, K1:]·W[K1:] equals the whole GEMM (golden and RTL, bit for bit). */
  private static void kSplitIntoTwoAccumulatingHalves(NpuRtl rtl, Random r) {
    MachineParams p = rtl.config().machine();
    int m = 6;
    int k = 37;
    int k1 = 2 * p.lineBytes();
    int n = 11;
    long xStride = GemmCosimFixture.lines(p, k);
    long wStride = GemmCosimFixture.lines(p, n);
    long yStride = GemmCosimFixture.lines(p, 4L * n);
    long w = m * xStride;
    long y = w + k * wStride;
    byte[] image = new byte[(int) p.extMemBytes()];
    r.nextBytes(image);
    // The second half's X starts at byte k1 of each row: a line-aligned column offset.
    Program prog = Program.builder()
        .load(GemmCosimFixture.EXT_X, xStride, 0, xStride, xStride, m)
        .load(GemmCosimFixture.EXT_W, wStride, w, wStride, n, k)
        .gemm(m, k1, n, 0, xStride, w, wStride, y, yStride, Command.DENSE, false)
        .gemm(m, k - k1, n, k1, xStride, w + k1 * wStride, wStride, y, yStride, Command.DENSE, true)
        .store(GemmCosimFixture.EXT_Y, yStride, y, yStride, 4L * n, m)
        .gemm(m, k, n, 0, xStride, w, wStride, y, yStride)
        .store(GemmCosimFixture.EXT_Y + 0x8000, yStride, y, yStride, 4L * n, m)
        .halt().build();
    GemmCosimFixture.Case t = new GemmCosimFixture.Case(prog, RandomPrograms.place(image, prog, 0), null);
    ProgramCosim.Outcome o = GemmCosimFixture.assertAgrees(rtl, t, "K split");
    byte[] mem = o.rtl().memory();
    for (int i = 0; i < m; i++) {
      for (int b = 0; b < 4 * n; b++) {
        int split = (int) (GemmCosimFixture.EXT_Y + i * yStride + b);
        assertEquals(mem[split + 0x8000], mem[split], "row " + i + " byte " + b + ": split K = whole K");
      }
    }
  }
}
