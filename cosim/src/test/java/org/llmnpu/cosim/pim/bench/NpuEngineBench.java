package org.llmnpu.cosim.pim.bench;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Random;
import org.junit.jupiter.api.extension.ExtendWith;
import org.llmnpu.cosim.NpuRtl;
import org.llmnpu.cosim.ProgramCosim;
import org.llmnpu.cosim.RandomPrograms;
import org.llmnpu.hdl.bench.BenchRecord;
import org.llmnpu.isa.Counter;
import org.llmnpu.isa.EngineTiming;
import org.llmnpu.isa.MachineParams;
import org.llmnpu.isa.Program;
import org.llmnpu.rtl.npu.NpuConfig;
import org.llmnpu.verilator.SimOptions;

/**
 * The NPU with either GEMM engine at equal MAC count (a 16×16 systolic array or a 16×16 INT8 PiM
 * macro, {@code engine = systolic | pim | pim-k4 | pim-k8}) on the GEMM commands of real shapes:
 *
 * <ol>
 *   <li>Measured in Verilator: stories260K decode GEMVs (dim 64, hidden 172, vocab 512) and a
 *       prefill chunk as whole NPU programs (LOAD X, LOAD W, GEMM per N ≤ 256 tile, STORE Y),
 *       bit-exact with the golden ISA simulator; RTL total cycles, array cycles and psum write-backs,
 *       each checked equal to the cycle model.</li>
 *   <li>From the cycle model (exact against the RTL, as 1. and the cosim tests show): LLaMA-7B
 *       decode GEMVs (4096×4096, 4096×11008, 11008×4096) and a 128-token prefill GEMM, as the NPU's
 *       GEMM commands (tiles of maxM × maxK × maxN = 16 × 256 × 256): array cycles and GEMM-unit
 *       cycles (operand copy + array + drain) per engine.</li>
 * </ol>
 *
 * <p>Run: {@code mvn -q -pl cosim -am test -Dbench -Dtest=NpuEngineBench -Dsurefire.failIfNoSpecifiedTests=false}.
 */
@ExtendWith(BenchRecord.class)
public final class NpuEngineBench {
  static final List<String> ENGINES = List.of("systolic", "pim", "pim-k4", "pim-k8");

  @org.junit.jupiter.api.Test
  void figures() {
    main(new String[0]);
  }

  static NpuConfig config(String engine) {
    return new NpuConfig(16, 128, 2, 2, 16, 32, 0, 16, 256, 256, 32, 16, 4096, 16, 512, 256, 1L << 24, engine);
  }

  record Shape(String name, int m, int k, int n) {
  }

  public static void main(String[] args) {
    List<Shape> small = List.of(new Shape("stories260K decode wq (64→64)", 1, 64, 64),
        new Shape("stories260K decode w1/w3 (64→172)", 1, 64, 172),
        new Shape("stories260K decode w2 (172→64)", 1, 172, 64),
        new Shape("stories260K decode classifier (64→512)", 1, 64, 512),
        new Shape("stories260K prefill w1, 16 tokens", 16, 64, 172));
    System.out.println("NPU 16x16, memory latency 32, 16 B/cycle; whole programs in Verilator (RTL = model, bit-exact)");
    System.out.println("| shape | M×K×N | engine | NPU cycles | array cycles | psum write-backs | bit-exact | RTL = model |");
    System.out.println("|---|---|---|---|---|---|---|---|");
    for (String e : List.of("systolic", "pim")) {
      NpuConfig c = config(e);
      try (NpuRtl rtl = NpuRtl.start(c, SimOptions.fromEnvironment())) {
        for (Shape s : small) {
          Program p = program(c.machine(), s);
          byte[] image = new byte[(int) c.machine().extMemBytes()];
          new Random(7).nextBytes(image);
          image = RandomPrograms.place(image, p, 0);
          ProgramCosim.Outcome o = ProgramCosim.run(rtl, image, 0);
          boolean exact = o.counterMismatches().keySet().stream().allMatch(k -> k.key().startsWith("dsp"));
          System.out.printf(Locale.ROOT, "| %s | %d×%d×%d | %s | %,d | %,d | %,d | %s | %s |%n", s.name, s.m, s.k, s.n, e,
              o.rtlCycles(), o.rtl().counters().get(Counter.ARRAY_CYCLES),
              o.rtl().counters().get(Counter.PSUM_WRITEBACKS), o.bitExact() ? "yes" : "NO", exact ? "yes" : "NO");
        }
      }
    }
    List<Shape> big = List.of(new Shape("LLaMA-7B decode q/k/v/o", 1, 4096, 4096),
        new Shape("LLaMA-7B decode gate/up", 1, 4096, 11008),
        new Shape("LLaMA-7B decode down", 1, 11008, 4096),
        new Shape("LLaMA-7B prefill q (128 tokens)", 128, 4096, 4096));
    System.out.println();
    System.out.println("Cycle model (exact against the RTL): the NPU's GEMM commands in tiles of 16×256×256");
    System.out.println("| shape | M×K×N | engine | array cycles | GEMM-unit cycles (copy + array + drain) | vs systolic |");
    System.out.println("|---|---|---|---|---|---|");
    for (Shape s : big) {
      double base = 0;
      for (String e : ENGINES) {
        NpuConfig c = config(e);
        long[] t = tiledCycles(c.machine(), c.engineTiming(), s);
        if (e.equals("systolic")) {
          base = t[1];
        }
        System.out.printf(Locale.ROOT, "| %s | %d×%d×%d | %s | %,d | %,d | %.2f× |%n", s.name, s.m, s.k, s.n, e, t[0], t[1],
            base / t[1]);
      }
    }
  }

  /** LOAD X, then per N tile (≤ maxN): LOAD W, GEMM, STORE Y; K ≤ maxK, M ≤ maxM (one K tile of the NPU). */
  static Program program(MachineParams p, Shape s) {
    int line = p.lineBytes();
    long xStride = roundUp(s.k, line);
    long spadX = 0;
    long spadW = roundUp(xStride * s.m, line);
    Program.Builder b = Program.builder();
    b.load(0x10000, xStride, spadX, xStride, s.k, s.m);
    for (int n0 = 0; n0 < s.n; n0 += p.maxN()) {
      int nc = Math.min(p.maxN(), s.n - n0);
      long wStride = roundUp(nc, line);
      long spadY = spadW + roundUp(wStride * s.k, line);
      long yStride = roundUp(4L * nc, line);
      b.load(0x40000 + (long) n0 * s.k, wStride, spadW, wStride, nc, s.k);
      b.gemm(s.m, s.k, nc, spadX, xStride, spadW, wStride, spadY, yStride);
      b.store(0x100000 + 4L * n0 * s.m, yStride, spadY, yStride, 4L * nc, s.m);
    }
    return b.halt().build();
  }

  /** {array cycles, GEMM-unit cycles} of the shape's GEMM commands on {@code engine}, serially. */
  static long[] tiledCycles(MachineParams p, EngineTiming engine, Shape s) {
    long array = 0;
    long unit = 0;
    int line = p.lineBytes();
    for (int m0 = 0; m0 < s.m; m0 += p.maxM()) {
      int mc = Math.min(p.maxM(), s.m - m0);
      for (int k0 = 0; k0 < s.k; k0 += p.maxK()) {
        int kc = Math.min(p.maxK(), s.k - k0);
        for (int n0 = 0; n0 < s.n; n0 += p.maxN()) {
          int nc = Math.min(p.maxN(), s.n - n0);
          long kTiles = (kc + line - 1) / line;
          long nTiles = (nc + line - 1) / line;
          long eng = engine.engineCycles(p, mc, kc, nc);
          long copy = mc * kTiles + kc * nTiles;
          long drain = mc * ((4L * nc + line - 1) / line);
          array += eng + 1;
          unit += copy + 1 + eng + drain;
        }
      }
    }
    return new long[] {array, unit};
  }

  static long roundUp(long v, long to) {
    return (v + to - 1) / to * to;
  }

  static List<String> engines() {
    return new ArrayList<>(ENGINES);
  }
}
