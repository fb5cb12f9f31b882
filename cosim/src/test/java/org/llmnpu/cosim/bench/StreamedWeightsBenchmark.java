package org.llmnpu.cosim.bench;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.llmnpu.hdl.bench.BenchRecord;
import org.llmnpu.isa.Command;
import org.llmnpu.isa.Counter;
import org.llmnpu.isa.ErrorCause;
import org.llmnpu.isa.IsaSimulator;
import org.llmnpu.isa.MachineParams;
import org.llmnpu.isa.Program;
import org.llmnpu.reports.estimate.EstimateTarget;
import org.llmnpu.rtl.npu.NpuConfig;

/**
 * Figures (not a test; {@code mvn -pl cosim -am test -Dbench -Dtest=StreamedWeightsBenchmark
 * -Dsurefire.failIfNoSpecifiedTests=false}): a 512×512×512 GEMM and a 1×4096×4096 GEMV with their DMA, on the
 * edge-64 NPU ({@code npu estimate}'s preset: 64×64 array, 64 B/cycle, latency 100) and on the default NPU (16×16,
 * 16 B/cycle, latency 32), from the golden ISA simulator's cycle model (which the RTL equals cycle for cycle in
 * {@code StreamedGemmCosimTest}): the scratchpad-W path ({@code load} W, then {@code gemm} copies it into the
 * engine) against streamed weights ({@code gemm wStream=1}), INT4 against INT8 weights at 16 GB/s (1 GHz), 2:4
 * against dense on the same NPU built for 2:4. GEMMs are tiled into {@code maxM × maxK × maxN} commands (W in N
 * tiles of {@code maxN} columns; K past {@code maxK} as GEMMs that accumulate into Y); X and, on the scratchpad path, W are loaded once when they fit the scratchpad, else M
 * tile by M tile and N tile by N tile (the engine holds its own copy, so the next tile's load goes while it runs);
 * Y is stored per command from two alternating buffers.
 *
 * <p>Columns: {@code cycles}; {@code array%} = useful MACs (M·K·N, dense-equivalent for 2:4, so above 100 % when a
 * 2:4 array does two dense MACs per PE and cycle) / (rows² · cycles);
 * {@code bw%} = bytes read from the memory (every read beat, command fetch included, × line) / (bytes per cycle ·
 * cycles); {@code readMiB} the bytes read; {@code vsBytes} = cycles / (W and X bytes / bytes per cycle), the
 * GEMV's distance from its memory bound. The memory is sized to the operands (cycles do not depend on its size).
 */
@ExtendWith(BenchRecord.class)
class StreamedWeightsBenchmark {
  private static final long X_EXT = 1L << 20;
  private static final long W_EXT = 8L << 20;
  private static final long Y_EXT = 32L << 20;
  private static final long MEM = 64L << 20;

  private enum Path { SCRATCHPAD, STREAMED, STREAMED_INT4, STREAMED_2_4 }

  /** The NPU's machine (its other fields as given: edge-64 as shipped) with room for the operands in its memory. */
  private static MachineParams machine(NpuConfig c) {
    return c.machine().with(b -> b.extMemBytes(MEM));
  }

  /**
   * {@code Y = X·W} of {@code m×k×n} as commands of at most {@code maxM × k × maxN}; X (k bytes a row) loaded
   * once at scratchpad 0, Y rows of 4·tile bytes in two alternating scratchpad buffers, stored per command.
   */
  private static Program program(MachineParams p, int m, int k, int n, Path path) {
    int line = p.lineBytes();
    int tileN = Math.min(n, p.maxN());
    int tileM = Math.min(m, p.maxM());
    int tileK = Math.min(k, p.maxK());
    long yTile = (long) tileM * 4 * tileN;
    // X once if it fits beside two Y tiles and a W tile, else per M tile (the engine holds its copy of X and W, so
    // the next tile's load may overwrite the scratchpad's)
    boolean xOnce = (long) m * k + 2 * yTile + (long) tileK * tileN <= p.spadBytes();
    long yBase = roundUp(xOnce ? (long) m * k : (long) tileM * k, line);
    long wBase = yBase + 2 * yTile;
    boolean wOnce = (long) k * n <= p.spadBytes() - wBase;
    boolean wPerN = !wOnce && tileK == k;
    Program.Builder b = Program.builder();
    if (xOnce) {
      b.load(X_EXT, k, 0, k, k, m);
    }
    if (path == Path.SCRATCHPAD && wOnce) {
      b.load(W_EXT, n, wBase, n, n, k);
    }
    int index = 0;
    Command.Store pending = null;
    for (int nt = 0; nt < n; nt += tileN) {
      if (path == Path.SCRATCHPAD && wPerN) {
        b.load(W_EXT + nt, n, wBase, tileN, tileN, k);
      }
      for (int mt = 0; mt < m; mt += tileM) {
        long y = yBase + (index % 2) * yTile;
        long x = xOnce ? (long) mt * k : 0;
        if (!xOnce) {
          b.load(X_EXT + (long) mt * k, k, 0, k, k, tileM);
        }
        for (int kt = 0; kt < k; kt += tileK) {
          long wSpad = wOnce ? wBase + (long) kt * n + nt : wBase;
          long wSpadStride = wOnce ? n : tileN;
          if (path == Path.SCRATCHPAD && !wOnce && !wPerN) {
            b.load(W_EXT + (long) kt * n + nt, n, wBase, tileN, tileN, tileK);
          }
          long wExt = W_EXT + (long) kt * n + nt;
          long add = kt > 0 ? 1 : 0;
          switch (path) {
            case SCRATCHPAD -> b.add(new Command.Gemm(tileM, tileK, tileN, x + kt, k, wSpad, wSpadStride, y,
                4L * tileN, Command.DENSE, add));
            case STREAMED -> b.add(new Command.Gemm(tileM, tileK, tileN, x + kt, k, wExt, n, y, 4L * tileN,
                Command.DENSE, add, 1, 0, 0));
            case STREAMED_INT4 -> b.add(new Command.Gemm(tileM, tileK, tileN, x + kt, k,
                W_EXT + ((long) kt * n + nt) / 2, n / 2, y, 4L * tileN, Command.DENSE, add, 1, 1, 0));
            // S = K/2 value rows and K/8 packed metadata rows (contents do not change cycles)
            case STREAMED_2_4 -> b.add(new Command.Gemm(tileM, tileK, tileN, x + kt, k, wExt, n, y, 4L * tileN,
                Command.S2_4, add, 1, 0, 0));
            default -> throw new IllegalStateException();
          }
        }
        if (pending != null) {
          b.add(pending);
        }
        pending = new Command.Store(Y_EXT + (long) mt * 4 * n + 4L * nt, 4L * n, y, 4L * tileN, 4L * tileN, tileM);
        index++;
      }
    }
    return b.add(pending).halt().build();
  }

  private static long roundUp(long v, long to) {
    return (v + to - 1) / to * to;
  }

  private static void run(String npu, MachineParams p, String shape, int m, int k, int n, Path path) {
    Program prog = program(p, m, k, n, path);
    byte[] image = new byte[(int) p.extMemBytes()];
    System.arraycopy(prog.bytes(), 0, image, 0, prog.bytes().length);
    IsaSimulator.Result r = IsaSimulator.run(p, image, 0);
    if (r.error() != ErrorCause.NONE) {
      throw new IllegalStateException(npu + " " + shape + " " + path + ": " + r.error() + " at command "
          + r.errorCommand());
    }
    long cycles = r.counter(Counter.CYCLES);
    double useful = (double) m * k * n;
    double array = useful / ((double) p.rows() * p.rows() * cycles);
    long bytesRead = r.counter(Counter.EXT_READ_BEATS) * p.lineBytes();
    double bw = (double) bytesRead / ((double) p.memBytesPerCycle() * cycles);
    double wBytes = path == Path.STREAMED_INT4 ? k * (n / 2.0) : path == Path.STREAMED_2_4 ? k * 0.625 * n
        : (double) k * n;
    double bound = (wBytes + (double) m * k) / p.memBytesPerCycle();
    System.out.printf("%-10s %-14s %-14s %12d %7.1f %7.1f %9.2f %8.2f%n", npu, shape, path.name().toLowerCase(),
        cycles, 100 * array, 100 * bw, bytesRead / 1048576.0, cycles / bound);
  }

  private static void header() {
    System.out.printf("%-10s %-14s %-14s %12s %7s %7s %9s %8s%n", "npu", "shape", "W path", "cycles", "array%",
        "bw%", "readMiB", "vsBytes");
  }

  @Test
  void gemmAndGemvScratchpadVersusStreamed() {
    header();
    NpuConfig edge = EstimateTarget.load("edge-64", null).npu();
    for (NpuConfig c : new NpuConfig[] {edge, NpuConfig.defaults()}) {
      String name = c == edge ? "edge-64" : "default";
      MachineParams p = machine(c);
      for (Path path : new Path[] {Path.SCRATCHPAD, Path.STREAMED}) {
        run(name, p, "512x512x512", 512, 512, 512, path);
      }
      for (Path path : new Path[] {Path.SCRATCHPAD, Path.STREAMED}) {
        run(name, p, "1x4096x4096", 1, 4096, 4096, path);
      }
    }
  }

  /** INT4 halves the GEMV's W bytes: its cycles at 16 GB/s (1 GHz: 16 B/cycle) against INT8's. */
  @Test
  void int4VersusInt8GemvAt16GBs() {
    header();
    EstimateTarget edge = EstimateTarget.load("edge-64", null).withBandwidthGbs(16);
    MachineParams p = machine(edge.npu());
    run("edge-64@16", p, "1x4096x4096", 1, 4096, 4096, Path.STREAMED);
    run("edge-64@16", p, "1x4096x4096", 1, 4096, 4096, Path.STREAMED_INT4);
    long int8 = cycles(p, Path.STREAMED);
    long int4 = cycles(p, Path.STREAMED_INT4);
    System.out.printf("INT4/INT8 GEMV cycles %.3f (W bytes 0.500)%n", (double) int4 / int8);
  }

  /**
   * At 64 GB/s (one line a cycle) the INT4 stream takes a beat a cycle (the W buffer writes its two lines at once),
   * but a GEMV on the 64×64 array is bound by its passes (one PE row a cycle into the array, a pass at least
   * {@code max(rows, cols)} cycles: 64 weights a cycle), which INT8 at 64 B/cycle already feeds.
   */
  @Test
  void int4VersusInt8GemvAt64GBs() {
    header();
    MachineParams p = machine(EstimateTarget.load("edge-64", null).npu());
    run("edge-64", p, "1x4096x4096", 1, 4096, 4096, Path.STREAMED);
    run("edge-64", p, "1x4096x4096", 1, 4096, 4096, Path.STREAMED_INT4);
    long int8 = cycles(p, Path.STREAMED);
    long int4 = cycles(p, Path.STREAMED_INT4);
    System.out.printf("INT4/INT8 GEMV cycles %.3f (W bytes 0.500)%n", (double) int4 / int8);
  }

  private static long cycles(MachineParams p, Path path) {
    Program prog = program(p, 1, 4096, 4096, path);
    byte[] image = new byte[(int) p.extMemBytes()];
    System.arraycopy(prog.bytes(), 0, image, 0, prog.bytes().length);
    return IsaSimulator.run(p, image, 0).counter(Counter.CYCLES);
  }

  /** 2:4 (values and packed metadata streamed) against dense streamed, on the NPUs built for 2:4. */
  @Test
  void sparse24VersusDense() {
    header();
    NpuConfig edge = EstimateTarget.load("edge-64", null).npu();
    for (NpuConfig c : new NpuConfig[] {edge.withSparsity("2:4"), NpuConfig.defaults().withSparsity("2:4")}) {
      String name = c.rows() == 64 ? "edge-64" : "default";
      MachineParams p = machine(c);
      for (Path path : new Path[] {Path.STREAMED, Path.STREAMED_2_4}) {
        run(name + "/2:4", p, "512x512x512", 512, 512, 512, path);
        run(name + "/2:4", p, "1x4096x4096", 1, 4096, 4096, path);
      }
    }
  }
}
