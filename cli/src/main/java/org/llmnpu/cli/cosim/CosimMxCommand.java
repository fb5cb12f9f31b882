package org.llmnpu.cli.cosim;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import org.llmnpu.cosim.blocks.MxCosimRun;
import org.llmnpu.rtl.mx.MxFormat;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code npu cosim mx --format F}: runs every MX unit of element format F (decode, encode,
 * quantizer, dequantizer, dot product, pre-alignment) in Verilator against the golden models in
 * {@code org.llmnpu.numerics.mx}, and prints per unit: cases, bit-exactness, max error against
 * double precision, and cycles of the block stream.
 */
@Command(name = "mx", mixinStandardHelpOptions = true,
    description = "MX-format units (OCP MX v1.0) of one element type on the RTL vs the golden models: bit-exactness, error vs double, cycles.")
public final class CosimMxCommand implements Callable<Integer> {
  @Option(names = "--format", required = true,
      description = "Element type: fp8_e4m3, fp8_e5m2, fp6_e3m2, fp6_e2m3, fp4_e2m1 or int8.")
  String format;
  @Option(names = "--blocks", defaultValue = "64", description = "Random blocks streamed through the block units, 1..100000 (default ${DEFAULT-VALUE}).")
  int blocks;
  @Option(names = "--seed", defaultValue = "1", description = "Seed of the random blocks (default ${DEFAULT-VALUE}).")
  long seed;
  @Option(names = "--json", description = "Print one JSON object instead of text.")
  boolean json;

  @Override
  public Integer call() throws Exception {
    MxFormat f;
    try {
      f = MxFormat.fromCliName(format);
      if (blocks < 1 || blocks > 100_000) {
        throw new IllegalArgumentException("--blocks: " + blocks + " is not allowed; allowed: 1..100000");
      }
    } catch (IllegalArgumentException e) {
      System.err.println(e.getMessage().replace("parameter 'format'", "--format"));
      return 2;
    }
    long t0 = System.nanoTime();
    List<MxCosimRun.UnitResult> results = MxCosimRun.run(f, blocks, seed);
    double seconds = (System.nanoTime() - t0) / 1e9;
    boolean exact = results.stream().allMatch(r -> r.mismatches() == 0);
    if (json) {
      ObjectMapper om = new ObjectMapper();
      ObjectNode j = om.createObjectNode();
      j.put("format", f.cliName()).put("blocks", blocks).put("seed", seed).put("bitExact", exact);
      ArrayNode units = j.putArray("units");
      for (MxCosimRun.UnitResult r : results) {
        units.addObject().put("unit", r.unit()).put("cases", r.cases()).put("mismatches", r.mismatches())
            .put("bitExact", r.mismatches() == 0).put("maxError", r.maxError()).put("errorUnit", r.errorUnit())
            .put("cycles", r.cycles()).put("cycleFormula", r.cycleFormula());
      }
      j.put("seconds", seconds);
      System.out.println(org.llmnpu.reports.JsonOutput.compact(j));
    } else {
      System.out.printf(Locale.ROOT, "MX %s units on the RTL (Verilator) vs org.llmnpu.numerics.mx, %d random blocks, seed %d%n",
          f.cliName(), blocks, seed);
      for (MxCosimRun.UnitResult r : results) {
        String error = r.errorUnit().isEmpty() ? "n/a" : String.format(Locale.ROOT, "%.4g %s", r.maxError(), r.errorUnit());
        String cycles = r.cycles() == 0 ? "combinational (latency 0)"
            : r.cycles() + " cycles for the stream (" + r.cycleFormula() + ")";
        System.out.printf(Locale.ROOT, "%s%n  %d cases, bit-exact: %s, max error vs double: %s, %s%n", r.unit(), r.cases(),
            r.mismatches() == 0 ? "yes" : "NO (" + r.mismatches() + " mismatches)", error, cycles);
      }
      System.out.printf(Locale.ROOT, "all units bit-exact: %s (%.1f s)%n", exact ? "yes" : "NO", seconds);
    }
    return exact ? 0 : 1;
  }
}
