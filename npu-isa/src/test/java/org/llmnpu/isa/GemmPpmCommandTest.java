package org.llmnpu.isa;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

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

/** {@code gemm ppm=1} in the golden simulator: codes against numerics, ppmcfg groups, counters, cycles, checks. */
class GemmPpmCommandTest {
  private static final int LATENCY = PpmAndSparseCommandTest.LATENCY;
  private static final int X = 0x1000;
  private static final int W = 0x4000;
  private static final int RECORDS = 0x8000;
  private static final int TABLE = 0xC000;

  private static MachineParams machine(boolean ppu) {
    return PpmAndSparseCommandTest.machine(ppu, Command.DENSE);
  }

  private static RequantParams params(Random r) {
    return new RequantParams(QuantizedMultiplier.fromScale(Math.scalb(1 + r.nextDouble(), -6 - r.nextInt(10))),
        r.nextInt(40) - 20, OutputFormat.INT8, Activation.NONE, 0);
  }

  /** A random image: X (M×K, stride 64) at X, W (K×N, stride 64) at W, N records at RECORDS, the table at TABLE. */
  private static byte[] image(Random r, Program prog, RequantParams[] params, int[] bias, PpuTable table) {
    byte[] mem = new byte[1 << 20];
    r.nextBytes(mem);
    for (int j = 0; j < params.length; j++) {
      byte[] rec = IsaSimulator.ppmRecord(bias[j], params[j].multiplier(), params[j].outputZeroPoint());
      System.arraycopy(rec, 0, mem, RECORDS + 16 * j, 16);
    }
    if (table != null) {
      byte[] t = IsaSimulator.ppuTableImage(table);
      System.arraycopy(t, 0, mem, TABLE, t.length);
    }
    System.arraycopy(prog.bytes(), 0, mem, 0, prog.bytes().length);
    return mem;
  }

  /** Loads X and W, the channel records in two ppmcfg groups, the table, runs the fused GEMM, stores Y. */
  private static Program program(int m, int k, int n, boolean ppu, long ppmFlag) {
    int split = (n + 1) / 2;
    Program.Builder b = Program.builder().load(X, 64, 0, 64, k, m).load(W, 64, 1024, 64, n, k).ppmCfg(RECORDS, split, 0);
    if (split < n) {
      b.ppmCfg(RECORDS + 16 * split, n - split, split);
    }
    if (ppu) {
      b.ppuTab(TABLE);
    }
    return b.add(new Command.Gemm(m, k, n, 0, 64, 1024, 64, 2048, 64, Command.DENSE, 0, 0, 0, ppmFlag))
        .store(0x10000, 64, 2048, 64, 64, m).halt().build();
  }

  @Test
  void fusedGemmEqualsNumericsPpmOfTheTiledGemm() {
    for (boolean ppu : new boolean[] {false, true}) {
      for (int n : new int[] {1, 3, 37, 64}) {
        Random r = new Random(31 * n + (ppu ? 1 : 0));
        int m = 5;
        int k = 11;
        RequantParams[] params = new RequantParams[n];
        int[] bias = new int[n];
        for (int j = 0; j < n; j++) {
          params[j] = params(r);
          bias[j] = r.nextInt(4000) - 2000;
        }
        PpuTable table = ppu ? PpuFitter.fit(PpuFunction.SILU, PpuFormat.DEFAULT) : null;
        Program prog = program(m, k, n, ppu, 1);
        byte[] mem = image(r, prog, params, bias, table);
        IsaSimulator.Result res = IsaSimulator.run(machine(ppu), mem, 0);
        assertEquals(ErrorCause.NONE, res.error());
        int[][] acc = accumulators(mem, X, W, m, k, n);
        int[][] q = Ppm.process(acc, bias, params, table);
        // the store reads the scratchpad's Y rows, which held the random image's bytes past N (load of X/W aside)
        IsaSimulator.Result plain = IsaSimulator.run(machine(ppu), image(new Random(31 * n + (ppu ? 1 : 0)),
            program(m, k, n, ppu, 0), params, bias, table), 0);
        for (int i = 0; i < m; i++) {
          for (int j = 0; j < 64; j++) {
            int got = res.memory()[0x10000 + 64 * i + j];
            if (j < n) {
              assertEquals(q[i][j], got, "q[" + i + "][" + j + "] ppu " + ppu + " n " + n);
            } else if (j >= 4 * n) {
              // bytes past N are unchanged: those past 4N equal the unfused run's, which leaves them too
              assertEquals(plain.memory()[0x10000 + 64 * i + j], got, "byte " + j + " of row " + i);
            }
          }
        }
        assertEquals((long) m * n, res.counter(Counter.PPM_ELEMENTS));
        assertEquals(plain.counter(Counter.SPAD_WRITES), res.counter(Counter.SPAD_WRITES));
        assertEquals(plain.counter(Counter.SPAD_READS), res.counter(Counter.SPAD_READS));
        assertEquals(plain.counter(Counter.PPM_CYCLES), res.counter(Counter.PPM_CYCLES));
      }
    }
  }

  /**
   * The INT32 results of the GEMM of X (M×K at memory {@code x}, rows 64 bytes apart) and W (K×N at {@code w}, rows 64
   * bytes apart) on the test machine's 4×4 array ({@code TiledGemm}).
   */
  static int[][] accumulators(byte[] mem, int x, int w, int m, int k, int n) {
    byte[][] xs = new byte[m][k];
    byte[][] ws = new byte[k][n];
    for (int i = 0; i < m; i++) {
      System.arraycopy(mem, x + 64 * i, xs[i], 0, k);
    }
    for (int i = 0; i < k; i++) {
      System.arraycopy(mem, w + 64 * i, ws[i], 0, n);
    }
    return TiledGemm.run(new TiledGemmConfig(4, 4, 8, 32, TiledGemmConfig.ALL_K_TILES, Sparsity.NONE), xs, ws).y();
  }

  @Test
  void bytesPastNOfTheYRowsAreUnchanged() {
    Random r = new Random(5);
    int n = 6;
    RequantParams[] params = new RequantParams[n];
    int[] bias = new int[n];
    for (int j = 0; j < n; j++) {
      params[j] = params(r);
    }
    // Y rows pre-filled by a load of known bytes; the fused GEMM writes N = 6 codes a row.
    Program prog = Program.builder().load(X, 64, 0, 64, 8, 2).load(W, 64, 1024, 64, n, 8).load(0x20000, 64, 2048, 64, 64, 2)
        .ppmCfg(RECORDS, n).add(new Command.Gemm(2, 8, n, 0, 64, 1024, 64, 2048, 64, Command.DENSE, 0, 0, 0, 1))
        .store(0x10000, 64, 2048, 64, 64, 2).halt().build();
    byte[] mem = image(r, prog, params, bias, null);
    IsaSimulator.Result res = IsaSimulator.run(machine(false), mem, 0);
    assertEquals(ErrorCause.NONE, res.error());
    for (int i = 0; i < 2; i++) {
      for (int j = n; j < 64; j++) {
        assertEquals(mem[0x20000 + 64 * i + j], res.memory()[0x10000 + 64 * i + j]);
      }
    }
  }

  @Test
  void theBackEndIsBusyThePpmLatencyLonger() {
    for (boolean ppu : new boolean[] {false, true}) {
      Random r = new Random(9);
      int n = 37;
      RequantParams[] params = new RequantParams[n];
      for (int j = 0; j < n; j++) {
        params[j] = params(r);
      }
      PpuTable table = ppu ? PpuFitter.fit(PpuFunction.GELU, PpuFormat.DEFAULT) : null;
      long[] cycles = new long[2];
      long[] gemmCycles = new long[2];
      for (int flag = 0; flag < 2; flag++) {
        IsaSimulator.Result res = IsaSimulator.run(machine(ppu), image(new Random(2), program(7, 13, n, ppu, flag),
            params, new int[n], table), 0);
        assertEquals(ErrorCause.NONE, res.error());
        cycles[flag] = res.counter(Counter.CYCLES);
        gemmCycles[flag] = res.counter(Counter.GEMM_CYCLES);
      }
      int latency = ppu ? LATENCY : 7;
      // the store after the GEMM reads its results: it waits for the back-end, L cycles longer
      assertEquals(cycles[0] + latency, cycles[1]);
      assertEquals(gemmCycles[0] + latency, gemmCycles[1]);
    }
  }

  @Test
  void aLoadWaitsForThePpmWrites() {
    // gemm ppm=1 then a load: the load is dispatched once the back-end (drain and PPM tail) is idle
    long[] cycles = new long[2];
    for (int flag = 0; flag < 2; flag++) {
      Program prog = Program.builder().load(X, 64, 0, 64, 4, 1).load(W, 64, 1024, 64, 4, 4).ppmCfg(RECORDS, 4)
          .add(new Command.Gemm(1, 4, 4, 0, 64, 1024, 64, 2048, 64, Command.DENSE, 0, 0, 0, flag))
          .load(X, 64, 3072, 64, 4, 1).halt().build();
      Random r = new Random(3);
      RequantParams[] params = {params(r), params(r), params(r), params(r)};
      IsaSimulator.Result res = IsaSimulator.run(machine(false), image(r, prog, params, new int[4], null), 0);
      assertEquals(ErrorCause.NONE, res.error());
      cycles[flag] = res.counter(Counter.CYCLES);
    }
    assertEquals(cycles[0] + 7, cycles[1]);
  }

  @Test
  void checks() {
    Random r = new Random(4);
    MachineParams ppu = machine(true);
    MachineParams plain = machine(false);
    Command fused = new Command.Gemm(1, 4, 4, 0, 64, 1024, 64, 2048, 64, Command.DENSE, 0, 0, 0, 1);
    Object[][] cases = {
        {PpmAndSparseCommandTest.DENSE, Program.builder().add(fused), ErrorCause.UNSUPPORTED},
        {ppu, Program.builder().add(fused), ErrorCause.UNSUPPORTED},
        {ppu, Program.builder().ppuTab(TABLE).add(fused), ErrorCause.NONE},
        {plain, Program.builder().add(fused), ErrorCause.NONE},
        {plain, Program.builder().add(new Command.Gemm(1, 4, 4, 0, 64, 1024, 64, 2048, 64, Command.DENSE, 1, 0, 0, 1)),
            ErrorCause.BAD_SHAPE},
        {plain, Program.builder().add(new Command.Gemm(1, 4, 65, 0, 64, 1024, 64, 2048, 64, Command.DENSE, 0, 0, 0, 1)),
            ErrorCause.BAD_SHAPE},
        // Y range: N bytes a row (4N would pass the end of the 4 KiB scratchpad)
        {plain, Program.builder().add(new Command.Gemm(2, 4, 32, 0, 64, 1024, 64, 4096 - 64 - 32, 64, Command.DENSE, 0,
            0, 0, 1)), ErrorCause.NONE},
        {plain, Program.builder().add(new Command.Gemm(2, 4, 32, 0, 64, 1024, 64, 4096 - 64 - 28, 64, Command.DENSE, 0,
            0, 0, 1)), ErrorCause.SPAD_ADDRESS},
        {plain, Program.builder().add(new Command.Gemm(2, 4, 32, 0, 64, 1024, 64, 4096 - 64 - 32, 64, Command.DENSE, 0,
            0, 0, 0)), ErrorCause.SPAD_ADDRESS},
        {plain, Program.builder().ppmCfg(RECORDS, 64), ErrorCause.NONE},
        {plain, Program.builder().ppmCfg(RECORDS, 4, 60), ErrorCause.NONE},
        {plain, Program.builder().ppmCfg(RECORDS, 4, 61), ErrorCause.BAD_SHAPE},
    };
    for (Object[] c : cases) {
      Program prog = ((Program.Builder) c[1]).halt().build();
      byte[] mem = image(r, prog, new RequantParams[0], new int[0], PpuFitter.fit(PpuFunction.SILU, PpuFormat.DEFAULT));
      // valid records everywhere the commands read (random bytes are not valid multipliers)
      for (int j = 0; j < 64; j++) {
        byte[] rec = IsaSimulator.ppmRecord(0, QuantizedMultiplier.fromScale(0.01), 0);
        System.arraycopy(rec, 0, mem, RECORDS + 16 * j, 16);
      }
      IsaSimulator.Result res = IsaSimulator.run((MachineParams) c[0], mem, 0);
      assertEquals(c[2], res.error(), Disassembler.disassemble(prog));
    }
  }

  @Test
  void textRoundTrips() {
    String text = "ppmcfg ext=0x8000 channels=4\nppmcfg ext=0x8000 channels=4 first=60\n"
        + "gemm m=1 k=8 n=4 x=0 xStride=8 w=64 wStride=4 y=128 yStride=16 ppm=1\nhalt\n";
    Program p = Assembler.assemble(text, "t.npu").program();
    assertEquals(text, Disassembler.disassemble(p));
    assertEquals(60, p.words(1)[3]);
    assertEquals(0, p.words(0)[3]);
    assertEquals(1 << 21, p.words(2)[2] & (1 << 21));
    for (int i = 0; i < 3; i++) {
      assertArrayEquals(p.words(i), CommandCodec.encode(CommandCodec.decode(p.words(i)).orElseThrow()));
    }
  }
}
