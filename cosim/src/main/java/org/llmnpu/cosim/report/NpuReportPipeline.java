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
import org.llmnpu.reports.energy.EnergyAction;
import org.llmnpu.reports.energy.EnergyEstimate;
import org.llmnpu.reports.energy.EnergyTable;
import org.llmnpu.reports.energy.NpuDataPathActivity;
import org.llmnpu.reports.npu.NpuReport;
import org.llmnpu.reports.npu.SocSection;
import org.llmnpu.reports.npu.UnitAreaSplit;
import org.llmnpu.reports.ppa.InstanceDesigns;
import org.llmnpu.reports.ppa.ModuleAreas;
import org.llmnpu.reports.ppa.NodeScaling;
import org.llmnpu.reports.ppa.PpaFlow;
import org.llmnpu.reports.ppa.PpaOptions;
import org.llmnpu.reports.ppa.PpaResult;
import org.llmnpu.reports.ppa.SynthesisResult;
import org.llmnpu.rtl.mac.GemmBackend;
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
    List<NpuReport.Unit> units = units(top, emitted, npu, o.ppa(), log);
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
    return energyTable(top, emitted, null);
  }

  /** {@link #energyTable(Npu, VerilogDesign)} on the NPU data paths' simulations made ahead ({@link #npuActivity}). */
  public NpuEnergyCalibration.Table energyTable(Npu top, VerilogDesign emitted, NpuDataPathActivity activity) {
    NpuConfig c = o.config();
    InstanceDesigns.Unit engine = engineUnit(top, emitted);
    return calibration().table(o.energyTable(), c, engine.module(),
        () -> PpaFlow.run(engine.design(), Map.of(), o.ppa()), pimBitsPerCycle(c), activity);
  }

  /**
   * One block's energy-calibration runs (GEMM engine dense or 2:4, DSP, PPM, PiM) ahead of {@link #energyTable}
   * ({@link NpuEnergyCalibration#prepare}); nothing when the table is given or cached.
   *
   * @return true when runs were made
   */
  public boolean energyBlock(Npu top, VerilogDesign emitted, NpuEnergyCalibration.Block block) {
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
    return InstanceDesigns.of(top, emitted).stream().filter(u -> isEngine(top, u.instances())).findFirst()
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
    EnergyEstimate.Shape shape = shape(c, emitted, npu, table, runClockNs, notes);
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
    BenchResults bench = BenchResults.locate();
    List<NpuReport.Trend> trends = new SeedTrends(mp, model, o.promptTokens(), table, shape, energies, this::golden,
        c.engineTiming(), bench).rows();
    List<NpuReport.Figure> trendFigures = new DllmTrends(bench).figures();
    step("the NPU inside a heterogeneous SoC (soc model: sd8gen3 stages, LLaMA-3-8B partition plan)");
    SocSection soc = SocReportSection.build();
    NpuReport report = new NpuReport("NPU report: npu " + c.rows() + "x" + c.rows() + ", " + c.spadKiB()
        + " KiB scratchpad", cfg, o.ppa().clockNs(), npu, units, split, points, table, tableSource, energies, roofline,
        trends, notes, soc, trendFigures);
    step("gathered");
    return new Result(report, phases, pass);
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
            + u.module() + " (" + u.instances() + "): was it flattened? (NpuReportPipeline.topKeeps)"));
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

  /** Number formatting for messages. */
  static final class Fmt {
    private Fmt() {
    }

    static String num(double v) {
      return java.math.BigDecimal.valueOf(v).round(new java.math.MathContext(4)).stripTrailingZeros().toPlainString();
    }
  }
}
