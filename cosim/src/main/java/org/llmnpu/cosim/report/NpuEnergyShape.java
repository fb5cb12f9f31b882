package org.llmnpu.cosim.report;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.llmnpu.cosim.report.NpuReportPipeline.Fmt;
import org.llmnpu.hdl.emit.VerilogDesign;
import org.llmnpu.isa.MachineParams;
import org.llmnpu.reports.energy.EnergyAction;
import org.llmnpu.reports.energy.EnergyEstimate;
import org.llmnpu.reports.energy.EnergyTable;
import org.llmnpu.reports.ppa.PpaResult;
import org.llmnpu.rtl.npu.NpuConfig;

/**
 * The NPU's shape for the energy estimate ({@link EnergyEstimate.Shape}): scratchpad line and bank, DSP lanes, PPU,
 * PiM rows, PPM input lanes, and the flip-flops charged idle energy with the clock gates that stop them.
 */
public final class NpuEnergyShape {
  private NpuEnergyShape() {
  }

  /**
   * The NPU's gated units for the idle energy: each clock gate's flip-flops, the synthesized flip-flops in the share
   * of the generator's register bits on its clock (synthesis keeps or drops flip-flops alike across the design),
   * and the counter of the cycles it is open ({@code NpuClockGates}).
   */
  static List<EnergyEstimate.GatedUnit> gatedUnits(org.llmnpu.hdl.emit.VerilogDesign design, PpaResult npu,
                                                   List<String> notes) {
    List<EnergyEstimate.GatedUnit> out = new ArrayList<>();
    if (design.gatedBanks().isEmpty() || design.registerBits() == 0) {
      return out;
    }
    long ffs = npu.synthesis().flipFlops();
    StringBuilder text = new StringBuilder();
    Map<String, long[]> byCounter = new java.util.LinkedHashMap<>();
    for (var b : design.gatedBanks()) {
      String counter = org.llmnpu.rtl.npu.NpuClockGates.enableKey(b.path()).orElseThrow(() ->
          new IllegalStateException("clock gate " + b.path() + " has no enable counter (NpuClockGates)"));
      long bankFfs = Math.round((double) ffs * b.registerBits() / design.registerBits());
      out.add(new EnergyEstimate.GatedUnit(b.path(), bankFfs, counter));
      byCounter.merge(counter, new long[] {1, bankFfs}, (x, y) -> new long[] {x[0] + y[0], x[1] + y[1]});
    }
    // one entry per counter: the lanes' pipelined units have a gate each, the same counter
    byCounter.forEach((counter, n) -> text.append(String.format(Locale.ROOT, "%s%s %,d flip-flops (clock open in %s)",
        text.length() == 0 ? "" : "; ", n[0] == 1 ? pathOf(design, counter) : n[0] + " gates", n[1], counter)));
    notes.add("Clock gating: " + text + "; the other flip-flops are clocked every cycle, and each gating cell counts "
        + "as " + Fmt.num(EnergyEstimate.GATE_CELL_FLIP_FLOPS) + " flip-flops' idle every cycle. The DSP's and PPM's "
        + "gates stay open a few cycles after their commands (pipelines settling, NpuClockGates), which their "
        + "counters leave out; the DSP lanes' pipelined units (their own gates inside the DSP's) are charged N − 1 "
        + "cycles per operation they issued, an upper bound (operations in flight together share cycles); the banks "
        + "written at most once per command (command register, landing register, queue slots, snapshot latch) one "
        + "cycle per command decoded, and so the predecode's products (clocked when a command arrives); the fetcher's "
        + "assembly register and the DSP's tables one cycle per external read beat, the counters' high parts one per "
        + "command and carry (counterCarries), the dspin conversion's stages in the DSP's cycles, each DSP lane's "
        + "operand registers one cycle per DSP instruction issued; "
        + "the MAC array (its own gate inside the GEMM engine's) in the array's cycles, "
        + "its PEs' wavefront and row-shadow gates one cycle per input vector the engine took (arrayVectors, an "
        + "upper bound).");
    return out;
  }

  /** The path of the one gate whose counter is {@code counter}. */
  private static String pathOf(org.llmnpu.hdl.emit.VerilogDesign design, String counter) {
    return design.gatedBanks().stream().map(org.llmnpu.hdl.emit.VerilogDesign.GatedBankInfo::path)
        .filter(p -> org.llmnpu.rtl.npu.NpuClockGates.enableKey(p).orElse("").equals(counter)).findFirst().orElseThrow();
  }

  /**
   * The NPU's shape for the energy estimate: its scratchpad line and bank, DSP lanes, PPU, PiM rows, PPM lanes on the
   * read port and, when the table has {@code IDLE_FLIP_FLOP}, the NPU top's flip-flops (its synthesis) with its gated
   * units ({@link #gatedUnits}, whose note goes to {@code notes}).
   */
  public static EnergyEstimate.Shape shape(NpuConfig c, VerilogDesign emitted, PpaResult npu, EnergyTable table,
                                    double runClockNs, List<String> notes) {
    MachineParams mp = c.machine();
    boolean wholeIdle = table.entries().containsKey(EnergyAction.IDLE_FLIP_FLOP);
    return new EnergyEstimate.Shape(8 * mp.lineBytes(), mp.spadBytes() / mp.lineBytes() / mp.spadBanks(), false,
        runClockNs, mp.dsp().lanes())
        .withFlipFlops(wholeIdle ? npu.synthesis().flipFlops() : 0).withPpu(c.ppu())
        .withPimRows(c.engineTiming().pim() ? c.rows() : 0).withPpmInputLanes(PPM_INPUT_LANES.applyAsInt(c))
        .withGatedUnits(wholeIdle ? gatedUnits(emitted, npu, notes) : List.of());
  }

  /**
   * PPM lanes the NPU drives straight from the scratchpad read port, which every line another unit reads would move
   * through like an element: none. {@code NpuPpm} feeds the PPM {@code ppm_fedLine}, the line only in the cycles a
   * {@code ppm} or a fused GEMM's drain feeds it and 0 in all others, so the other units' reads stop at that
   * isolation and the PPM's inputs hold while its clock is gated ({@code ClockGatingCosimTest} checks they hold).
   */
  public static final java.util.function.ToIntFunction<NpuConfig> PPM_INPUT_LANES = c -> 0;
}
