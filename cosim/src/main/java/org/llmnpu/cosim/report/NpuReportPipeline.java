package org.llmnpu.cosim.report;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.function.Consumer;
import org.llmnpu.cosim.NpuRtl;
import org.llmnpu.cosim.ProgramCosim;
import org.llmnpu.cosim.RandomPrograms;
import org.llmnpu.hdl.emit.Verilog;
import org.llmnpu.hdl.emit.VerilogDesign;
import org.llmnpu.isa.Counter;
import org.llmnpu.isa.IsaSimulator;
import org.llmnpu.isa.MachineParams;
import org.llmnpu.reports.energy.Calibration;
import org.llmnpu.reports.energy.EnergyAction;
import org.llmnpu.reports.energy.EnergyEstimate;
import org.llmnpu.reports.energy.EnergyTable;
import org.llmnpu.reports.energy.NpuDataPathActivity;
import org.llmnpu.reports.npu.NpuReport;
import org.llmnpu.reports.npu.SocSection;
import org.llmnpu.reports.npu.UnitAreaSplit;
import org.llmnpu.reports.ppa.InstanceDesigns;
import org.llmnpu.reports.ppa.NodeScaling;
import org.llmnpu.reports.ppa.PpaFlow;
import org.llmnpu.reports.ppa.PpaOptions;
import org.llmnpu.reports.ppa.PpaResult;
import org.llmnpu.rtl.npu.Npu;
import org.llmnpu.rtl.npu.NpuConfig;
import org.llmnpu.soc.SocReportSection;
import org.llmnpu.sw.lower.DecoderGemms;
import org.llmnpu.sw.lower.GemmProgram;
import org.llmnpu.sw.model.ModelConfig;
import org.llmnpu.verilator.SimOptions;

/**
 * The whole-NPU report, gathered: PPA of the NPU top and of every unit it instantiates, each synthesized on its
 * own (Yosys + OpenSTA, cached), the area split into those units and the top's glue ({@link UnitAreaSplit}, which
 * fails the report when the units add up to more than the top beyond its tolerance), co-simulation of random
 * programs and of the decoder's phases on the RTL against the golden ISA simulator, energy from the phases' counters times the energy
 * table ({@link NpuEnergyCalibration}: read from a file or calibrated and cached), the roofline, the seed trends
 * and the SoC section ({@link SocReportSection}: the soc model, seconds). It lives in {@code cosim} because it
 * needs both the co-simulation and the PPA flow of {@code reports} (which does not depend on {@code cosim});
 * {@code reports} renders the result.
 */
public final class NpuReportPipeline {
  /**
   * What to gather.
   *
   * @param config         the NPU
   * @param ppa            PPA options (clock, cache)
   * @param promptTokens   prefill length of the decoder phases
   * @param randomPrograms random DMA/GEMM programs co-simulated for the cycle-model validation
   * @param energyTable    a table written by {@code npu report energy}, or null to calibrate the
   *                       GEMM engine at the NPU's array size
   * @param seed           seed of programs, data and calibration
   */
  public record Options(NpuConfig config, PpaOptions ppa, int promptTokens, int randomPrograms,
                        Path energyTable, long seed) {
  }

  /** The report and what the phases did (the demo prints them). */
  public record Result(NpuReport report, List<DecoderPhases.PhaseRun> phases, boolean allPassed) {
  }

  private final Options o;
  private final Consumer<String> log;
  private final SimOptions sim = SimOptions.fromEnvironment();
  private long t0;

  public NpuReportPipeline(Options options, Consumer<String> log) {
    this.o = options;
    this.log = log;
  }

  private void step(String what) {
    log.accept(String.format(Locale.ROOT, "[%6.1f s] %s", (System.nanoTime() - t0) / 1e9, what));
  }

  /** The NPU's generator parameters, as {@code npu generate npu -p} takes them. */
  public static Map<String, String> generatorParams(NpuConfig c) {
    return org.llmnpu.rtl.npu.NpuParameter.valuesOf(c, true);
  }

  /** The co-simulated programs and decoder phases, and whether all were bit-exact with the model's cycles. */
  public record Cosim(List<NpuReport.CyclePoint> points, List<DecoderPhases.PhaseRun> phases, boolean passed) {
    public Cosim {
      points = List.copyOf(points);
      phases = List.copyOf(phases);
    }
  }

  /** Gathers the report one step after another ({@code npu report npu}); {@code flow} runs the same steps as jobs. */
  public Result run() {
    t0 = System.nanoTime();
    NpuConfig c = o.config();
    step("PPA of the NPU top (Yosys + OpenSTA, cached)");
    Npu top = new Npu(c);
    VerilogDesign emitted = Verilog.emit(top);
    PpaResult npu = topPpa(c, emitted, o.ppa(), log);
    step("PPA of each unit the NPU top instantiates: its share of the top's synthesis, or its own (cached)");
    List<NpuReport.Unit> units = NpuUnits.units(top, emitted, npu, o.ppa(), log);
    step("co-simulation on the RTL (Verilator) against the golden ISA simulator");
    Cosim cosim = cosim();
    step("energy: counters x energy table");
    NpuEnergyCalibration.Table energyTable = energyTable(top, emitted);
    return assemble(emitted, npu, units, cosim, energyTable);
  }

  /** The NPU top's PPA through the PPA flow (Yosys + OpenSTA, cached), with a line of its figures. */
  public static PpaResult topPpa(NpuConfig c, VerilogDesign emitted, PpaOptions ppa, Consumer<String> log) {
    PpaResult npu = PpaFlow.run(emitted, generatorParams(c), ppa);
    log.accept(String.format(Locale.ROOT, "         %s: %.3f mm² std cells, %.3f mm² SRAM, Fmax %.1f MHz",
        npu.design(), npu.synthesis().chipAreaUm2() / 1e6, npu.sramAreaUm2(NodeScaling.Node.N180) / 1e6,
        npu.timing().fmaxMhz()));
    return npu;
  }

  /**
   * Random DMA/GEMM programs and the decoder's phases on the NPU's RTL (Verilator) against the golden model. When the
   * energy table is calibrated, the model is the calibration's own build of the NPU (built for waves, run here with
   * none: {@link SimOptions.Waves#VCD_OFF}), so the report compiles the NPU once, not twice.
   */
  public Cosim cosim() {
    NpuConfig c = o.config();
    MachineParams mp = c.machine();
    List<NpuReport.CyclePoint> points = new ArrayList<>();
    List<DecoderPhases.PhaseRun> phases;
    boolean pass = true;
    try (NpuRtl rtl = NpuRtl.start(c, cosimSim())) {
      for (int i = 0; i < o.randomPrograms(); i++) {
        RandomPrograms.Case rc = RandomPrograms.generate(mp, new Random(o.seed() * 1000 + i), 3, i % 2 == 1);
        ProgramCosim.Outcome out = ProgramCosim.run(rtl, rc.image(), rc.programAddress());
        pass &= passes(out);
        points.add(point("random " + (i + 1) + (i % 2 == 1 ? " (overlapped)" : " (in order)"), "random DMA/GEMM", out));
        log.accept(String.format(Locale.ROOT, "  random program %d: %d commands, %s, RTL %,d cycles, model %,d", i + 1,
            rc.program().size(), passes(out) ? "bit-exact, cycles equal" : "FAILS", out.rtlCycles(), out.modelCycles()));
      }
      phases = DecoderPhases.run(rtl, "stories260K", ModelConfig.stories260K(), o.promptTokens(), o.seed(), log);
    }
    for (DecoderPhases.PhaseRun p : phases) {
      pass &= p.bitExact() && p.rtlCycles() == p.modelCycles();
      points.add(new NpuReport.CyclePoint(p.phase() + (p.proxy() ? " (GEMM proxy)" : " (lowered decoder)"),
          "decoder phase", p.modelCycles(), p.rtlCycles(), p.bitExact(), p.differing()));
    }
    return new Cosim(points, phases, pass);
  }

  /** The co-simulation's model: the calibration's waves build (no wave file) when the table is calibrated. */
  SimOptions cosimSim() {
    return o.energyTable() == null && sim.waves() == SimOptions.Waves.NONE ? sim.withWaves(SimOptions.Waves.VCD_OFF)
        : sim;
  }

  /**
   * The energy table: read from the options' file, or calibrated on the NPU's engine size and data paths (cached;
   * {@link NpuEnergyCalibration}). It needs no synthesis of the top: only when the calibration falls back to a smaller
   * engine is the NPU's GEMM engine ({@link #isEngine}) synthesized on its own, for its flip-flops.
   */
  public NpuEnergyCalibration.Table energyTable(Npu top, VerilogDesign emitted) {
    return energyTable(top, emitted, null, Map.of());
  }

  /**
   * {@link #energyTable(Npu, VerilogDesign)} on the NPU data paths' simulations made ahead ({@link #npuActivity}) and
   * the blocks' calibrations made ahead ({@link #energyBlock}; those missing are calibrated here).
   */
  public NpuEnergyCalibration.Table energyTable(Npu top, VerilogDesign emitted, NpuDataPathActivity activity,
                                                Map<NpuEnergyCalibration.Block, Calibration> blocks) {
    NpuConfig c = o.config();
    InstanceDesigns.Unit engine = engineUnit(top, emitted);
    return calibration().table(o.energyTable(), c, engine.module(),
        () -> PpaFlow.run(engine.design(), Map.of(), o.ppa()), pimBitsPerCycle(c), activity, blocks);
  }

  /**
   * One block's energy-calibration runs (GEMM engine dense or 2:4, DSP, PPM, PiM) ahead of {@link #energyTable}
   * ({@link NpuEnergyCalibration#prepare}); nothing when the table is given or cached.
   *
   * @return the block's calibration when its runs were made
   */
  public Optional<Calibration> energyBlock(Npu top, VerilogDesign emitted, NpuEnergyCalibration.Block block) {
    NpuConfig c = o.config();
    return calibration().prepare(o.energyTable(), c, engineUnit(top, emitted).module(), pimBitsPerCycle(c), block);
  }

  /**
   * The NPU data paths' simulations ahead of {@link #energyTable} ({@link NpuEnergyCalibration#npuActivity}): no
   * synthesis needed; empty when the table is given or cached.
   */
  public Optional<NpuDataPathActivity> npuActivity(Npu top, VerilogDesign emitted) {
    NpuConfig c = o.config();
    return calibration().npuActivity(o.energyTable(), c, engineUnit(top, emitted).module(), pimBitsPerCycle(c));
  }

  /** One whole-NPU power run of the data-path calibration ({@link NpuEnergyCalibration#npuPower}). */
  public void npuPower(NpuDataPathActivity activity, int index) {
    calibration().npuPower(activity, index);
  }

  private NpuEnergyCalibration calibration() {
    return new NpuEnergyCalibration(o.ppa(), sim, o.seed(), log);
  }

  private static InstanceDesigns.Unit engineUnit(Npu top, VerilogDesign emitted) {
    return InstanceDesigns.of(top, emitted).stream().filter(u -> NpuUnits.isEngine(top, u.instances())).findFirst()
        .orElseThrow(() -> new IllegalStateException("the NPU top has no GEMM engine among its units"));
  }

  private static int pimBitsPerCycle(NpuConfig c) {
    return c.engineTiming().pim() ? c.engineTiming().bitsPerCycle() : 0;
  }

  /**
   * The report from the gathered parts: the area split, the phases' energy per token at every node, the roofline,
   * the seed trends and the SoC section.
   */
  public Result assemble(VerilogDesign emitted, PpaResult npu, List<NpuReport.Unit> units, Cosim cosim,
                         NpuEnergyCalibration.Table energyTable) {
    return assemble(emitted, npu, units, cosim, energyTable, null, null);
  }

  /**
   * The seed trends that need neither the energy table nor the co-simulation (the cycle model's and the recorded
   * benchmarks', all but the sparsity row) and the seed-004 figures: a job graph makes them while the NPU is
   * synthesized and its energy calibrated.
   */
  public record ModelTrends(List<NpuReport.Trend> rows, List<NpuReport.Figure> figures) {
    public ModelTrends {
      rows = List.copyOf(rows);
      figures = List.copyOf(figures);
    }
  }

  /** {@link ModelTrends} of this report's NPU, model and prompt. */
  public ModelTrends modelTrends() {
    BenchResults bench = BenchResults.locate();
    return new ModelTrends(SeedTrends.modelRows(o.config().machine(), ModelConfig.stories260K(), o.promptTokens(),
        this::golden, o.config().engineTiming(), bench), new DllmTrends(bench).figures());
  }

  /**
   * {@link #assemble(VerilogDesign, PpaResult, List, Cosim, NpuEnergyCalibration.Table)} with the seed trends of the
   * models and the SoC section made ahead (null: made here).
   */
  public Result assemble(VerilogDesign emitted, PpaResult npu, List<NpuReport.Unit> units, Cosim cosim,
                         NpuEnergyCalibration.Table energyTable, ModelTrends modelTrends, SocSection socSection) {
    if (t0 == 0) {
      t0 = System.nanoTime();
    }
    NpuConfig c = o.config();
    MachineParams mp = c.machine();
    ModelConfig model = ModelConfig.stories260K();
    List<String> notes = new ArrayList<>();
    Map<String, String> cfg = new LinkedHashMap<>(generatorParams(c));
    cfg.put("memLatency (simulation)", c.memLatency() + " cycles");
    cfg.put("memBytesPerCycle (simulation)", c.memBytesPerCycle() + " B/cycle");
    cfg.put("model", "stories260K (dim " + model.dim() + ", hidden " + model.hiddenDim() + ", " + model.layers()
        + " layers, " + model.heads() + " heads / " + model.kvHeads() + " KV heads, vocab " + model.vocabSize() + ")");
    cfg.put("prompt tokens", "" + o.promptTokens());
    UnitAreaSplit areaSplit = UnitAreaSplit.of(npu, units);
    List<NpuReport.AreaSlice> split = areaSplit.slices();
    notes.add(areaSplit.note());
    log.accept("         " + areaSplit.note());
    List<NpuReport.CyclePoint> points = cosim.points();
    List<DecoderPhases.PhaseRun> phases = cosim.phases();
    boolean pass = cosim.passed();
    String counterNote = counterNote(points);
    if (counterNote != null) {
      notes.add(counterNote);
      log.accept("  note: " + counterNote);
    }

    EnergyTable table = energyTable.table();
    String tableSource = energyTable.source();
    double runClockNs = Math.max(o.ppa().clockNs(), npu.timing().criticalDelayNs());
    // idle: every flip-flop of the NPU top (its synthesis) on every cycle; a table without the per-flip-flop
    // figure (written before it existed) gives the GEMM engine's idle alone, and the page says so
    boolean wholeIdle = table.entries().containsKey(EnergyAction.IDLE_FLIP_FLOP);
    EnergyEstimate.Shape shape = NpuEnergyShape.shape(c, emitted, npu, table, runClockNs, notes);
    if (!wholeIdle) {
      notes.add("The energy table has no IDLE_FLIP_FLOP entry: idle is charged for the GEMM engine alone (MAC_IDLE), "
          + "a lower bound of the NPU's idle energy; recalibrate the table (npu report energy) to charge every "
          + "flip-flop of the NPU.");
    }
    List<NpuReport.PhaseEnergy> energies = new ArrayList<>();
    for (DecoderPhases.PhaseRun p : phases) {
      Map<NodeScaling.Node, EnergyEstimate> est = new EnumMap<>(NodeScaling.Node.class);
      for (NodeScaling.Node n : NodeScaling.Node.values()) {
        est.put(n, EnergyEstimate.of(table, n, p.counters(), shape));
      }
      NpuReport.PhaseEnergy pe = new NpuReport.PhaseEnergy(p.phase(), p.tokens(), p.source(), p.proxy(), p.counters(),
          est);
      energies.add(pe);
      EnergyEstimate e180 = est.get(NodeScaling.Node.N180);
      log.accept(String.format(Locale.ROOT, "  %-7s %.4g uJ/token at 180 nm, %.4g nJ/token at 7 nm, %.3g TOPS/W (180 nm), "
          + "clock+leakage %.1f %%", p.phase(), pe.energyPerTokenJ(NodeScaling.Node.N180) * 1e6,
          pe.energyPerTokenJ(NodeScaling.Node.N7) * 1e9, e180.topsPerWatt(),
          100 * e180.byUnitPj().getOrDefault(EnergyEstimate.IDLE_UNIT, 0.0) / e180.totalPj()));
    }
    if (phases.stream().anyMatch(DecoderPhases.PhaseRun::proxy)) {
      notes.add("Energy per token is a GEMM-only proxy: the decoder's GEMMs with their DMA ran on the RTL; norms, "
          + "SoftMax, RoPE and activations (Vector DSP, PPM) are not counted until the decoder is lowered to NPU "
          + "programs (DecoderPhases.run is where its counters plug in).");
    }
    notes.add(String.format(Locale.ROOT, "Energy: idle (clock, leakage) charged for the NPU top's %,d flip-flops on "
        + "every cycle their clock runs (IDLE_FLIP_FLOP, when the table has it), at a %s ns cycle (the NPU's critical path or the constraint, whichever is "
        + "longer); scratchpad accesses per %d-bit line of a %d-word bank from the SRAM model; external memory per "
        + "byte (%s).", npu.synthesis().flipFlops(), Fmt.num(runClockNs), 8 * mp.lineBytes(),
        mp.spadBytes() / mp.lineBytes() / mp.spadBanks(), EnergyTable.DRAM_SOURCE));

    step("roofline: the decoder's GEMMs one by one through the cycle model");
    List<NpuReport.RoofPoint> roof = new ArrayList<>();
    for (DecoderPhases.PhaseRun p : phases) {
      int tokens = p.tokens();
      int ctx = p.phase().equals("prefill") ? o.promptTokens() : o.promptTokens() + 1;
      for (DecoderGemms.Gemm g : DecoderGemms.distinct(DecoderGemms.phase(model, tokens, ctx))) {
        IsaSimulator.Result r = golden(mp, List.of(g), false);
        roof.add(new NpuReport.RoofPoint(p.phase() + " " + g.kind() + " " + g.m() + "x" + g.k() + "x" + g.n(),
            p.phase(), g.macs(), r.counter(Counter.DMA_LOAD_BYTES) + r.counter(Counter.DMA_STORE_BYTES),
            r.counter(Counter.CYCLES)));
      }
    }
    NpuReport.Roofline roofline = new NpuReport.Roofline(npu.timing().fmaxMhz(), c.rows() * c.rows(),
        Math.min(c.memBytesPerCycle(), mp.lineBytes()), roof);

    step("seed trends");
    ModelTrends models = modelTrends != null ? modelTrends : modelTrends();
    List<NpuReport.Trend> trends = new SeedTrends(mp, model, o.promptTokens(), table, shape, energies, this::golden,
        c.engineTiming(), BenchResults.locate()).withSparsity(models.rows());
    List<NpuReport.Figure> trendFigures = models.figures();
    step("the NPU inside a heterogeneous SoC (soc model: sd8gen3 stages, LLaMA-3-8B partition plan)");
    SocSection soc = socSection != null ? socSection : SocReportSection.build();
    NpuReport report = new NpuReport("NPU report: npu " + c.rows() + "x" + c.rows() + ", " + c.spadKiB()
        + " KiB scratchpad", cfg, o.ppa().clockNs(), npu, units, split, points, table, tableSource, energies, roofline,
        trends, notes, soc, trendFigures);
    step("gathered");
    return new Result(report, phases, pass);
  }

  IsaSimulator.Result golden(MachineParams mp, List<DecoderGemms.Gemm> gemms, boolean int4) {
    GemmProgram.Built b = GemmProgram.build(mp, gemms, int4, o.seed());
    IsaSimulator.Result r = IsaSimulator.run(mp, b.image(), 0);
    if (r.error() != org.llmnpu.isa.ErrorCause.NONE) {
      throw new IllegalStateException("the GEMM program halted with " + r.error() + " at command " + r.errorCommand()
          + ": a defect of GemmProgram");
    }
    return r;
  }

  private static NpuReport.CyclePoint point(String name, String kind, ProgramCosim.Outcome out) {
    return new NpuReport.CyclePoint(name, kind, out.modelCycles(), out.rtlCycles(), out.bitExact() && out.statusMatches(),
        out.counterMismatches().keySet().stream().map(Counter::key).toList());
  }

  /** Bit-exact memory, equal status and equal total cycles (counters are listed, see {@link #counterNote}). */
  static boolean passes(ProgramCosim.Outcome out) {
    return out.bitExact() && out.statusMatches() && out.rtlCycles() == out.modelCycles();
  }

  /** A note on counters that differ between the RTL and the golden model, or null. */
  static String counterNote(List<NpuReport.CyclePoint> points) {
    java.util.Set<String> differ = new java.util.TreeSet<>();
    points.forEach(p -> differ.addAll(p.differingCounters()));
    if (differ.isEmpty()) {
      return null;
    }
    boolean dspOnly = differ.stream().allMatch(k -> k.startsWith("dsp"));
    return "Counters that differ between the RTL and the golden model: " + String.join(", ", differ)
        + (dspOnly ? " (the npu top does not implement the Vector DSP counters yet; these programs use no DSP "
        + "command, so the golden values are 0)" : "") + ". Memory images, status and total cycles are compared "
        + "separately.";
  }

  /** Number formatting for messages. */
  static final class Fmt {
    private Fmt() {
    }

    static String num(double v) {
      return java.math.BigDecimal.valueOf(v).round(new java.math.MathContext(4)).stripTrailingZeros().toPlainString();
    }
  }
}
