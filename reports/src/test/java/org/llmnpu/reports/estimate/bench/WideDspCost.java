package org.llmnpu.reports.estimate.bench;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.apache.commons.math3.stat.regression.SimpleRegression;
import org.llmnpu.hdl.gen.BlockGenerator;
import org.llmnpu.hdl.gen.BlockRegistry;
import org.llmnpu.hdl.gen.Params;
import org.llmnpu.reports.RequiredTools;
import org.llmnpu.reports.ppa.BlockDesigns;
import org.llmnpu.reports.ppa.NodeScaling;
import org.llmnpu.reports.ppa.PpaOptions;
import org.llmnpu.reports.ppa.PpaResult;
import org.llmnpu.reports.ppa.PpaSweep;

/**
 * What a wider Vector DSP costs on {@code edge-64} and what it buys: the {@code npu-dsp} block (edge-64's DSP: 64-byte
 * line ports, 16,384 buffer rows, 512 program words, 4 execute stages, buffer permutations) synthesized at
 * {@link #MEASURED} lanes through the PPA flow (Yosys + OpenSTA on osu018 at 5.75 ns, activity 0.1; the same runs as
 * {@code npu report ppa npu-dsp -p rows=64 -p dspLanes=L -p dspRows=16384 -p dspProgramDepth=512 -p dspPermute=true
 * --clock-ns 5.75}, cached), standard-cell area and power fitted against lanes (Commons Math: a line a + b·lanes and a
 * power law c·lanes^k, by least squares on the logs), and extrapolated to 128 and 256 lanes, which the RTL does not
 * build ({@code dspLanes} 1..64). Each option's cost next to the LLaMA-2-7B TTFT and s2_4/int8 ratio it buys
 * ({@link DspSizeWhatIfBench#point}: the cycle model, buffer elements kept), and against edge-64's 64×64 MAC array
 * ({@code mac-array} synthesized at {@link #ARRAY_SIDES} with edge-64's mTile 128, standard cells plus SRAM model, a
 * quadratic in the side through those points, evaluated at 64). The DSP buffer's SRAM (a model) holds the same bits at
 * every option, so only the standard cells and their power change. Benchmark:
 * {@code mvn -q -o -pl reports -am test -Dbench -Dtest='DspSizeWhatIfBench#vectorDspCostPerLanes'
 * -Dsurefire.failIfNoSpecifiedTests=false} (cold, each synthesis is 13-65 minutes on the loaded 2-core machine: the
 * CLI commands above fill the same PPA cache entries).
 */
final class WideDspCost {
  static final int[] MEASURED = {8, 16, 32, 64};
  /** The options priced with their TTFT (256 lanes dropped 2026-12-07: its estimate was killed for memory). */
  static final int[] OPTIONS = {64, 128};
  /** The MAC array's sides synthesized ({@code mac-array}, rows = cols, mTile 128 as edge-64's), fitted to 64. */
  static final int[] ARRAY_SIDES = {8, 16, 32};
  private static final double CLOCK_NS = 5.75;

  private WideDspCost() {
  }

  static void print() {
    RequiredTools.require("yosys", "sta");
    BlockGenerator gen = BlockRegistry.find("npu-dsp");
    PpaOptions o = PpaOptions.defaults().withClockNs(CLOCK_NS).withActivity(PpaOptions.DEFAULT_ACTIVITY, Map.of())
        .withFlatten(false).withGateDuties(Map.of());
    System.out.println("measured (Yosys + OpenSTA, osu018, " + CLOCK_NS + " ns, activity 0.1):");
    System.out.println("| dsp lanes | design | std-cell mm^2 | flip-flops | SRAM model mm^2 | power mW | Fmax MHz | "
        + "slack ns | critical path |");
    System.out.println("|---:|---|---:|---:|---:|---:|---:|---:|---|");
    SimpleRegression areaLine = new SimpleRegression();
    SimpleRegression powerLine = new SimpleRegression();
    SimpleRegression areaLog = new SimpleRegression();
    SimpleRegression powerLog = new SimpleRegression();
    Map<Integer, double[]> measured = new LinkedHashMap<>();
    for (int lanes : MEASURED) {
      Map<String, String> given = new LinkedHashMap<>();
      given.put("rows", "64");
      given.put("dspLanes", Integer.toString(lanes));
      given.put("dspRows", "16384");
      given.put("dspProgramDepth", "512");
      given.put("dspPermute", "true");
      Map<String, String> base = Params.resolve(gen, given).asMap();
      PpaResult r = PpaSweep.run(BlockDesigns.of(gen), base, null, List.of(), o).get(0);
      double mm2 = r.synthesis().chipAreaUm2() / 1e6;
      double mw = r.power().totalMw();
      measured.put(lanes, new double[] {mm2, mw});
      areaLine.addData(lanes, mm2);
      powerLine.addData(lanes, mw);
      areaLog.addData(Math.log(lanes), Math.log(mm2));
      powerLog.addData(Math.log(lanes), Math.log(mw));
      System.out.printf(Locale.ROOT, "| %d | %s | %.2f | %,d | %.2f | %,.1f | %.1f | %.2f | %s -> %s |%n", lanes,
          r.design(), mm2, r.synthesis().flipFlops(), r.sramAreaUm2(NodeScaling.Node.N180) / 1e6, mw,
          r.timing().fmaxMhz(), r.timing().slackNs(), r.timing().startpoint(), r.timing().endpoint());
    }
    System.out.printf(Locale.ROOT, "%nfits over %s lanes:%n", java.util.Arrays.toString(MEASURED));
    System.out.printf(Locale.ROOT, "  area  line  %.3f + %.4f * lanes mm^2 (R^2 %.5f); power law %.3f * lanes^%.3f "
            + "(R^2 on logs %.5f)%n", areaLine.getIntercept(), areaLine.getSlope(), areaLine.getRSquare(),
        Math.exp(areaLog.getIntercept()), areaLog.getSlope(), areaLog.getRSquare());
    System.out.printf(Locale.ROOT, "  power line  %.1f + %.3f * lanes mW (R^2 %.5f); power law %.2f * lanes^%.3f "
            + "(R^2 on logs %.5f)%n", powerLine.getIntercept(), powerLine.getSlope(), powerLine.getRSquare(),
        Math.exp(powerLog.getIntercept()), powerLog.getSlope(), powerLog.getRSquare());
    System.out.println("  each fit against the measured points (fit / measured):");
    for (int lanes : MEASURED) {
      double[] m = measured.get(lanes);
      System.out.printf(Locale.ROOT, "    %d lanes: area line %.3f, law %.3f; power line %.3f, law %.3f%n", lanes,
          areaLine.predict(lanes) / m[0], law(areaLog, lanes) / m[0], powerLine.predict(lanes) / m[1],
          law(powerLog, lanes) / m[1]);
    }

    // edge-64's 64x64 array (dense INT8, mTile 128, accWidth 32), fitted from smaller ones: a + b·R + c·R² through the
    // synthesized sides (as many points as terms: no residual, an interpolation, not a test of the form)
    BlockGenerator arrayGen = BlockRegistry.find("mac-array");
    System.out.println();
    System.out.println("| array rows = cols | design | std-cell mm^2 | SRAM model mm^2 | power mW | Fmax MHz |");
    System.out.println("|---:|---|---:|---:|---:|---:|");
    org.apache.commons.math3.fitting.WeightedObservedPoints arrayArea =
        new org.apache.commons.math3.fitting.WeightedObservedPoints();
    org.apache.commons.math3.fitting.WeightedObservedPoints arrayPower =
        new org.apache.commons.math3.fitting.WeightedObservedPoints();
    for (int side : ARRAY_SIDES) {
      Map<String, String> given = new LinkedHashMap<>();
      given.put("rows", Integer.toString(side));
      given.put("cols", Integer.toString(side));
      given.put("mTile", "128");
      PpaResult r = PpaSweep.run(BlockDesigns.of(arrayGen), Params.resolve(arrayGen, given).asMap(), null, List.of(), o)
          .get(0);
      double mm2 = (r.synthesis().chipAreaUm2() + r.sramAreaUm2(NodeScaling.Node.N180)) / 1e6;
      arrayArea.add(side, mm2);
      arrayPower.add(side, r.power().totalMw());
      System.out.printf(Locale.ROOT, "| %d | %s | %.2f | %.2f | %,.1f | %.1f |%n", side, r.design(),
          r.synthesis().chipAreaUm2() / 1e6, r.sramAreaUm2(NodeScaling.Node.N180) / 1e6, r.power().totalMw(),
          r.timing().fmaxMhz());
    }
    double[] ac = org.apache.commons.math3.fitting.PolynomialCurveFitter.create(2).fit(arrayArea.toList());
    double[] pc = org.apache.commons.math3.fitting.PolynomialCurveFitter.create(2).fit(arrayPower.toList());
    double array64 = ac[0] + ac[1] * 64 + ac[2] * 64 * 64;
    double array64Mw = pc[0] + pc[1] * 64 + pc[2] * 64 * 64;
    System.out.printf(Locale.ROOT, "edge-64's 64x64 array, fitted (cells + SRAM model, %.3f + %.4f R + %.5f R^2 mm^2; "
        + "power %.1f + %.2f R + %.4f R^2 mW): %.1f mm^2, %,.0f mW%n", ac[0], ac[1], ac[2], pc[0], pc[1], pc[2], array64,
        array64Mw);

    System.out.println();
    System.out.println("| dsp lanes (512 words) | std-cell mm^2 | power mW | source | + mm^2 vs 64 lanes | + mW vs 64 "
        + "lanes | + mm^2 / 64x64 array | int8 TTFT s | s2_4 TTFT s | s2_4 / int8 |");
    System.out.println("|---:|---:|---:|---|---:|---:|---:|---:|---:|---:|");
    double[] ref = measured.containsKey(64) ? measured.get(64)
        : new double[] {areaLine.predict(64), powerLine.predict(64)};
    for (int lanes : OPTIONS) {
      double[] m = measured.get(lanes);
      String source;
      if (m != null) {
        source = "measured";
      } else {
        m = new double[] {areaLine.predict(lanes), powerLine.predict(lanes)};
        source = String.format(Locale.ROOT, "fitted (line; power law: %.1f mm^2, %,.0f mW)", law(areaLog, lanes),
            law(powerLog, lanes));
      }
      DspSizeWhatIfBench.Point i8 = DspSizeWhatIfBench.point("int8", lanes, 512);
      DspSizeWhatIfBench.Point s24 = DspSizeWhatIfBench.point("s2_4", lanes, 512);
      System.out.printf(Locale.ROOT, "| %d | %.1f | %,.0f | %s | %+.1f | %+,.0f | %+.3f | %.4f | %.4f | %.3fx |%n", lanes,
          m[0], m[1], source, m[0] - ref[0], m[1] - ref[1], (m[0] - ref[0]) / array64, i8.ttftS(), s24.ttftS(),
          s24.ttftS() / i8.ttftS());
    }
  }

  private static double law(SimpleRegression logs, int lanes) {
    return Math.exp(logs.predict(Math.log(lanes)));
  }
}
