package org.llmnpu.cosim;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Arrays;
import org.junit.jupiter.api.Test;
import org.llmnpu.isa.Counter;
import org.llmnpu.rtl.npu.NpuConfig;

/**
 * {@code npu cosim program}'s run: the memory image (a given binary at 0, else seeded random bytes, the program
 * placed at its origin), its refusals, and the program on the RTL against the golden ISA simulator.
 */
class ProgramRunTest {
  private static final String GEMM = """
      load  ext=0x1000 extStride=16 spad=0 spadStride=12 rowBytes=11 rows=6
      load  ext=0x2000 extStride=8 spad=128 spadStride=8 rowBytes=5 rows=11
      gemm  m=6 k=11 n=5 x=0 xStride=12 w=128 wStride=8 y=256 yStride=20
      store ext=0x3000 extStride=20 spad=256 spadStride=20 rowBytes=5*4 rows=6
      halt
      """;

  @Test
  void theImageHoldsTheGivenBytesAtZeroOrSeededRandomBytesAndTheProgramAtItsOrigin() {
    NpuConfig c = NpuConfig.small();
    String atOrigin = ".org 0x8000\n" + GEMM;
    ProgramRun.Prepared given = ProgramRun.prepare(c, atOrigin, "p.npu", new byte[] {1, 2, 3}, "m.bin", 1);
    assertEquals(c.machine().extMemBytes(), given.image().length);
    assertArrayEquals(new byte[] {1, 2, 3, 0}, Arrays.copyOf(given.image(), 4));
    byte[] code = given.program().program().bytes();
    assertArrayEquals(code, Arrays.copyOfRange(given.image(), 0x8000, 0x8000 + code.length));
    ProgramRun.Prepared a = ProgramRun.prepare(c, atOrigin, "p.npu", null, "null", 7);
    ProgramRun.Prepared b = ProgramRun.prepare(c, atOrigin, "p.npu", null, "null", 7);
    ProgramRun.Prepared d = ProgramRun.prepare(c, atOrigin, "p.npu", null, "null", 8);
    assertArrayEquals(a.image(), b.image(), "same seed, same image");
    assertFalse(Arrays.equals(a.image(), d.image()), "another seed, other bytes");
  }

  @Test
  void aMemoryLargerThanTheNpusAndAssemblyErrorsAreRefused() {
    NpuConfig c = NpuConfig.small();
    byte[] big = new byte[(int) c.machine().extMemBytes() + 1];
    String m = assertThrows(IllegalArgumentException.class,
        () -> ProgramRun.prepare(c, "halt\n", "p.npu", big, "big.bin", 1)).getMessage();
    assertEquals("--memory: big.bin has " + big.length + " bytes; the NPU's memory has " + (big.length - 1)
        + " (extMemMiB)", m);
    String a = assertThrows(IllegalArgumentException.class,
        () -> ProgramRun.prepare(c, "halt\nlaod ext=0\n", "typo.npu", null, "null", 1)).getMessage();
    assertTrue(a.contains("typo.npu:2: unknown command 'laod'"), a);
  }

  @Test
  void aGemmProgramIsBitExactWithTheGoldenAndTakesTheModelsCycles() {
    NpuConfig c = NpuConfig.small();
    ProgramCosim.Outcome o = ProgramRun.run(c, ProgramRun.prepare(c, GEMM, "p.npu", null, "null", 1),
        WaveCapture.none());
    assertTrue(o.bitExact(), "first difference at 0x" + Long.toHexString(o.firstDifference()));
    assertTrue(o.statusMatches());
    assertEquals(o.modelCycles(), o.rtlCycles());
    assertEquals(6L * 11 * 5, o.rtl().counters().get(Counter.MACS).longValue());
  }
}
