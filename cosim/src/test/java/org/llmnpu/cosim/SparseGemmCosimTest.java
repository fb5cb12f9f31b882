package org.llmnpu.cosim;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Map;
import java.util.Random;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.llmnpu.isa.Command;
import org.llmnpu.isa.Counter;
import org.llmnpu.isa.Disassembler;
import org.llmnpu.isa.ErrorCause;
import org.llmnpu.isa.MachineParams;
import org.llmnpu.isa.Program;
import org.llmnpu.rtl.mac.GemmCycleModel;
import org.llmnpu.rtl.npu.NpuConfig;
import org.llmnpu.verilator.SimModes;

/**
 * NPUs whose MAC array is built for 2:4 (8×8, all K tiles folded) and 4:8 (4×4, partial sums written back
 * every 2 K tiles): lone N:M and dense GEMMs of ragged shapes (K not a multiple of the group, K = 172, K =
 * maxK) are bit-exact with the golden ISA simulator, with every counter equal (MACs executed
 * {@code M·N·E·ceil(K/G)} next to the dense-equivalent {@code M·K·N}) and the RTL's cycles equal to the
 * cycle model's — and to the engine formula of {@code GemmCycleModel} for the array itself; random
 * overlapped programs of dense GEMMs run on them as on a dense array; a GEMM in the other N:M mode halts
 * with UNSUPPORTED. The 2:4 array is built with {@code xKeep} ({@link KeptXCosimTest} shares it).
 */
class SparseGemmCosimTest {
  private static final int[][] SHAPES = {
      {1, 1, 1}, {5, 7, 6}, {3, 172, 9}, {17, 172, 64}, {9, 13, 33}, {1, 172, 64}, {32, 256, 20}, {4, 30, 5}};

  static NpuConfig config(String sparsity) {
    int rows = sparsity.equals("2:4") ? 8 : 4;
    int depth = sparsity.equals("2:4") ? 0 : 2;
    NpuConfig c = new NpuConfig(rows, 32, 2, 1, 8, 32, depth, 32, 256, 64, 3, rows, 256, 4, 128, 256, 1L << 16,
        "systolic", 1, false, false, sparsity);
    // the 2:4 array keeps its X buffer (xKeep): KeptXCosimTest's N:M programs share this model
    return sparsity.equals("2:4") ? c.toBuilder().xKeep(true).build() : c;
  }

  @ParameterizedTest(name = "sparsity {0}")
  @ValueSource(strings = {"2:4", "4:8"})
  void nmAndDenseGemmsAreBitExactWithExactCountersAndCycles(String sparsity) {
    NpuConfig c = config(sparsity);
    MachineParams p = c.machine();
    int mode = c.sparsityCode();
    Random r = new Random(sparsity.hashCode());
    try (NpuRtl rtl = NpuRtl.start(c, SimModes.local())) {
      for (int[] s : SHAPES) {
        for (int gemmMode : new int[] {mode, Command.DENSE}) {
          GemmCosimFixture.Case t = GemmCosimFixture.gemm(p, r, s[0], s[1], s[2], gemmMode);
          ProgramCosim.Outcome o = GemmCosimFixture.assertAgrees(rtl, t, sparsity + " array");
          checkFormulas(c, t.gemm(), o, t.describe());
        }
      }
      for (int i = 0; i < 3; i++) {
        RandomPrograms.Case t = RandomPrograms.generate(p, r, 2 + r.nextInt(2), true);
        ProgramCosim.Outcome o = ProgramCosim.run(rtl, t.image(), t.programAddress());
        String what = "program " + i + ":\n" + Disassembler.disassemble(t.program());
        assertTrue(o.bitExact(), what + "first differing byte at 0x" + Long.toHexString(o.firstDifference()));
        assertTrue(o.statusMatches(), what);
        assertEquals(Map.of(), RandomProgramCosimTest.mismatches(o), what);
      }
      int other = mode == Command.S2_4 ? Command.S4_8 : Command.S2_4;
      for (int[] bad : new int[][] {{other, ErrorCause.UNSUPPORTED.code()}, {3, ErrorCause.BAD_SHAPE.code()}}) {
        Program prog = Program.builder().fence().gemm(1, 8, 4, 0, 16, 64, 16, 256, 16, bad[0]).halt().build();
        byte[] image = new byte[(int) p.extMemBytes()];
        ProgramCosim.Outcome o = ProgramCosim.run(rtl, RandomPrograms.place(image, prog, 0), 0);
        assertEquals(bad[1], o.golden().error().code(), Disassembler.disassemble(prog));
        assertEquals(o.golden().error(), o.rtl().error(), Disassembler.disassemble(prog));
        assertEquals(1, o.rtl().errorCommand());
      }
    }
  }

  /** MACs executed and the GEMM's controller + array cycles from the formulas, for a lone GEMM. */
  private static void checkFormulas(NpuConfig c, Command.Gemm g, ProgramCosim.Outcome o, String what) {
    MachineParams p = c.machine();
    int m = (int) g.m();
    int k = (int) g.k();
    int n = (int) g.n();
    long groups = (k + g.group() - 1) / g.group();
    long macs = g.sparsity() == Command.DENSE ? (long) m * k * n : (long) m * n * g.kept() * groups;
    assertEquals(macs, o.rtl().counters().get(Counter.MACS), what);
    assertEquals((long) m * k * n, o.rtl().counters().get(Counter.DENSE_MACS), what);
    int line = p.lineBytes();
    long kLines = (k + line - 1) / line;
    long nTiles = (n + line - 1) / line;
    // The array as the engine's own formula costs it: N:M K tiles of 2·rows; dense K runs as N:M 2K.
    int engineK = g.sparsity() == Command.DENSE ? 2 * k : k;
    long engine = GemmCycleModel.cycles(c.gemm().array(), m, engineK, n);
    long drain = m * ((4L * n + line - 1) / line);
    assertEquals(m * kLines + nTiles * g.wRows() + 1 + (engine + 1) + drain,
        o.rtl().counters().get(Counter.GEMM_CYCLES), what + ": X lines + W rows + start + array until done + drain");
  }
}
