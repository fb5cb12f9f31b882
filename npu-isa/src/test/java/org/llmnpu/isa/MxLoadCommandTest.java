package org.llmnpu.isa;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Random;
import org.junit.jupiter.api.Test;
import org.llmnpu.numerics.fp.Rounding;
import org.llmnpu.numerics.mx.E8M0;
import org.llmnpu.numerics.mx.MxBlock;
import org.llmnpu.numerics.mx.MxElementType;
import org.llmnpu.numerics.mx.MxPrealign;
import org.llmnpu.numerics.mx.MxQuantizer;

/** {@code loadmx}: the element decoding against {@code numerics}' MX pre-alignment, and the command's golden. */
class MxLoadCommandTest {
  private static final MachineParams MX = IsaSimulatorTest.P.withMxLoad(true);

  @Test
  void codesAreTheBlockMaximumPrealignmentOfQuantizedBlocks() {
    Random rnd = new Random(13);
    for (int format : new int[] {MxLoad.E4M3, MxLoad.E5M2}) {
      MxElementType type = MxLoad.type(format);
      for (int t = 0; t < 500; t++) {
        double[] v = new double[MxBlock.SIZE];
        double range = Math.scalb(1.0, rnd.nextInt(40) - 20);
        for (int i = 0; i < v.length; i++) {
          v[i] = rnd.nextGaussian() * range * (rnd.nextInt(8) == 0 ? 1e-3 : 1);
        }
        MxBlock block = MxQuantizer.quantize(type, v, Rounding.NEAREST_EVEN);
        MxPrealign.Prealigned aligned = MxPrealign.aligned(block, 7, Rounding.NEAREST_EVEN);
        int[] codes = new int[block.size()];
        for (int i = 0; i < codes.length; i++) {
          codes[i] = MxLoad.code(format, block.element(i));
        }
        assertArrayEquals(aligned.ints(), codes, type + " block " + t);
        assertEquals(aligned.exponent(), MxLoad.codeExponent(format) + E8M0.exponent(block.scaleCode()));
      }
    }
    for (int e = 0; e < 256; e++) {
      assertEquals((byte) e, MxLoad.code(MxLoad.INT8, e), "MXINT8 codes are the elements");
    }
  }

  @Test
  void cornerElements() {
    assertEquals(112, MxLoad.code(MxLoad.E4M3, 0x7E));      // 448 = 1.75·2^8
    assertEquals(-112, MxLoad.code(MxLoad.E4M3, 0xFE));
    assertEquals(0, MxLoad.code(MxLoad.E4M3, 0x7F));        // NaN
    assertEquals(0, MxLoad.code(MxLoad.E4M3, 0xFF));
    assertEquals(64, MxLoad.code(MxLoad.E4M3, 0x78));       // 256
    assertEquals(1, MxLoad.code(MxLoad.E4M3, 0x48));        // 4 = 2^2 → 1
    assertEquals(0, MxLoad.code(MxLoad.E4M3, 0x40));        // 2 → 0.5: tie to even
    assertEquals(1, MxLoad.code(MxLoad.E4M3, 0x44));        // 3 → 0.75
    assertEquals(2, MxLoad.code(MxLoad.E4M3, 0x52));        // 10 → 2.5: tie to even
    assertEquals(0, MxLoad.code(MxLoad.E4M3, 0x01));        // smallest subnormal 2^-9
    assertEquals(0, MxLoad.code(MxLoad.E4M3, 0x80));        // -0
    assertEquals(112, MxLoad.code(MxLoad.E5M2, 0x7B));      // 57344
    assertEquals(0, MxLoad.code(MxLoad.E5M2, 0x7C));        // +inf
    assertEquals(0, MxLoad.code(MxLoad.E5M2, 0x7D));        // NaN
    assertEquals(-128, MxLoad.code(MxLoad.INT8, 0x80));
    for (int format = 0; format <= MxLoad.LAST; format++) {
      for (int e = 0; e < 256; e++) {
        assertTrue(Math.abs(MxLoad.code(format, e)) <= (format == MxLoad.INT8 ? 128 : 112));
      }
    }
  }

  @Test
  void loadmxDecodesEveryByteAndCostsWhatALoadCosts() {
    byte[] mem = new byte[1 << 20];
    new Random(5).nextBytes(mem);
    Program mx = Program.builder().loadmx(0x1000, 48, 0, 48, 37, 9, MxLoad.E4M3).halt().build();
    Program plain = Program.builder().load(0x1000, 48, 0, 48, 37, 9).halt().build();
    System.arraycopy(mx.bytes(), 0, mem, 0, mx.bytes().length);
    IsaSimulator.Result r = IsaSimulator.run(MX, mem, 0);
    assertEquals(ErrorCause.NONE, r.error());
    for (int row = 0; row < 9; row++) {
      for (int b = 0; b < 37; b++) {
        assertEquals((byte) MxLoad.code(MxLoad.E4M3, mem[0x1000 + 48 * row + b] & 0xFF), r.scratchpad()[48 * row + b]);
      }
    }
    System.arraycopy(plain.bytes(), 0, mem, 0, plain.bytes().length);
    IsaSimulator.Result p = IsaSimulator.run(MX, mem, 0);
    assertArrayEquals(p.counters(), r.counters());
  }

  @Test
  void errors() {
    byte[] mem = new byte[1 << 20];
    Program prog = Program.builder().loadmx(0x1000, 16, 0, 16, 16, 1, MxLoad.E4M3).halt().build();
    System.arraycopy(prog.bytes(), 0, mem, 0, prog.bytes().length);
    assertEquals(ErrorCause.UNSUPPORTED, IsaSimulator.run(IsaSimulatorTest.P, mem, 0).error());
    prog = Program.builder().loadmx(0x1000, 16, 0, 16, 16, 1, 3).halt().build();
    System.arraycopy(prog.bytes(), 0, mem, 0, prog.bytes().length);
    assertEquals(ErrorCause.BAD_SHAPE, IsaSimulator.run(MX, mem, 0).error());
    prog = Program.builder().loadmx(0x1002, 16, 0, 16, 16, 1, 0).halt().build();
    System.arraycopy(prog.bytes(), 0, mem, 0, prog.bytes().length);
    assertEquals(ErrorCause.EXT_ADDRESS, IsaSimulator.run(MX, mem, 0).error());
    assertTrue(assertThrows(IllegalArgumentException.class, () -> MxLoad.type(3)).getMessage().contains("format"));
  }

  @Test
  void assemblesAndDisassembles() {
    String text = "loadmx ext=0x1000 extStride=16 spad=0 spadStride=16 rowBytes=12 rows=3 format=1\nhalt\n";
    Program p = Assembler.assemble(text, "t.npu").program();
    assertEquals(new Command.LoadMx(0x1000, 16, 0, 16, 12, 3, 1), CommandCodec.decode(p.words(0)).orElseThrow());
    assertEquals("loadmx ext=0x1000 extStride=16 spad=0 spadStride=16 rowBytes=12 rows=3 format=1",
        Disassembler.line(p.words(0)));
  }
}
