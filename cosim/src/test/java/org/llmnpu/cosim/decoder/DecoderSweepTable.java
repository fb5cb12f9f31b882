package org.llmnpu.cosim.decoder;

import java.io.IOException;

/** Prints the bench sweep of {@link DecoderSweep} as a Markdown table. */
public final class DecoderSweepTable {
  private DecoderSweepTable() {
  }

  /** Every bench point with a {@code promptLen}-token prefill and {@code maxNew − 1} decode steps. */
  public static void print(int promptLen, int maxNew) throws IOException {
    System.out.println("| config | quant | prefill model | prefill RTL | error | decode model | decode RTL | error "
        + "| bit-exact | RTL wall (s) | total wall (s) |");
    System.out.println("|---|---|---:|---:|---:|---:|---:|---:|---|---:|---:|");
    for (DecoderSweep.Point p : DecoderSweep.bench()) {
      DecoderSweep.Row r = DecoderSweep.run(p, promptLen, maxNew);
      System.out.printf("| %s | %s | %,d | %,d | %.2f %% | %,d | %,d | %.2f %% | %s | %.1f | %.1f |%n", p.name(),
          p.quant(), r.modelCycles("prefill"), r.rtlCycles("prefill"), r.errorPercent("prefill"),
          r.modelCycles("decode"), r.rtlCycles("decode"), r.errorPercent("decode"),
          r.result().bitExact() ? "yes" : "no: " + r.result().firstDifference().orElse(""), r.rtlSeconds(),
          r.wallSeconds());
    }
  }
}
