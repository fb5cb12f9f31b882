package org.llmnpu.cli.cosim;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.Locale;
import java.util.concurrent.Callable;
import org.llmnpu.cosim.blocks.GemmCosimRun;
import org.llmnpu.cosim.blocks.GemmPpmCosim;
import org.llmnpu.cosim.WaveCapture;
import org.llmnpu.rtl.mac.GemmEngineConfig;
import org.llmnpu.rtl.mac.MacArrayConfig;
import org.llmnpu.rtl.mac.WeightSparsity;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code npu cosim gemm}: builds (cached) the GEMM engine for the array, runs a random GEMM on it in
 * Verilator and checks it against the golden tiled GEMM: bit exactness, RTL cycles against the
 * cycle formula, MAC utilization, psum write-backs and read-backs.
 */
@Command(name = "gemm", mixinStandardHelpOptions = true,
    description = "Random INT8 GEMM on the MAC-array RTL vs the golden model: bit-exactness, cycles, utilization, psum traffic.")
public final class CosimGemmCommand implements Callable<Integer> {
  @Option(names = "--rows", defaultValue = "8", description = "PE rows, 1..128 (default ${DEFAULT-VALUE}).")
  int rows;
  @Option(names = "--cols", defaultValue = "8", description = "PE columns, 1..128 (default ${DEFAULT-VALUE}).")
  int cols;
  @Option(names = "--m", defaultValue = "64", description = "M, activation rows, 1..65536 (default ${DEFAULT-VALUE}).")
  int m;
  @Option(names = "--k", defaultValue = "64", description = "K, reduction length, 1..65536 (default ${DEFAULT-VALUE}).")
  int k;
  @Option(names = "--n", defaultValue = "64", description = "N, output channels, 1..65536 (default ${DEFAULT-VALUE}).")
  int n;
  @Option(names = "--sparsity", defaultValue = "none", description = "none, s2_4 or s4_8 (N:M weights along K; default ${DEFAULT-VALUE}).")
  String sparsity;
  @Option(names = "--ic-accum", defaultValue = "all", description = "K tiles folded before a psum write-back: all or 1..65536 (default ${DEFAULT-VALUE}).")
  String icAccum;
  @Option(names = "--acc-width", defaultValue = "32", description = "Periphery accumulator bits, 2..32 (default ${DEFAULT-VALUE}).")
  int accWidth;
  @Option(names = "--m-tile", defaultValue = "16", description = "Accumulator bank depth, 2..1024 (default ${DEFAULT-VALUE}).")
  int mTile;
  @Option(names = "--activation", description = "Run the PPM after the GEMM (bias + requantization to INT8) with this activation: "
      + GemmPpmCosim.ALLOWED + ". Without it the engine outputs the INT32 accumulators.")
  String activation;
  @Option(names = "--seed", defaultValue = "1", description = "Seed of the random X and W (default ${DEFAULT-VALUE}).")
  long seed;
  @Option(names = "--json", description = "Print one JSON object instead of text.")
  boolean json;
  @Option(names = "--vcd", paramLabel = "FILE", description = "Keep the run's waves (VCD) in FILE, for "
      + "'npu report ppa gemm-engine ... --activity-vcd FILE' (power from this run's switching activity).")
  java.nio.file.Path vcd;

  @Override
  public Integer call() throws Exception {
    MacArrayConfig array;
    GemmPpmCosim ppm;
    WaveCapture capture;
    try {
      array = validate();
      ppm = activation == null ? null : GemmPpmCosim.parse(activation, cols);
      capture = WaveCapture.to(vcd);
    } catch (IllegalArgumentException e) {
      System.err.println(e.getMessage());
      return 2;
    }
    GemmCosimRun.Outcome o = GemmCosimRun.run(array, m, k, n, seed, ppm, capture);
    java.nio.file.Path waves = capture.keep();
    String reportCommand = waves == null ? null : String.format(Locale.ROOT,
        "./npu report ppa gemm-engine -p rows=%d -p cols=%d -p accWidth=%d -p mTile=%d -p icAccumDepth=%d "
            + "-p sparsity=%s -p maxM=%d -p maxK=%d -p maxN=%d%s --activity-vcd %s -o <dir>", rows, cols, accWidth,
        mTile, array.foldsAllKTiles() ? 0 : array.icAccumDepth(), array.sparsity().cliName(),
        GemmCosimRun.ceilPow2(m), GemmCosimRun.ceilPow2(k), GemmCosimRun.ceilPow2(n),
        ppm == null ? "" : " -p ppm=<as run>", waves);
    boolean cyclesMatch = o.rtlCycles() == o.modelCycles() && o.totalCycles() == o.modelTotalCycles();
    if (json) {
      ObjectNode j = new ObjectMapper().createObjectNode();
      j.put("rows", rows).put("cols", cols).put("m", m).put("k", k).put("n", n);
      j.put("sparsity", array.sparsity().cliName()).put("icAccumDepth", icAccumText(array));
      j.put("accWidth", accWidth).put("mTile", mTile).put("seed", seed);
      j.put("bitExact", o.bitExact()).put("rtlCycles", o.rtlCycles()).put("modelCycles", o.modelCycles());
      j.put("cyclesMatch", cyclesMatch).put("macUtilization", o.utilization());
      j.put("psumWritebacks", o.psumWritebacks()).put("psumReadbacks", o.psumReadbacks());
      j.put("modelPsumWritebacks", o.modelWritebacks()).put("overflow", o.overflow());
      if (ppm != null) {
        j.put("activation", activation).put("ppmBitExact", o.ppmBitExact());
        j.put("totalCycles", o.totalCycles()).put("modelTotalCycles", o.modelTotalCycles());
      }
      if (waves != null) {
        j.put("vcd", waves.toString()).put("powerCommand", reportCommand);
      }
      System.out.println(org.llmnpu.reports.JsonOutput.compact(j));
    } else {
      System.out.printf(Locale.ROOT, "GEMM M=%d K=%d N=%d on a %dx%d MAC array (sparsity %s, icAccumDepth %s, accWidth %d bits, mTile %d), seed %d%n",
          m, k, n, rows, cols, array.sparsity().cliName(), icAccumText(array), accWidth, mTile, seed);
      System.out.printf(Locale.ROOT, "bit-exact vs TiledGemm: %s%n", o.bitExact() ? "yes" : "NO");
      System.out.printf(Locale.ROOT, "RTL cycles:             %d cycles%n", o.rtlCycles());
      System.out.printf(Locale.ROOT, "model cycles:           %d cycles (GemmCycleModel; %s)%n", o.modelCycles(),
          cyclesMatch ? "equal" : "DIFFERENT");
      System.out.printf(Locale.ROOT, "MAC utilization:        %.2f %%%n", 100 * o.utilization());
      System.out.printf(Locale.ROOT, "psum write-backs:       %d elements (formula %d)%n", o.psumWritebacks(),
          o.modelWritebacks());
      System.out.printf(Locale.ROOT, "psum read-backs:        %d elements%n", o.psumReadbacks());
      System.out.printf(Locale.ROOT, "accumulator overflow:   %s%n", o.overflow() ? "yes (saturated)" : "no");
      if (ppm != null) {
        System.out.printf(Locale.ROOT, "PPM INT8 codes:         %s vs numerics Ppm.process (activation %s)%n",
            o.ppmBitExact() ? "bit-exact" : "DIFFERENT", activation);
        System.out.printf(Locale.ROOT, "cycles with the PPM:    %d cycles (formula %d)%n", o.totalCycles(),
            o.modelTotalCycles());
      }
      if (waves != null) {
        System.out.printf(Locale.ROOT, "waves (VCD):            %s; power of this run: %s%n", waves, reportCommand);
      }
    }
    boolean ppmOk = ppm == null || o.ppmBitExact();
    return o.bitExact() && ppmOk && cyclesMatch ? 0 : 1;
  }

  private MacArrayConfig validate() {
    range("--rows", rows, 1, 128);
    range("--cols", cols, 1, 128);
    range("--m", m, 1, 65536);
    range("--k", k, 1, 65536);
    range("--n", n, 1, 65536);
    range("--acc-width", accWidth, 2, 32);
    range("--m-tile", mTile, 2, 1024);
    WeightSparsity s;
    try {
      s = WeightSparsity.parse(sparsity);
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException("--sparsity: '" + sparsity + "' is not allowed; allowed: "
          + WeightSparsity.allowedNames());
    }
    if (rows % s.kept() != 0) {
      throw new IllegalArgumentException("--rows: must be a multiple of " + s.kept() + " with --sparsity " + s.cliName()
          + " (" + s.kept() + " PE rows per group of " + s.group() + " K), got " + rows);
    }
    int depth;
    if (icAccum.equals("all")) {
      depth = MacArrayConfig.ALL_K_TILES;
    } else {
      try {
        depth = Integer.parseInt(icAccum);
      } catch (NumberFormatException e) {
        depth = -1;
      }
      if (depth < 1 || depth > 65536) {
        throw new IllegalArgumentException("--ic-accum: '" + icAccum + "' is not allowed; allowed: all or 1..65536");
      }
    }
    if (activation != null && cols > 64) {
      throw new IllegalArgumentException("--cols: the PPM has at most 64 lanes, got " + cols + " with --activation");
    }
    MacArrayConfig a = new MacArrayConfig(rows, cols, accWidth, mTile, depth, s);
    try {
      new GemmEngineConfig(a, GemmCosimRun.ceilPow2(m), GemmCosimRun.ceilPow2(k), GemmCosimRun.ceilPow2(n));
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException("--m/--k/--n: " + e.getMessage());
    }
    return a;
  }

  private static void range(String name, int value, int min, int max) {
    if (value < min || value > max) {
      throw new IllegalArgumentException(name + ": " + value + " is not allowed; allowed: " + min + ".." + max);
    }
  }

  private static String icAccumText(MacArrayConfig a) {
    return a.foldsAllKTiles() ? "all" : Integer.toString(a.icAccumDepth());
  }
}
