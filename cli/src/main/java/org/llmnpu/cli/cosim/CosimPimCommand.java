package org.llmnpu.cli.cosim;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.Locale;
import java.util.concurrent.Callable;
import org.llmnpu.cosim.pim.PimCosim;
import org.llmnpu.cosim.pim.PimMode;
import org.llmnpu.pim.PimMacroConfig;
import org.llmnpu.verilator.SimOptions;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code npu cosim pim}: builds (cached) the PiM macro, runs a random GEMM on it in Verilator and
 * checks it against the golden model of its mode: bit exactness, RTL cycles against the cycle
 * formula, psum write-backs, and for FP modes the error against FP64.
 */
@Command(name = "pim", mixinStandardHelpOptions = true,
    description = "Random GEMM on the PiM-macro RTL vs the golden model: bit-exactness, cycles, psum traffic, FP error vs FP64.")
public final class CosimPimCommand implements Callable<Integer> {
  @Option(names = "--mode", defaultValue = "int8", description = "int8, int4, fp8-pre or fp8-post (default ${DEFAULT-VALUE}).")
  String mode;
  @Option(names = "--fp8", defaultValue = "e4m3", description = "FP8 element format for fp8 modes: e4m3 or e5m2 (default ${DEFAULT-VALUE}).")
  String fp8;
  @Option(names = "--rows", defaultValue = "16", description = "Macro rows (K per row group), 1..256 (default ${DEFAULT-VALUE}).")
  int rows;
  @Option(names = "--cols", defaultValue = "16", description = "Macro columns (N per pass), 1..256 (default ${DEFAULT-VALUE}).")
  int cols;
  @Option(names = "--m", defaultValue = "4", description = "M, input vectors, 1..65536 (default ${DEFAULT-VALUE}).")
  int m;
  @Option(names = "--k", defaultValue = "40", description = "K, reduction length, 1..65536 (default ${DEFAULT-VALUE}).")
  int k;
  @Option(names = "--n", defaultValue = "20", description = "N, output channels, 1..65536 (default ${DEFAULT-VALUE}).")
  int n;
  @Option(names = "--in-bits", defaultValue = "8", description = "INT input bits, 1..8 (default ${DEFAULT-VALUE}).")
  int inBits;
  @Option(names = "--bits-per-cycle", defaultValue = "1", description = "Input bits per cycle (1 = bit-serial) (default ${DEFAULT-VALUE}).")
  int bitsPerCycle;
  @Option(names = "--align-bits", defaultValue = "8", description = "fp8-pre: magnitude bits kept after alignment (default ${DEFAULT-VALUE}).")
  int alignBits;
  @Option(names = "--acc-width", defaultValue = "32", description = "INT psum bits, 2..32 (default ${DEFAULT-VALUE}).")
  int accWidth;
  @Option(names = "--m-tile", defaultValue = "16", description = "Psum bank entries per column, 2..1024 (default ${DEFAULT-VALUE}).")
  int mTile;
  @Option(names = "--ic-accum", defaultValue = "all", description = "Row groups folded before a psum write-back: all or 1..65536 (default ${DEFAULT-VALUE}).")
  String icAccum;
  @Option(names = "--weight-banks", defaultValue = "1", description = "Bitcell banks: 1, or 2 = double-buffered (default ${DEFAULT-VALUE}).")
  int weightBanks;
  @Option(names = "--input", defaultValue = "fp8", description = "fp8 modes: input elements fp8, bf16, mxfp8 or mxint8 (default ${DEFAULT-VALUE}).")
  String input;
  @Option(names = "--seed", defaultValue = "1", description = "Seed of the random X and W (default ${DEFAULT-VALUE}).")
  long seed;
  @Option(names = "--json", description = "Print one JSON object instead of text.")
  boolean json;

  @Override
  public Integer call() throws Exception {
    PimMacroConfig c;
    PimMode pm;
    try {
      pm = PimMode.parse(mode);
      range("--m", m, 1, 65536);
      range("--k", k, 1, 65536);
      range("--n", n, 1, 65536);
      c = pm.config(rows, cols, fp8, inBits, bitsPerCycle, alignBits, accWidth, mTile, icAccumDepth()).withWeightBanks(weightBanks);
      if (pm.isFp()) {
        c = c.withInput(org.llmnpu.pim.PimInput.parse(input));
      }
    } catch (IllegalArgumentException e) {
      System.err.println(optionMessage(e.getMessage()));
      return 2;
    }
    PimCosim.Outcome o = PimCosim.random(c, m, k, n, seed, SimOptions.fromEnvironment());
    if (json) {
      ObjectNode j = new ObjectMapper().createObjectNode();
      j.put("mode", pm.cliName()).put("config", c.tag()).put("rows", rows).put("cols", cols);
      j.put("m", m).put("k", k).put("n", n).put("icAccumDepth", icAccum).put("weightBanks", weightBanks).put("seed", seed);
      j.put("bitExact", o.bitExact()).put("mismatches", o.mismatches());
      j.put("rtlCycles", o.rtlCycles()).put("modelCycles", o.modelCycles()).put("cyclesMatch", o.cyclesMatch());
      j.put("cyclesPerMvm", c.cyclesPerMvm()).put("macUtilization", o.utilization());
      j.put("psumWritebacks", o.psumWritebacks()).put("psumReadbacks", o.psumReadbacks());
      j.put("modelPsumWritebacks", o.modelWritebacks()).put("overflow", o.overflow()).put("special", o.special());
      if (pm.isFp()) {
        j.put("snrDbVsFp64", o.snrDb()).put("maxRelErrorVsFp64", o.maxRelError());
      }
      System.out.println(new ObjectMapper().writeValueAsString(j));
    } else {
      System.out.printf(Locale.ROOT, "GEMM M=%d K=%d N=%d on a %dx%d PiM macro, mode %s (%s), icAccumDepth %s, seed %d%n",
          m, k, n, rows, cols, pm.cliName(), c.tag(), icAccum, seed);
      System.out.printf(Locale.ROOT, "bit-exact vs golden:    %s%s%n", o.bitExact() ? "yes" : "NO",
          o.mismatches() > 0 ? " (" + o.mismatches() + " psums differ)" : "");
      System.out.printf(Locale.ROOT, "RTL cycles:             %d cycles (%d cycles per MVM)%n", o.rtlCycles(), c.cyclesPerMvm());
      System.out.printf(Locale.ROOT, "model cycles:           %d cycles (PimCycleModel; %s)%n", o.modelCycles(),
          o.cyclesMatch() ? "equal" : "DIFFERENT");
      System.out.printf(Locale.ROOT, "MAC utilization:        %.2f %%%n", 100 * o.utilization());
      System.out.printf(Locale.ROOT, "psum write-backs:       %d elements (formula %d), read-backs %d%n",
          o.psumWritebacks(), o.modelWritebacks(), o.psumReadbacks());
      System.out.printf(Locale.ROOT, "overflow / NaN-Inf:     %s / %s%n", o.overflow() ? "yes" : "no", o.special() ? "yes" : "no");
      if (pm.isFp()) {
        System.out.printf(Locale.ROOT, "error vs FP64:          SNR %.1f dB, max |err| %.3g of max |y|%n", o.snrDb(), o.maxRelError());
      }
    }
    return o.bitExact() && o.cyclesMatch() ? 0 : 1;
  }

  private static final String[][] OPTION_OF_FIELD = {
      {"rows", "--rows"}, {"cols", "--cols"}, {"inBits", "--in-bits"}, {"bitsPerCycle", "--bits-per-cycle"},
      {"alignBits", "--align-bits"}, {"accWidth", "--acc-width"}, {"mTile", "--m-tile"}, {"icAccumDepth", "--ic-accum"},
      {"weightBanks", "--weight-banks"}, {"input", "--input"}};

  /** A config message names the record field; the user typed the option: name that instead. */
  static String optionMessage(String message) {
    for (String[] f : OPTION_OF_FIELD) {
      if (message.startsWith(f[0] + " ")) {
        return f[1] + ": " + message.substring(f[0].length() + 1);
      }
    }
    return message;
  }

  private int icAccumDepth() {
    if (icAccum.equals("all")) {
      return PimMacroConfig.ALL_ROW_GROUPS;
    }
    try {
      int d = Integer.parseInt(icAccum);
      if (d >= 1 && d <= 65536) {
        return d;
      }
    } catch (NumberFormatException e) {
      // reported below
    }
    throw new IllegalArgumentException("--ic-accum: '" + icAccum + "' is not allowed; allowed: all or 1..65536");
  }

  private static void range(String name, int value, int min, int max) {
    if (value < min || value > max) {
      throw new IllegalArgumentException(name + ": " + value + " is not allowed; allowed: " + min + ".." + max);
    }
  }
}
