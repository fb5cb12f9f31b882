package org.llmnpu.isa;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

class AssemblerTest {
  private static final String SOURCE = """
      # comment
      .org 0x40
      .equ X 0x1000
      Y = X + 2*0x100     ; constants use earlier ones
      start:
      load  ext=X extStride=64 spad=0 spadStride=64 rowBytes=40 rows=8
      next:
      gemm  m=8 k=40 n=24 x=0 xStride=64 w=0x800 wStride=32 y=0x2000 yStride=96
      store ext=Y extStride=96 spad=0x2000 spadStride=96 rowBytes=24*4 rows=8
      load  ext=next extStride=16 spad=0 spadStride=16 rowBytes=16 rows=1
      fence
      halt
      .raw 0x55 0 0 0 0 0 0 0
      """;

  @Test
  void assemblesOperandsConstantsAndLabels() {
    Assembler.Assembled a = Assembler.assemble(SOURCE, "t.npu");
    assertEquals(0x40, a.origin());
    assertEquals(7, a.program().size());
    assertEquals(0x40 + 32, a.symbols().get("next"));
    assertEquals(new Command.Load(0x1000, 64, 0, 64, 40, 8), CommandCodec.decode(a.program().words(0)).get());
    assertEquals(new Command.Gemm(8, 40, 24, 0, 64, 0x800, 32, 0x2000, 96), CommandCodec.decode(a.program().words(1)).get());
    assertEquals(new Command.Store(0x1200, 96, 0x2000, 96, 96, 8), CommandCodec.decode(a.program().words(2)).get());
    assertEquals(0x60, ((Command.Load) CommandCodec.decode(a.program().words(3)).get()).ext());
    assertTrue(CommandCodec.decode(a.program().words(6)).isEmpty(), "0x55 is undefined");
  }

  @Test
  void disassemblyAssemblesToTheSameWords() {
    Program p = Assembler.assemble(SOURCE, "t.npu").program();
    Program again = Assembler.assemble(Disassembler.disassemble(p), "d.npu").program();
    assertArrayEquals(p.bytes(), again.bytes());
  }

  @Test
  void errorsNameFileLineAndTheAllowedOperands() {
    AssemblyException e = assertThrows(AssemblyException.class,
        () -> Assembler.assemble("halt\nload ext=0 stride=4", "bad.npu"));
    assertTrue(e.getMessage().startsWith("bad.npu:2: 'stride=4' is not an operand of load; operands: ext=, extStride="),
        e.getMessage());
    assertTrue(assertThrows(AssemblyException.class, () -> Assembler.assemble("gemm m=1", "b.npu")).getMessage()
        .contains("gemm is missing k, n, x, xStride, w, wStride, y, yStride"));
    assertTrue(assertThrows(AssemblyException.class, () -> Assembler.assemble("gemm m=70000 k=1 n=1 x=0 xStride=0 "
        + "w=0 wStride=0 y=0 yStride=0", "c.npu")).getMessage().contains("c.npu:1: gemm m must be in 0..65535"));
    assertTrue(assertThrows(AssemblyException.class, () -> Assembler.assemble("jump", "d.npu")).getMessage()
        .contains("unknown command 'jump'"));
    assertTrue(assertThrows(AssemblyException.class, () -> Assembler.assemble(".ppmchannels 0x8000 4 3e9 0", "e.npu"))
        .getMessage().startsWith("e.npu:1: .ppmchannels: scale must be finite and in [0, 2^31 - 0.5)"));
  }

  @Test
  void shippedExamplesAssemble() throws Exception {
    Path dir = Path.of(System.getProperty("llmnpu.repoRoot", ".."), "npu-isa", "examples");
    try (var files = Files.list(dir)) {
      long n = files.filter(f -> f.toString().endsWith(".npu")).peek(f -> {
        try {
          assertTrue(Assembler.assemble(Files.readString(f), f.toString()).program().size() > 0);
        } catch (java.io.IOException ex) {
          throw new java.io.UncheckedIOException(ex);
        }
      }).count();
      assertTrue(n >= 3, "examples found: " + n);
    }
  }
}
