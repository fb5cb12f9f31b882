package org.llmnpu.cosim.bench;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.llmnpu.cosim.decoder.DecoderRun;
import org.llmnpu.cosim.report.NpuEnergyCalibration;
import org.llmnpu.cosim.report.NpuEnergyShape;
import org.llmnpu.cosim.report.NpuReportPipeline;
import org.llmnpu.cosim.demo.NpuDemo;
import org.llmnpu.hdl.bench.BenchRecord;
import org.llmnpu.hdl.emit.Verilog;
import org.llmnpu.hdl.emit.VerilogDesign;
import org.llmnpu.isa.Counter;
import org.llmnpu.reports.energy.EnergyEstimate;
import org.llmnpu.reports.energy.EnergyTable;
import org.llmnpu.reports.ppa.NodeScaling;
import org.llmnpu.reports.ppa.PpaFlow;
import org.llmnpu.reports.ppa.PpaResult;
import org.llmnpu.rtl.npu.Npu;
import org.llmnpu.rtl.npu.NpuConfig;
import org.llmnpu.verilator.SimOptions;

/**
 * Issue 31's energy target (a benchmark, not a test; {@code mvn -q -o -pl cosim -am test -Dbench
 * -Dtest=DecodeEnergyBenchmark -Dsurefire.failIfNoSpecifiedTests=false}): stories260K's decode step on the default
 * NPU at 180 nm — energy per token and the clock + leakage share — for each fusion level the lowering has, with the
 * whole-NPU report's own energy table, shape and idle model ({@link NpuEnergyShape#shape}, the table calibrated
 * by {@link NpuEnergyCalibration} for the NPU, both from the PPA cache that {@code ./npu report npu} fills). The
 * decode step's counters come from the golden ISA simulator with the cycle model (equal to the RTL's, which the
 * co-simulation tests and the report hold them to), at position 16 ({@link #PROMPT}: the first decode step of
 * {@code ./npu cosim decoder}'s default run, seed 1). Beside the NPU as built: the same synthesis with only the unit
 * gates (the DSP lanes' pipelined units on the DSP's gate, as before they had their own: {@link #unitGatesOnly}),
 * and with every flip-flop clocked every cycle (no gating); the issue's baseline is 3,440 µJ.
 */
@ExtendWith(BenchRecord.class)
class DecodeEnergyBenchmark {
  static final double BASELINE_UJ = 3440;
  /**
   * The prompt of the measured step: {@code cosim decoder}'s default (16 tokens), so the step is the first decode
   * step (position 16) of stories260K as {@code ./npu cosim decoder} runs it, one decode step per run.
   */
  static final int PROMPT = 16;
  /** The lowering's fusion levels. */
  static final List<String> FUSIONS = List.of("none", "vertical", "full");

  @Test
  void decodeStepEnergyPerTokenByFusion() throws Exception {
    energyByFusion(false);
  }

  /**
   * The same with the table of the blocks alone ({@link NpuEnergyCalibration#blocksOnly}: no NPU data-path actions,
   * whose calibration simulates and analyzes the whole default NPU four times): the energy per token without the
   * NPU's commands, DMA and scratchpad-port switching, a lower bound, and its clock + leakage share an upper bound.
   */
  @Test
  void decodeStepEnergyLowerBoundByFusion() throws Exception {
    energyByFusion(true);
  }

  private static void energyByFusion(boolean blocksOnly) throws Exception {
    NpuReportPipeline.Options o = NpuDemo.defaults();
    NpuConfig c = o.config();
    Npu top = new Npu(c);
    VerilogDesign emitted = Verilog.emit(top);
    PpaResult npu = PpaFlow.run(emitted, NpuReportPipeline.generatorParams(c), o.ppa());
    SimOptions sim = SimOptions.fromEnvironment();
    NpuEnergyCalibration calibration = new NpuEnergyCalibration(o.ppa(), sim, o.seed(), System.out::println);
    EnergyTable table = blocksOnly ? calibration.blocksOnly(c, 0)
        : new NpuReportPipeline(o, System.out::println).energyTable(top, emitted).table();
    double clockNs = Math.max(o.ppa().clockNs(), npu.timing().criticalDelayNs());
    List<String> notes = new ArrayList<>();
    EnergyEstimate.Shape shape = NpuEnergyShape.shape(c, emitted, npu, table, clockNs, notes);
    System.out.printf(Locale.ROOT, "default NPU: %,d flip-flops, Fmax %.1f MHz, cycle %.3f ns; NPU top power (OpenSTA, "
        + "activity %.2f, gated clocks ideal and open) %.1f mW%n", npu.synthesis().flipFlops(), npu.timing().fmaxMhz(),
        clockNs, o.ppa().activity(), npu.power().totalMw());
    System.out.println("  power model: " + npu.power().activityModel());
    notes.forEach(n -> System.out.println("  " + n));
    System.out.println(blocksOnly ? "  table: the blocks' calibration alone (no NPU data-path actions: a lower bound)"
        : "  table: the whole-NPU report's calibration for this NPU");
    EnergyEstimate.Shape unitGatesOnly = shape.withGatedUnits(unitGatesOnly(shape.gatedUnits()));
    System.out.printf("%-9s %9s %11s %8s %9s %11s %8s %11s %8s%n", "fusion", "cycles", "uJ/token", "x3440", "clk+leak",
        "unit gates", "clk+leak", "ungated uJ", "clk+leak");
    for (String fusion : FUSIONS) {
      DecoderRun.Result r = DecoderRun.run(new DecoderRun.Options("stories260K", PROMPT, 2, "int8",
          DecoderRun.Engine.GOLDEN, o.seed(), 0, 0, fusion), c, sim);
      Map<String, Long> counters = new LinkedHashMap<>();
      for (Counter k : Counter.values()) {
        counters.put(k.key(), r.total("decode", k));
      }
      counters.put(EnergyEstimate.ARRAY_VECTORS, r.arrayVectors("decode"));
      counters.putAll(org.llmnpu.rtl.npu.NpuClockGates.pipeCycles(r.dspPipeIssues("decode"), c.dspStages()));
      long tokens = r.steps().stream().filter(s -> s.phase().equals("decode")).count();
      EnergyEstimate gated = EnergyEstimate.of(table, NodeScaling.Node.N180, counters, shape);
      EnergyEstimate units = EnergyEstimate.of(table, NodeScaling.Node.N180, counters, unitGatesOnly);
      EnergyEstimate ungated = EnergyEstimate.of(table, NodeScaling.Node.N180, counters,
          shape.withGatedUnits(List.of()));
      double uj = gated.totalPj() / tokens / 1e6;
      System.out.printf(Locale.ROOT, "%-9s %,9d %11.1f %8.3f %8.1f%% %11.1f %7.1f%% %11.1f %7.1f%%%n", fusion,
          counters.get("cycles") / tokens, uj, uj / BASELINE_UJ, 100 * idleShare(gated),
          units.totalPj() / tokens / 1e6, 100 * idleShare(units), ungated.totalPj() / tokens / 1e6,
          100 * idleShare(ungated));
      StringBuilder byUnit = new StringBuilder("  by unit (uJ/token):");
      gated.byUnitPj().forEach((u, pj) -> byUnit.append(String.format(Locale.ROOT, " %s %.1f;", u, pj / tokens / 1e6)));
      System.out.println(byUnit);
      printIdleByBank(shape, counters, table, tokens);
    }
  }

  /**
   * The decode step's counters alone (golden ISA simulator and cycle model, no tools): per fusion level, the cycles,
   * each clock gate's open fraction by its counter (the GEMM engine's, the MAC array's, the PEs' wavefront and
   * row-shadow gates' by {@code arrayVectors}, the DSP's, the PPM's), the DMA bytes, commands and DSP instructions.
   */
  @Test
  void decodeStepCountersByFusion() throws Exception {
    NpuReportPipeline.Options o = NpuDemo.defaults();
    System.out.printf("%-9s %9s %9s %10s %8s %9s %9s %11s %9s %9s  %s%n", "fusion", "cycles", "gemm open",
        "array open", "PE open", "dsp open", "ppm open", "DMA bytes", "commands", "dspInstr", "DSP pipelined units' operations (fp16 fma16 fp32 convert)");
    for (String fusion : FUSIONS) {
      DecoderRun.Result r = DecoderRun.run(new DecoderRun.Options("stories260K", PROMPT, 2, "int8",
          DecoderRun.Engine.GOLDEN, o.seed(), 0, 0, fusion), o.config(), SimOptions.fromEnvironment());
      double cycles = r.total("decode", Counter.CYCLES);
      long[] pipes = r.dspPipeIssues("decode");
      System.out.printf(Locale.ROOT, "%-9s %,9d %9.3f %10.3f %8.4f %9.3f %9.3f %,11d %,9d %,9d  %,d %,d %,d %,d%n",
          fusion, (long) cycles, r.total("decode", Counter.GEMM_CYCLES) / cycles,
          r.total("decode", Counter.ARRAY_CYCLES) / cycles, r.arrayVectors("decode") / cycles,
          r.total("decode", Counter.DSP_CYCLES) / cycles,
          r.total("decode", Counter.PPM_CYCLES) / cycles,
          r.total("decode", Counter.DMA_LOAD_BYTES) + r.total("decode", Counter.DMA_STORE_BYTES),
          r.total("decode", Counter.COMMANDS), r.total("decode", Counter.DSP_INSTRUCTIONS), pipes[0], pipes[1],
          pipes[2], pipes[3]);
    }
  }

  /**
   * The gates as they were before the DSP lanes' pipelined units, the MAC array and the banks written once per command
   * had their own: each pipelined-unit gate's flip-flops back on the DSP's gate (its clock), the MAC array's on the
   * GEMM engine's, the per-command banks' back on the ungated clock, for the comparison in one run on the same
   * synthesis.
   */
  static List<EnergyEstimate.GatedUnit> unitGatesOnly(List<EnergyEstimate.GatedUnit> gates) {
    long pipes = gates.stream().filter(g -> g.name().endsWith("Pipe")).mapToLong(EnergyEstimate.GatedUnit::flipFlops)
        .sum();
    long array = gates.stream().filter(DecodeEnergyBenchmark::insideTheArray)
        .mapToLong(EnergyEstimate.GatedUnit::flipFlops).sum();
    List<EnergyEstimate.GatedUnit> out = new ArrayList<>();
    for (EnergyEstimate.GatedUnit g : gates) {
      if (g.name().endsWith("Pipe") || g.enableCounter().equals(Counter.COMMANDS.key()) || insideTheArray(g)) {
        continue;
      }
      // the pipes go back on the DSP unit's own gate only (the dspin chunk register's gate shares its counter)
      long back = isDspUnitGate(g) ? pipes
          : g.enableCounter().equals(Counter.GEMM_CYCLES.key()) ? array : 0;
      out.add(back > 0 ? new EnergyEstimate.GatedUnit(g.name(), g.flipFlops() + back, g.enableCounter()) : g);
    }
    return out;
  }

  /** The Vector DSP's unit gate (last path segment {@code dspUnit}), which held the lanes' pipelined units before. */
  private static boolean isDspUnitGate(EnergyEstimate.GatedUnit g) {
    String n = g.name();
    return n.substring(Math.max(n.lastIndexOf('.'), n.lastIndexOf('_')) + 1).equals("dspUnit");
  }

  /** The MAC array's gate and the PEs' wavefront and row-shadow gates inside it, all inside the GEMM engine's. */
  private static boolean insideTheArray(EnergyEstimate.GatedUnit g) {
    return g.enableCounter().equals(Counter.ARRAY_CYCLES.key())
        || g.enableCounter().equals(EnergyEstimate.ARRAY_VECTORS);
  }

  /**
   * The clock + leakage of the step by register bank ({@link EnergyEstimate#idleByBank}): flip-flops, the fraction of
   * the step their clock runs, µJ per token; the DSP lanes' gates of one unit on one line.
   */
  static void printIdleByBank(EnergyEstimate.Shape shape, Map<String, Long> counters, EnergyTable table,
                              long tokens) {
    double cycles = counters.get(Counter.CYCLES.key());
    double pjPerFfCycle = table.pj(org.llmnpu.reports.energy.EnergyAction.IDLE_FLIP_FLOP, NodeScaling.Node.N180);
    Map<String, long[]> flops = new LinkedHashMap<>();
    long gatedFlops = shape.gatedUnits().stream().mapToLong(EnergyEstimate.GatedUnit::flipFlops).sum();
    flops.put(EnergyEstimate.ALWAYS_CLOCKED, new long[] {shape.flipFlops() - gatedFlops});
    shape.gatedUnits().forEach(g -> flops.merge(bankGroup(g.name()), new long[] {g.flipFlops()},
        (a, b) -> new long[] {a[0] + b[0]}));
    flops.put(EnergyEstimate.GATE_CELLS, new long[] {Math.round(shape.gatedUnits().size()
        * EnergyEstimate.GATE_CELL_FLIP_FLOPS)});
    Map<String, Double> ffCycles = new LinkedHashMap<>();
    EnergyEstimate.idleByBank(shape, counters, cycles).forEach((bank, c) -> ffCycles.merge(bankGroup(bank), c,
        Double::sum));
    System.out.printf(Locale.ROOT, "  clock + leakage by bank (%.4f pJ per clocked flip-flop and cycle; flip-flops, "
        + "clock open, uJ/token):%n", pjPerFfCycle);
    ffCycles.forEach((bank, c) -> {
      long n = flops.get(bank)[0];
      System.out.printf(Locale.ROOT, "    %-34s %,7d ff %6.1f%% %8.1f%n", bank, n, n == 0 ? 0 : 100 * c / (n * cycles),
          c * pjPerFfCycle / tokens / 1e6);
    });
  }

  /**
   * The bank's line in {@link #printIdleByBank}: the DSP lanes' gates of a unit together ({@code lane_*}), the MAC
   * array's wavefront gates together ({@code wavefront*}), its row-shadow gates together ({@code shadowRow*}).
   */
  static String bankGroup(String bank) {
    return bank.replaceAll("lane_[0-9]+", "lane_*").replaceAll("(wavefront|shadowRow)[0-9]+$", "$1*");
  }

  private static double idleShare(EnergyEstimate e) {
    return e.byUnitPj().getOrDefault(EnergyEstimate.IDLE_UNIT, 0.0) / e.totalPj();
  }
}
