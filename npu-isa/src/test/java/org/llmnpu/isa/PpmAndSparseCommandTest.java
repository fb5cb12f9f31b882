package org.llmnpu.isa;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.Random;
import org.junit.jupiter.api.Test;
import org.llmnpu.numerics.gemm.Sparsity;
import org.llmnpu.numerics.gemm.TiledGemm;
import org.llmnpu.numerics.gemm.TiledGemmConfig;
import org.llmnpu.numerics.ppu.Ppm;
import org.llmnpu.numerics.ppu.PpuFitter;
import org.llmnpu.numerics.ppu.PpuFormat;
import org.llmnpu.numerics.ppu.PpuFunction;
import org.llmnpu.numerics.ppu.PpuTable;
import org.llmnpu.numerics.requant.Activation;
import org.llmnpu.numerics.requant.OutputFormat;
import org.llmnpu.numerics.requant.QuantizedMultiplier;
import org.llmnpu.numerics.requant.RequantParams;

/** The PPM commands and N:M GEMMs in the golden simulator: semantics against numerics, cycles, errors, text. */
class PpmAndSparseCommandTest {
  static final MachineParams DENSE = IsaSimulatorTest.P;
  static final int LATENCY = 17;

  static MachineParams machine(boolean ppu, int sparsity) {
    return DENSE.withUnits(ppu ? LATENCY : 7, ppu, sparsity);
  }

  /** X (M×K) at 0x1000, W at 0x2000, the PPM records at 0x8000 and the table at 0x9000 of a random image. */
  private static byte[] image(Random r, Program prog, RequantParams[] params, int[] bias, PpuTable table) {
    byte[] mem = new byte[1 << 20];
    r.nextBytes(mem);
    for (int j = 0; j < params.length; j++) {
      byte[] rec = IsaSimulator.ppmRecord(bias[j], params[j].multiplier(), params[j].outputZeroPoint());
      System.arraycopy(rec, 0, mem, 0x8000 + 16 * j, 16);
    }
    if (table != null) {
      byte[] t = IsaSimulator.ppuTableImage(table);
      System.arraycopy(t, 0, mem, 0x9000, t.length);
    }
    System.arraycopy(prog.bytes(), 0, mem, 0, prog.bytes().length);
    return mem;
  }

  private static RequantParams params(Random r) {
    return new RequantParams(QuantizedMultiplier.fromScale(Math.scalb(1 + r.nextDouble(), -6 - r.nextInt(10))),
        r.nextInt(40) - 20, OutputFormat.INT8, Activation.NONE, 0);
  }

  @Test
  void gemmThenPpmEqualsNumericsPpmOnTheTiledGemm() {
    for (boolean ppu : new boolean[] {false, true}) {
      Random r = new Random(ppu ? 7 : 8);
      int m = 6;
      int k = 9;
      int n = 3;
      RequantParams[] params = new RequantParams[n];
      int[] bias = new int[n];
      for (int j = 0; j < n; j++) {
        params[j] = params(r);
        bias[j] = r.nextInt(2000) - 1000;
      }
      PpuTable table = ppu ? PpuFitter.fit(PpuFunction.GELU, PpuFormat.DEFAULT) : null;
      Program.Builder b = Program.builder().load(0x1000, 16, 0, 12, k, m).load(0x2000, 4, 96, 4, n, k)
          .gemm(m, k, n, 0, 12, 96, 4, 256, 12).ppmCfg(0x8000, n);
      if (ppu) {
        b.ppuTab(0x9000);
      }
      Program prog = b.ppm(256, 12, 512, 4, m, n).store(0x3000, 4, 512, 4, n, m).halt().build();
      byte[] mem = image(r, prog, params, bias, table);
      IsaSimulator.Result res = IsaSimulator.run(machine(ppu, Command.DENSE), mem, 0);
      assertEquals(ErrorCause.NONE, res.error());
      byte[][] x = new byte[m][k];
      byte[][] w = new byte[k][n];
      for (int i = 0; i < m; i++) {
        System.arraycopy(mem, 0x1000 + 16 * i, x[i], 0, k);
      }
      for (int i = 0; i < k; i++) {
        System.arraycopy(mem, 0x2000 + 4 * i, w[i], 0, n);
      }
      int[][] acc = TiledGemm.run(new TiledGemmConfig(4, 4, 8, 32, TiledGemmConfig.ALL_K_TILES, Sparsity.NONE), x, w).y();
      int[][] q = Ppm.process(acc, bias, params, table);
      for (int i = 0; i < m; i++) {
        for (int j = 0; j < n; j++) {
          assertEquals(q[i][j], res.memory()[0x3000 + 4 * i + j], "q[" + i + "][" + j + "] ppu " + ppu);
        }
      }
      assertEquals((long) m * n, res.counter(Counter.PPM_ELEMENTS));
      // ppmcfg: 3 records of 16 bytes = 12 beats on 4-byte lines (one record per 4 beats), then lat + 1;
      // pputab: 66 entries = 33 beats two cycles apart, then lat + 1 + 1 (the second entry of the last beat);
      // ppm: M rows of 3 lines + L.
      long cfg = 11 + 3 + 1;
      long tab = 32 * 2 + 3 + 2;
      long run = m * 3L + (ppu ? LATENCY : 7);
      assertEquals(cfg + (ppu ? tab : 0) + run, res.counter(Counter.PPM_CYCLES));
    }
  }

  @Test
  void ppmErrors() {
    Random r = new Random(1);
    RequantParams[] params = {params(r)};
    int[] bias = {0};
    MachineParams ppu = machine(true, Command.DENSE);
    Object[][] cases = {
        {DENSE, Program.builder().ppmCfg(0x8000, 1), ErrorCause.UNSUPPORTED},
        {machine(false, 0), Program.builder().ppuTab(0x9000), ErrorCause.UNSUPPORTED},
        {ppu, Program.builder().ppmCfg(0x8000, 1).ppm(0, 4, 64, 4, 1, 1), ErrorCause.UNSUPPORTED},
        {ppu, Program.builder().ppmCfg(0x8000, 65), ErrorCause.BAD_SHAPE},
        {ppu, Program.builder().ppmCfg(0x8000, 5, 60), ErrorCause.BAD_SHAPE},
        {ppu, Program.builder().ppmCfg(0x8000, 0), ErrorCause.BAD_SHAPE},
        {ppu, Program.builder().ppmCfg(0xFFFF8, 1), ErrorCause.EXT_ADDRESS},
        {ppu, Program.builder().ppuTab(0x9002), ErrorCause.EXT_ADDRESS},
        {ppu, Program.builder().ppuTab(0xFFF80), ErrorCause.EXT_ADDRESS},
        {ppu, Program.builder().ppuTab(0x9000).ppm(0, 16, 64, 4, 1, 5), ErrorCause.BAD_SHAPE},
        {ppu, Program.builder().ppuTab(0x9000).ppm(0, 16, 64, 4, 0, 4), ErrorCause.BAD_SHAPE},
        {ppu, Program.builder().ppuTab(0x9000).ppm(2, 16, 64, 4, 1, 4), ErrorCause.SPAD_ADDRESS},
        {ppu, Program.builder().ppuTab(0x9000).ppm(4080, 16, 64, 4, 2, 4), ErrorCause.SPAD_ADDRESS},
        {ppu, Program.builder().ppuTab(0x9000).ppm(0, 16, 4092, 4, 2, 4), ErrorCause.SPAD_ADDRESS},
    };
    for (Object[] c : cases) {
      Program prog = ((Program.Builder) c[1]).halt().build();
      byte[] mem = image(r, prog, params, bias, PpuFitter.fit(PpuFunction.SILU, PpuFormat.DEFAULT));
      IsaSimulator.Result res = IsaSimulator.run((MachineParams) c[0], mem, 0);
      assertEquals(c[2], res.error(), Disassembler.disassemble(prog));
      assertEquals(prog.size() - 2, res.errorCommand());
    }
  }

  @Test
  void sparseGemmEqualsTheSparseTiledGemmOfTheDecompressedWeights() {
    for (int mode : new int[] {Command.S2_4, Command.S4_8}) {
      Random r = new Random(mode);
      int kept = mode == Command.S2_4 ? 2 : 4;
      int group = 2 * kept;
      int m = 5;
      int k = 21;
      int n = 6;
      byte[][] w = new byte[k][n];
      for (int col = 0; col < n; col++) {
        for (int g0 = 0; g0 < k; g0 += group) {
          for (int e = 0; e < kept; e++) {
            int kk = g0 + r.nextInt(group);
            if (kk < k) {
              w[kk][col] = (byte) r.nextInt(256);
            }
          }
        }
      }
      byte[][] rows = SparseWeights.compress(w, kept, group);
      Program prog = Program.builder().load(0x1000, 32, 0, 32, k, m).load(0x2000, 8, 256, 8, n, rows.length)
          .gemm(m, k, n, 0, 32, 256, 8, 2048, 24, mode).store(0x3000, 24, 2048, 24, 4 * n, m).halt().build();
      byte[] mem = new byte[1 << 20];
      r.nextBytes(mem);
      for (int i = 0; i < rows.length; i++) {
        System.arraycopy(rows[i], 0, mem, 0x2000 + 8 * i, n);
      }
      System.arraycopy(prog.bytes(), 0, mem, 0, prog.bytes().length);
      assertEquals(ErrorCause.UNSUPPORTED, IsaSimulator.run(DENSE, mem, 0).error());
      assertEquals(ErrorCause.UNSUPPORTED, IsaSimulator.run(machine(true, 3 - mode), mem, 0).error());
      IsaSimulator.Result res = IsaSimulator.run(machine(true, mode), mem, 0);
      assertEquals(ErrorCause.NONE, res.error());
      byte[][] x = new byte[m][k];
      for (int i = 0; i < m; i++) {
        System.arraycopy(mem, 0x1000 + 32 * i, x[i], 0, k);
      }
      Sparsity s = mode == Command.S2_4 ? Sparsity.S2_4 : Sparsity.S4_8;
      int[][] y = TiledGemm.run(new TiledGemmConfig(4, 4, 8, 32, TiledGemmConfig.ALL_K_TILES, s), x, w).y();
      for (int i = 0; i < m; i++) {
        for (int j = 0; j < n; j++) {
          assertEquals(y[i][j], PpmUnit.word(res.memory(), 0x3000 + 24 * i + 4 * j));
        }
      }
      long groups = (k + group - 1) / group;
      assertEquals((long) m * n * kept * groups, res.counter(Counter.MACS));
      assertEquals((long) m * k * n, res.counter(Counter.DENSE_MACS));
      long kTiles = (k + 7) / 8;
      assertEquals(CycleFormulas.engineCyclesOverKTiles(4, 4, 8, m, kTiles, n) + 1, res.counter(Counter.ARRAY_CYCLES));
    }
  }

  @Test
  void shippedExampleRunsOnTheGolden() throws Exception {
    java.nio.file.Path file = java.nio.file.Path.of(System.getProperty("llmnpu.repoRoot", ".."), "npu-isa", "examples",
        "gemm-ppm-gelu.npu");
    Assembler.Assembled a = Assembler.assemble(java.nio.file.Files.readString(file), file.toString());
    byte[] mem = new byte[1 << 20];
    new Random(4).nextBytes(mem);
    a.place(mem);
    IsaSimulator.Result res = IsaSimulator.run(machine(true, Command.DENSE), mem, a.origin());
    assertEquals(ErrorCause.NONE, res.error());
    assertEquals(64, res.counter(Counter.PPM_ELEMENTS));
    assertEquals(ErrorCause.UNSUPPORTED, IsaSimulator.run(machine(false, Command.DENSE), mem, a.origin()).error());
  }

  @Test
  void textRoundTripsAndBadSparsity() {
    String text = "ppmcfg ext=0x8000 channels=4\npputab ext=0x9000\nppm src=0 srcStride=16 dst=0x100 dstStride=4 m=3 n=4\n"
        + "gemm m=1 k=8 n=4 x=0 xStride=8 w=64 wStride=4 y=128 yStride=16 sparsity=1\n"
        + "gemm m=1 k=8 n=4 x=0 xStride=8 w=64 wStride=4 y=128 yStride=16\nhalt\n";
    Program p = Assembler.assemble(text, "t.npu").program();
    assertEquals(text, Disassembler.disassemble(p));
    assertArrayEquals(p.words(0), CommandCodec.encode(CommandCodec.decode(p.words(0)).orElseThrow()));
    assertEquals(1 << 17, p.words(3)[2] >>> 16 << 16);
    assertThrows(IllegalArgumentException.class, () -> Program.builder().gemm(1, 1, 1, 0, 4, 0, 4, 0, 4, 4));
    int[] bad = p.words(3);
    bad[2] |= 3 << 17;
    Program prog = Program.builder().raw(bad).halt().build();
    byte[] mem = new byte[1 << 20];
    System.arraycopy(prog.bytes(), 0, mem, 0, prog.bytes().length);
    assertEquals(ErrorCause.BAD_SHAPE, IsaSimulator.run(machine(true, Command.S2_4), mem, 0).error());
  }
}
