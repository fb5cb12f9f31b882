package org.llmnpu.cosim;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Random;
import org.junit.jupiter.api.Test;
import org.llmnpu.isa.Command;
import org.llmnpu.isa.Counter;
import org.llmnpu.isa.ErrorCause;
import org.llmnpu.isa.MachineParams;
import org.llmnpu.isa.Program;
import org.llmnpu.rtl.npu.NpuConfig;
import org.llmnpu.verilator.SimModes;

/**
 * The INT4 weight stream at the memory's full rate on the dense array: the engine's W buffer is banked by N-tile
 * parity, so an INT4 beat's two unpacked lines (N tiles {@code 2c} and {@code 2c + 1}) are written in the cycle it
 * arrives and the stream takes a beat every cycle the memory offers one. On the dense 8×8 NPU with one line a cycle,
 * GEMVs over four N tiles (two INT4 beat columns; plain and group-scaled INT4, N ragged, a W row padded past its
 * bytes) are bit-exact with the golden ISA simulator, every counter equal, cycles equal to the cycle model's
 * {@code streamedGemm}; and an INT4 GEMV takes no more cycles than the INT8 GEMV of the same shape plus one pass (at
 * half a beat a cycle it took a whole N tile's passes, K cycles, more).
 */
class Int4StreamRateCosimTest {
  private static final NpuConfig DENSE = new NpuConfig(8, 8, 2, 1, 8, 32, 2, 32, 256, 64, 7, 4, 256, 4, 128, 256,
      1L << 16, "systolic", 1, false, false, "dense");

  @Test
  void int4GemvStreamsAtTheArraysRateLikeInt8() {
    MachineParams p0 = DENSE.machine();
    NpuConfig c = DENSE.withMemory(3, p0.lineBytes());
    MachineParams p = c.machine();
    assertEquals(1, p.beatInterval(), "one beat a cycle");
    int rows = p.rows();
    int k = 256;
    Random r = new Random(31);
    try (NpuRtl rtl = NpuRtl.start(c, SimModes.local())) {
      for (int n : new int[] {4 * rows, 4 * rows - 3}) {
        long int8 = gemv(rtl, p, r, k, n, 0, 0, "INT8 1x" + k + "x" + n);
        long int4 = gemv(rtl, p, r, k, n, 1, 0, "INT4 1x" + k + "x" + n);
        long scaled = gemv(rtl, p, r, k, n, 2, 0, "group-scaled INT4 1x" + k + "x" + n);
        long padded = gemv(rtl, p, r, k, n, 1, p.lineBytes(), "INT4 1x" + k + "x" + n + ", wStride a line longer");
        assertTrue(int4 <= int8 + rows, "INT4 " + int4 + " cycles against INT8 " + int8);
        assertTrue(padded <= int8 + rows, "INT4 (padded rows) " + padded + " cycles against INT8 " + int8);
        // the group-scaled stream has 2 multiplier beats a group of 32 rows: 2·K/32 beats more a column
        assertTrue(scaled <= int8 + rows + 2L * (k / 32) * 2, "group-scaled " + scaled + " against INT8 " + int8);
      }
    }
  }

  /** Runs a streamed GEMV ({@code wInt4} 0, 1 or 2) against the golden; returns the RTL's cycles. */
  private static long gemv(NpuRtl rtl, MachineParams p, Random r, int k, int n, int wInt4, long pad, String name) {
    long xStride = GemmCosimFixture.lines(p, k);
    long yStride = GemmCosimFixture.lines(p, 4L * n);
    long rowBytes = wInt4 == 0 ? n : (n + 1) / 2;
    long wStride = GemmCosimFixture.lines(p, rowBytes) + pad;
    long y = xStride;
    Program prog = Program.builder()
        .load(GemmCosimFixture.EXT_X, xStride, 0, xStride, k, 1)
        .add(new Command.Gemm(1, k, n, 0, xStride, GemmCosimFixture.EXT_W, wStride, y, yStride, 0, 0, 1, wInt4, 0))
        .store(GemmCosimFixture.EXT_Y, yStride, y, yStride, 4L * n, 1)
        .halt().build();
    byte[] image = new byte[(int) p.extMemBytes()];
    r.nextBytes(image);
    ProgramCosim.Outcome o = StreamedGemmCosimTest.assertAgrees(rtl, RandomPrograms.place(image, prog, 0), prog,
        name);
    assertEquals(ErrorCause.NONE, o.golden().error(), name);
    return o.rtl().counters().get(Counter.CYCLES);
  }
}
