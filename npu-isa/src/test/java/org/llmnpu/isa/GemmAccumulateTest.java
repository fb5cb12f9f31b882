package org.llmnpu.isa;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * The GEMM's accumulate-into flag: encoding (word 2 bit 16), text form, and the golden semantics
 * {@code Y = wrap32(Y + X·W)} against a plain-Java product, including sums that wrap; the drain's Y reads
 * in {@code spadReads}; cycles as without the flag for a lone GEMM.
 */
class GemmAccumulateTest {
  private static final MachineParams P = PpmAndSparseCommandTest.machine(false, Command.DENSE);

  @Test
  void encodingAndTextRoundTrip() {
    String text = "gemm m=1 k=8 n=4 x=0 xStride=8 w=64 wStride=4 y=128 yStride=16 accumulate=1\n"
        + "gemm m=1 k=8 n=4 x=0 xStride=8 w=64 wStride=4 y=128 yStride=16 sparsity=1 accumulate=1\nhalt\n";
    Program p = Assembler.assemble(text, "t.npu").program();
    assertEquals(text, Disassembler.disassemble(p));
    assertEquals(1 << 16, p.words(0)[2] & 0x70000);
    assertEquals(3 << 16, p.words(1)[2] & 0x70000);
    assertArrayEquals(p.words(1), CommandCodec.encode(CommandCodec.decode(p.words(1)).orElseThrow()));
    assertEquals(new Command.Gemm(1, 8, 4, 0, 8, 64, 4, 128, 16, Command.S2_4, 1),
        CommandCodec.decode(p.words(1)).orElseThrow());
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> Program.builder().add(new Command.Gemm(1, 1, 1, 0, 4, 0, 4, 0, 4, 0, 2)).build());
    assertEquals("gemm accumulate must be in 0..1, got 2", e.getMessage());
  }

  @Test
  void accumulateAddsToTheOldYWithWraparound() {
    Random r = new Random(5);
    int m = 3;
    int k = 9;
    int n = 5;
    int line = P.lineBytes();
    long xStride = (k + line - 1) / line * line;
    long wStride = (n + line - 1) / line * line;
    long yStride = (4L * n + line - 1) / line * line;
    long w = 0x400;
    long y = 0x800;
    byte[] mem = new byte[(int) P.extMemBytes()];
    r.nextBytes(mem);
    int[][] old = new int[m][n];
    for (int i = 0; i < m; i++) {
      for (int j = 0; j < n; j++) {
        old[i][j] = j == 0 ? Integer.MAX_VALUE - r.nextInt(3) : r.nextInt();
        int a = 0x30000 + i * (int) yStride + 4 * j;
        for (int b = 0; b < 4; b++) {
          mem[a + b] = (byte) (old[i][j] >>> (8 * b));
        }
      }
    }
    Program prog = Program.builder().load(0x10000, xStride, 0, xStride, k, m).load(0x20000, wStride, w, wStride, n, k)
        .load(0x30000, yStride, y, yStride, 4L * n, m)
        .gemm(m, k, n, 0, xStride, w, wStride, y, yStride, Command.DENSE, true)
        .store(0x40000, yStride, y, yStride, 4L * n, m).halt().build();
    System.arraycopy(prog.bytes(), 0, mem, 0, prog.bytes().length);
    IsaSimulator.Result res = IsaSimulator.run(P, mem, 0);
    assertEquals(ErrorCause.NONE, res.error());
    int wrapped = 0;
    for (int i = 0; i < m; i++) {
      for (int j = 0; j < n; j++) {
        long dot = 0;
        for (int kk = 0; kk < k; kk++) {
          dot += (long) mem[0x10000 + i * (int) xStride + kk] * mem[0x20000 + kk * (int) wStride + j];
        }
        int a = 0x40000 + i * (int) yStride + 4 * j;
        int got = (res.memory()[a] & 0xFF) | (res.memory()[a + 1] & 0xFF) << 8 | (res.memory()[a + 2] & 0xFF) << 16
            | res.memory()[a + 3] << 24;
        assertEquals((int) (old[i][j] + dot), got, "Y[" + i + "][" + j + "]");
        wrapped += old[i][j] + dot > Integer.MAX_VALUE ? 1 : 0;
      }
    }
    assertEquals(true, wrapped > 0, "some sums wrap past INT32_MAX");
    long xLines = m * ((k + line - 1) / line);
    long yLines = m * ((4L * n + line - 1) / line);
    assertEquals(xLines + k * ((n + line - 1) / line) + yLines + yLines, res.counter(Counter.SPAD_READS),
        "X and W copies, the drain's Y reads, the store");
  }
}
