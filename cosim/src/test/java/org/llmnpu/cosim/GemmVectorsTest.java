package org.llmnpu.cosim;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;
import org.llmnpu.isa.Program;

/** The input vectors of the executed GEMM commands, counted from a program image by hand. */
class GemmVectorsTest {
  @Test
  void sumsTheExecutedGemmsShapesOnly() {
    assertEquals(4 * 3 * 2, GemmVectors.of(4, 40, 20, 16), "ragged K and N tiles count whole");
    assertEquals(1, GemmVectors.of(1, 16, 16, 16));
    byte[] code = Program.builder()
        .load(0x1000, 64, 0, 64, 64, 4)
        .gemm(4, 40, 20, 0, 64, 0x400, 32, 0x800, 128)
        .gemm(1, 16, 16, 0, 64, 0x400, 32, 0x800, 128)
        .halt().build().bytes();
    byte[] image = new byte[4096];
    System.arraycopy(code, 0, image, 256, code.length);
    assertEquals(25, GemmVectors.ofProgram(image, 256, 4, 16), "load, two GEMMs, halt");
    assertEquals(24, GemmVectors.ofProgram(image, 256, 2, 16), "a run that stopped after the first GEMM");
    assertEquals(25, GemmVectors.ofProgram(image, 256, 100, 16), "nothing counted past halt");
  }
}
