package org.llmnpu.reports.npu;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import org.llmnpu.reports.ppa.NodeScaling;
import org.llmnpu.reports.ppa.PpaResult;

/**
 * The NPU's area by unit: every unit the top instantiates at the area of its own synthesis (times its instances),
 * and the rest of the top — the "glue" — as the top's area minus the units' sum. Since the NPU's controller is a unit
 * of its own (instance {@code ctrl}, 2026-12-03) the top holds no logic, so the glue is what the flattened top
 * saves or adds across the units' ports. Standard cells and SRAM macros are split separately; the shares
 * add up to the top exactly.
 *
 * <p><b>Tolerance.</b> The units' sum may exceed the top by at most {@link #TOLERANCE} of the top's standard-cell
 * area (and of its SRAM area), else {@link #of} throws {@link UnitAreaMismatch}. Why any slack: the top flattens
 * its controller's units into itself before mapping ({@code HwModule#flattenInSynthesis}), so Yosys removes the
 * logic of outputs the top leaves unread and of inputs it ties to constants, and shares logic across the units'
 * ports; a unit synthesized alone keeps all of it. The units the top keeps as modules (the GEMM engine, the Vector
 * DSP, the PPM) are mapped module by module as alone, but ABC buffers and sizes their ports differently as a
 * submodule (the DSP's FP16 rounder: 20,399 µm² in the tiny top, 20,738 µm² alone, +1.7 %). On the tiny NPU (4×4, 2026-12-03, Yosys
 * 0.23, OSU 0.18 µm, 5 ns) the units add up to 88.8 % of the top, i.e. the glue is positive; 5 % is room for a
 * design whose glue is small and whose flattened units lose more than that across their ports, while still
 * catching what this check exists for: a unit counted twice (the PPM, 27 % of the tiny top, or the DSP, 28 %) or
 * synthesized with other parameters than the top's.
 *
 * @param slices       the area shares: units (logic, SRAM) in the top's order, then the glue
 * @param topStdUm2    the top's standard-cell area, µm² at 180 nm
 * @param unitsStdUm2  the units' standard-cell areas summed over their instances
 * @param topSramUm2   the top's SRAM macro area (SRAM model), µm² at 180 nm
 * @param unitsSramUm2 the units' SRAM macro areas summed over their instances
 * @param topShares    units whose area is their share of the top's own synthesis (the modules the top keeps)
 */
public record UnitAreaSplit(List<NpuReport.AreaSlice> slices, double topStdUm2, double unitsStdUm2,
                            double topSramUm2, double unitsSramUm2, int topShares) {
  /** How far the units' sum may exceed the top, as a fraction of the top (5 %). */
  public static final double TOLERANCE = 0.05;

  public UnitAreaSplit {
    slices = List.copyOf(slices);
  }

  /** The name of the glue's standard-cell share. */
  public static final String GLUE = "glue: the top's own logic (wiring; what flattening shares across units)";

  /**
   * The split of {@code top} into {@code units} (those with no instance in the top are left out) and the glue.
   *
   * @throws UnitAreaMismatch when the units' sum exceeds the top by more than {@link #TOLERANCE}
   */
  public static UnitAreaSplit of(PpaResult top, List<NpuReport.Unit> units) {
    NodeScaling.Node n180 = NodeScaling.Node.N180;
    double topStd = top.synthesis().chipAreaUm2();
    double topSram = top.sramAreaUm2(n180);
    double std = 0;
    double sram = 0;
    List<NpuReport.AreaSlice> slices = new ArrayList<>();
    StringBuilder listing = new StringBuilder();
    int shares = 0;
    for (NpuReport.Unit u : units) {
      if (!u.inTop()) {
        continue;
      }
      int copies = u.instances().size();
      double uStd = copies * u.ppa().synthesis().chipAreaUm2();
      double uSram = copies * u.ppa().sramAreaUm2(n180);
      std += uStd;
      sram += uSram;
      String of = u.block() + (copies == 1 ? "" : " × " + copies) + (u.ppa().timed()
          ? " synthesized on its own (Yosys, same library and clock as the top)"
          : " in the NPU top's own hierarchical synthesis (Yosys per-module stat)");
      shares += u.ppa().timed() ? 0 : 1;
      slices.add(new NpuReport.AreaSlice(u.name() + " logic", uStd, of + ": standard cells"));
      if (uSram > 0) {
        slices.add(new NpuReport.AreaSlice(u.name() + " SRAM", uSram, of + ": its memories as SRAM macros (SRAM "
            + "model)"));
      }
      listing.append(String.format(Locale.ROOT, "%n  %-28s %,14.0f µm² std cells %,14.0f µm² SRAM", u.name(), uStd,
          uSram));
    }
    check("standard-cell", topStd, std, top.design(), listing);
    check("SRAM", topSram, sram, top.design(), listing);
    slices.add(new NpuReport.AreaSlice(GLUE, topStd - std, String.format(Locale.ROOT, "the NPU top's standard cells "
        + "minus its units' (%s of the top); within ±%.0f %% of the top it may be negative, as flattening lets Yosys "
        + "share logic across the ports of the units the top flattens", pct(std / topStd), 100 * TOLERANCE)));
    if (Math.abs(topSram - sram) > 0.5) {
      slices.add(new NpuReport.AreaSlice("glue SRAM: the top's own memories", topSram - sram, "the NPU top's SRAM "
          + "macros minus its units' (SRAM model)"));
    }
    return new UnitAreaSplit(slices, topStd, std, topSram, sram, shares);
  }

  private static void check(String what, double top, double units, String design, StringBuilder listing) {
    if (units > top * (1 + TOLERANCE) + 0.5) {
      throw new UnitAreaMismatch(String.format(Locale.ROOT, "the NPU's units add up to "
          + "%,.0f µm² of %s area, %s of the top %s (%,.0f µm²); at most %s is allowed (logic Yosys shares across "
          + "the ports of flattened units). A unit counted twice, or synthesized with other parameters than the top "
          + "instantiates, does this. Units:%s", units, what, pct(units / top), design, top,
          pct(1 + TOLERANCE), listing));
    }
  }

  private static String pct(double fraction) {
    return String.format(Locale.ROOT, "%.1f %%", 100 * fraction);
  }

  /** What the report says about the split. */
  public String note() {
    String how = topShares == 0 ? "every unit the NPU top instantiates is synthesized on its own (the same Verilog, "
        + "library and clock as in the top)" : "the " + topShares + " units the NPU top keeps as modules have their "
        + "share of the top's own hierarchical synthesis (Yosys per-module stat; exact, no second run), the units it "
        + "flattens into itself are synthesized on their own (the same Verilog, library and clock)";
    return String.format(Locale.ROOT, "Area split: " + how + "; each is counted once per instance; the units add up to %s "
        + "of the top's standard cells (%s of its SRAM), and the rest of the top is the glue row. The units' sum may "
        + "exceed the top by at most %.0f %% (flattening lets Yosys share logic across unit ports); the report fails "
        + "beyond that.", pct(unitsStdUm2 / topStdUm2), topSramUm2 == 0 ? "no SRAM" : pct(unitsSramUm2 / topSramUm2),
        100 * TOLERANCE);
  }
}
