package org.llmnpu.cosim.report;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.Consumer;
import org.llmnpu.reports.npu.NpuReport;
import org.llmnpu.reports.ppa.InstanceDesigns;
import org.llmnpu.reports.ppa.ModuleAreas;
import org.llmnpu.reports.ppa.NodeScaling;
import org.llmnpu.reports.ppa.PpaFlow;
import org.llmnpu.reports.ppa.PpaOptions;
import org.llmnpu.reports.ppa.PpaResult;
import org.llmnpu.reports.ppa.SynthesisResult;
import org.llmnpu.hdl.emit.VerilogDesign;
import org.llmnpu.rtl.mac.GemmBackend;
import org.llmnpu.rtl.npu.Npu;

/**
 * The units the NPU top instantiates, for the report's area split: a unit the top's synthesis keeps as a module is its
 * share of that synthesis ({@link #share}); a unit the top flattens is synthesized and timed on its own ({@link #unit}).
 * Also names the units for the page and finds the GEMM engine among them.
 */
public final class NpuUnits {
  private NpuUnits() {
  }

  /** Display names of the top's instances, by the end of their instance name; others keep the instance name. */
  private static final List<Map.Entry<String, String>> UNIT_NAMES = List.of(Map.entry("gemm", "GEMM engine"),
      Map.entry("ppm", "PPM (bias, requant, PPU)"), Map.entry("dsp_convert", "DSP input converter"),
      Map.entry("dsp", "Vector DSP"), Map.entry("spad", "scratchpad"), Map.entry("back", "GEMM back-end (drain)"),
      Map.entry("predecode", "fetch predecode"), Map.entry("load4", "INT4 load unpacker"),
      Map.entry("loadMx", "MX load decoders"), Map.entry("counters", "counters"), Map.entry("snapshot", "snapshot"),
      Map.entry("watchdog", "watchdog"), Map.entry("fetch", "fetcher (command queue)"),
      Map.entry("dma", "DMA (walks, memory-port arbiter)"),
      Map.entry("ctrl", "controller (state machine, decode, GEMM/DSP/PPM control)"));

  static String unitName(List<String> instances) {
    String first = instances.get(0);
    String name = UNIT_NAMES.stream().filter(e -> first.equals(e.getKey()) || first.endsWith("_" + e.getKey()))
        .map(Map.Entry::getValue).findFirst().orElse(first);
    return instances.size() == 1 ? name : name + " (" + instances.size() + " instances)";
  }

  /**
   * Every unit the NPU top instantiates ({@link InstanceDesigns}: the same Verilog as in the top, so the GEMM engine
   * — systolic or PiM —, the PPM and the Vector DSP have the NPU's own parameters), by {@link #unit}.
   */
  public static List<NpuReport.Unit> units(Npu top, VerilogDesign emitted, PpaResult topPpa, PpaOptions ppa,
                                           Consumer<String> log) {
    List<NpuReport.Unit> out = new ArrayList<>();
    for (InstanceDesigns.Unit u : InstanceDesigns.of(top, emitted)) {
      out.add(topKeeps(emitted, u) ? share(u, topPpa, log) : unit(u, ppa, log));
    }
    return out;
  }

  /**
   * Whether the top's synthesis keeps {@code u}'s module as a module (not flattened into the top,
   * {@code HwModule#flattenInSynthesis}), so that its area is its share of the top's run ({@link #share}); a
   * flattened unit has no share of its own there and is synthesized on its own ({@link #unit}).
   */
  public static boolean topKeeps(VerilogDesign emitted, InstanceDesigns.Unit u) {
    return !emitted.flattened().contains(u.module());
  }

  /**
   * A unit the top keeps as a module: its area, cells and SRAM macros are its share of the top's own hierarchical
   * synthesis ({@link ModuleAreas}, exact: the same mapped cells the top counts), without timing of its own.
   */
  public static NpuReport.Unit share(InstanceDesigns.Unit u, PpaResult topPpa, Consumer<String> log) {
    String name = unitName(u.instances());
    SynthesisResult s = ModuleAreas.parse(topPpa.synthesis().yosysLog()).of(u.module(), topPpa.synthesis())
        .orElseThrow(() -> new IllegalStateException("the NPU top's synthesis log has no section of its unit "
            + u.module() + " (" + u.instances() + "): was it flattened? (NpuUnits.topKeeps)"));
    log.accept(String.format(Locale.ROOT, "         %s: %s %s: %.3f mm² std cells, %.3f mm² SRAM (share of the top's "
        + "synthesis)", name, u.module(), u.instances(), s.chipAreaUm2() / 1e6,
        PpaResult.share(u.module(), s).sramAreaUm2(NodeScaling.Node.N180) / 1e6));
    return new NpuReport.Unit(name, u.module(), Map.of(), u.instances(), PpaResult.share(u.module(), s));
  }

  /** One unit of the NPU top through the PPA flow on its own (Yosys + OpenSTA, cached), with lines of its figures. */
  public static NpuReport.Unit unit(InstanceDesigns.Unit u, PpaOptions ppa, Consumer<String> log) {
    String name = unitName(u.instances());
    log.accept(String.format(Locale.ROOT, "         %s: %s %s", name, u.module(), u.instances()));
    PpaResult r = PpaFlow.run(u.design(), Map.of(), ppa);
    log.accept(String.format(Locale.ROOT, "           %.3f mm² std cells, %.3f mm² SRAM, Fmax %.1f MHz (%s -> %s)",
        r.synthesis().chipAreaUm2() / 1e6, r.sramAreaUm2(NodeScaling.Node.N180) / 1e6, r.timing().fmaxMhz(),
        r.timing().startpoint(), r.timing().endpoint()));
    return new NpuReport.Unit(name, u.module(), Map.of(), u.instances(), r);
  }

  /** Whether a unit with these instances is the NPU's GEMM engine (the top's {@link GemmBackend}, systolic or PiM). */
  public static boolean isEngine(Npu top, List<String> instances) {
    return top.ir().children().stream().filter(GemmBackend.class::isInstance).map(ch -> ch.ir().instanceName())
        .anyMatch(instances::contains);
  }

  /** The unit that is the NPU's GEMM engine: the top's instance of a {@link GemmBackend}, systolic or PiM. */
  public static NpuReport.Unit engine(Npu top, List<NpuReport.Unit> units) {
    List<String> engines = top.ir().children().stream().filter(GemmBackend.class::isInstance)
        .map(ch -> ch.ir().instanceName()).toList();
    return units.stream().filter(u -> u.instances().stream().anyMatch(engines::contains)).findFirst()
        .orElseThrow(() -> new IllegalStateException("the NPU top has no GEMM engine among its units "
            + units.stream().map(NpuReport.Unit::instances).toList()));
  }
}
