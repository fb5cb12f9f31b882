package org.llmnpu.cosim.bench;

import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.llmnpu.cosim.NpuRtl;
import org.llmnpu.cosim.ProgramCosim;
import org.llmnpu.hdl.bench.BenchRecord;
import org.llmnpu.hdl.gen.BlockGenerator;
import org.llmnpu.hdl.gen.BlockRegistry;
import org.llmnpu.hdl.gen.Params;
import org.llmnpu.isa.Counter;
import org.llmnpu.isa.Program;
import org.llmnpu.reports.activity.SimulatedActivity;
import org.llmnpu.reports.energy.Calibration;
import org.llmnpu.reports.energy.EnergyEstimate;
import org.llmnpu.reports.energy.EnergyTable;
import org.llmnpu.reports.ppa.BlockDesigns;
import org.llmnpu.reports.ppa.NodeScaling;
import org.llmnpu.reports.ppa.PpaFlow;
import org.llmnpu.reports.ppa.PpaOptions;
import org.llmnpu.reports.ppa.PpaResult;
import org.llmnpu.rtl.npu.NpuConfig;
import org.llmnpu.verilator.SimOptions;

/**
 * Validation of the energy model (a benchmark, not a test; {@code mvn -q -pl cosim -am test -Dbench
 * -Dtest=EnergyValidationBenchmark -Dsurefire.failIfNoSpecifiedTests=false}): a GEMM program runs on
 * a small NPU (8×8 array, the size the table is calibrated on) in Verilator with waves; OpenSTA gives
 * the standard-cell power of the whole synthesized NPU with that run's switching activity; the energy
 * table (calibrated as the whole-NPU report does: the GEMM engine, a 2-lane Vector DSP, a 2-lane PPM) times
 * the run's counters, idle charged for the NPU's flip-flops on every cycle, predicts the same energy. Both
 * exclude the SRAM macros (OpenSTA has no power for them) and external memory.
 */
@ExtendWith(BenchRecord.class)
class EnergyValidationBenchmark {
  static final double CLOCK_NS = 10;

  /** The NPU configuration with these fields (the others at their defaults), through a JSON file. */
  static NpuConfig configOf(Map<String, String> fields) {
    try {
      java.nio.file.Path f = java.nio.file.Files.createTempFile("npu-config", ".json");
      StringBuilder json = new StringBuilder("{");
      fields.forEach((k, v) -> json.append(json.length() > 1 ? "," : "").append('"').append(k).append("\":").append(v));
      java.nio.file.Files.writeString(f, json.append('}'));
      NpuConfig c = NpuConfig.load(f);
      java.nio.file.Files.delete(f);
      return c;
    } catch (java.io.IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }

  @Test
  void tableTimesCountersAgainstWholeNpuPower() {
    Map<String, String> p = new LinkedHashMap<>();
    p.put("rows", "8");
    p.put("spadKiB", "16");
    p.put("spadBanks", "2");
    p.put("extMemMiB", "1");
    p.put("mTile", "16");
    p.put("maxM", "32");
    p.put("maxK", "64");
    p.put("maxN", "32");
    // a small Vector DSP: the program does not use it, and the 16-lane default makes the Verilator
    // build and the synthesis of the whole NPU several times longer
    p.put("dspLanes", "2");
    p.put("dspRows", "64");
    p.put("dspProgramDepth", "64");
    BlockGenerator gen = BlockRegistry.find("npu");
    Map<String, String> params = Params.resolve(gen, p).asMap();
    NpuConfig config = configOf(p);
    byte[] image = new byte[(int) config.machine().extMemBytes()];
    new Random(3).nextBytes(image);
    Program.Builder b = Program.builder();
    for (int t = 0; t < 6; t++) {
      b.load(0x10000 + t * 0x1000L, 64, 0, 64, 64, 32);
      b.load(0x20000 + t * 0x1000L, 32, 0x800, 32, 32, 64);
      b.gemm(32, 64, 32, 0, 64, 0x800, 32, 0x1000, 128);
      b.store(0x40000 + t * 0x1000L, 128, 0x1000, 128, 128, 32);
    }
    byte[] code = b.halt().build().bytes();
    System.arraycopy(code, 0, image, 0, code.length);

    PpaOptions ppa = PpaOptions.defaults().withClockNs(CLOCK_NS);
    // the calibration of the whole-NPU report (NpuEnergyCalibration): the 8x8 engine, a 2-lane DSP of the NPU's
    // stages, a 2-lane PPM, then the NPU's own data paths (DMA, scratchpad port, commands) on this NPU's own programs
    EnergyTable table = new Calibration(ppa, SimOptions.fromEnvironment(), System.out::println)
        .gemm(8, 8, 32, 32, 16, 1).dsp(2, 64, config.dspStages(), 1).ppm(2, 1).npu(config, config.rows() / 2, 1)
        .table();
    System.out.print(table.text());
    SimOptions sim = SimOptions.fromEnvironment().withWaves(SimOptions.Waves.VCD);
    ProgramCosim.Outcome o;
    SimulatedActivity activity;
    try (NpuRtl rtl = NpuRtl.start(config, sim)) {
      o = ProgramCosim.run(rtl, image, 0);
      activity = SimulatedActivity.read(rtl.waveFile(), PpaOptions.defaults().clockPort());
    }
    if (!o.bitExact() || o.rtl().error() != o.golden().error()) {
      throw new AssertionError("the program does not agree with the golden on the RTL: bit-exact " + o.bitExact()
          + " (first difference " + o.firstDifference() + "), status " + o.rtl().error() + " vs " + o.golden().error()
          + ", counters differing " + o.counterMismatches().keySet());
    }
    PpaResult simulated = PpaFlow.run(BlockDesigns.of(gen).design(params), params, ppa, activity);
    PpaResult assumed = PpaFlow.run(BlockDesigns.of(gen).design(params), params, ppa);
    // When OpenSTA cannot propagate the per-net activity, the run's mean toggle rate of every bit is the
    // next best activity-derived figure: it is set on every net.
    double mean = activity.meanActivity(activity.bits().keySet());
    PpaResult meanRun = PpaFlow.run(BlockDesigns.of(gen).design(params), params,
        ppa.withActivity(mean, Map.of()), null);
    PpaResult idle = PpaFlow.run(BlockDesigns.of(gen).design(params), params, ppa.withActivity(0, Map.of()), null);
    long cycles = o.rtlCycles();
    double opensta = simulated.power().totalMw() * CLOCK_NS * activity.cycles();

    Map<String, Long> counters = new LinkedHashMap<>();
    Map<Counter, Long> rtlCounters = new EnumMap<>(o.rtl().counters());
    rtlCounters.forEach((c, v) -> counters.put(c.key(), v));
    counters.put("cycles", activity.cycles());
    int flipFlops = simulated.synthesis().flipFlops();
    EnergyEstimate.Shape shape = new EnergyEstimate.Shape(64, 1024, false, CLOCK_NS, config.dspLanes())
        .withFlipFlops(flipFlops).withPpu(config.ppu()).withPpmInputLanes(config.rows() / 2);
    EnergyEstimate e = EnergyEstimate.of(table, NodeScaling.Node.N180, counters, shape);
    EnergyEstimate engineIdle = EnergyEstimate.of(table, NodeScaling.Node.N180, counters, shape.withFlipFlops(0)
        .withPpmInputLanes(0));
    EnergyEstimate isolated = EnergyEstimate.of(table, NodeScaling.Node.N180, counters, shape.withPpmInputLanes(0));
    java.util.Map<org.llmnpu.reports.energy.EnergyAction, EnergyTable.Entry> blocks = new EnumMap<>(table.entries());
    blocks.keySet().removeIf(a -> a.name().startsWith("NPU_"));
    EnergyEstimate blocksOnly = EnergyEstimate.of(new EnergyTable(blocks), NodeScaling.Node.N180, counters, shape);
    System.out.println("IDLE_FLIP_FLOP: " + table.entries().get(org.llmnpu.reports.energy.EnergyAction.IDLE_FLIP_FLOP)
        .basis());
    // standard cells only: OpenSTA has no power for the SRAM macros or the external memory
    java.util.function.ToDoubleFunction<EnergyEstimate> cells = x -> x.totalPj()
        - x.byUnitPj().getOrDefault("scratchpad SRAM", 0.0) - x.byUnitPj().getOrDefault("external memory", 0.0);
    double model = cells.applyAsDouble(e);
    System.out.printf(Locale.ROOT, "program: %d cycles (RTL = model: %s), %d dumped cycles, %d MACs%n", cycles,
        o.rtlCycles() == o.modelCycles(), activity.cycles(), o.rtl().counters().get(Counter.MACS));
    System.out.printf(Locale.ROOT, "OpenSTA, whole NPU, simulated activity: %.2f mW (%s) -> %.1f nJ%n",
        simulated.power().totalMw(), simulated.power().activityModel(), opensta / 1000);
    System.out.printf(Locale.ROOT, "OpenSTA, whole NPU, default activity %.2f: %.2f mW%n", assumed.power().activity(),
        assumed.power().totalMw());
    System.out.printf(Locale.ROOT, "OpenSTA, whole NPU, the run's mean toggle rate %.4f on every net: %.2f mW (%s) -> %.1f nJ%n",
        mean, meanRun.power().totalMw(), meanRun.power().activityModel(),
        meanRun.power().totalMw() * CLOCK_NS * activity.cycles() / 1000);
    double npuIdlePj = idle.power().totalMw() * CLOCK_NS;
    double perFf = table.pj(org.llmnpu.reports.energy.EnergyAction.IDLE_FLIP_FLOP, NodeScaling.Node.N180);
    System.out.printf(Locale.ROOT, "NPU idle measured (activity 0): %.2f mW = %.0f pJ/cycle; per flip-flop from the "
        + "table: %d flip-flops x %.4f pJ = %.0f pJ/cycle (%+.1f %%)%n", idle.power().totalMw(), npuIdlePj, flipFlops,
        perFf, flipFlops * perFf, 100 * (flipFlops * perFf - npuIdlePj) / npuIdlePj);
    System.out.printf(Locale.ROOT, "table x counters, standard cells (whole-NPU idle per flip-flop): %.1f nJ %s%n",
        model / 1000, e.byUnitPj());
    System.out.printf(Locale.ROOT, "error of the table: %+.1f %% against the run's activity, %+.1f %% against its mean; "
        + "with the GEMM engine's idle alone (MAC_IDLE) it was %+.1f %%%n", 100 * (model - opensta) / opensta,
        100 * (model - meanRun.power().totalMw() * CLOCK_NS * activity.cycles())
            / (meanRun.power().totalMw() * CLOCK_NS * activity.cycles()),
        100 * (cells.applyAsDouble(engineIdle) - opensta) / opensta);
    System.out.printf(Locale.ROOT, "without the NPU's data paths (NPU_COMMAND, NPU_DMA_BYTE, NPU_SPAD_BYTE): %.1f nJ, "
        + "%+.1f %%%n", cells.applyAsDouble(blocksOnly) / 1000,
        100 * (cells.applyAsDouble(blocksOnly) - opensta) / opensta);
    for (String a : new String[] {"NPU_COMMAND", "NPU_DMA_BYTE", "NPU_SPAD_BYTE"}) {
      var entry = table.entries().get(org.llmnpu.reports.energy.EnergyAction.valueOf(a));
      System.out.println(a + ": " + (entry == null ? "not measured: " + table.notMeasured().get(
          org.llmnpu.reports.energy.EnergyAction.valueOf(a)) : entry.pj180() + " pJ; " + entry.basis()));
    }
    System.out.printf(Locale.ROOT, "without the PPM lanes on the read port (whole-NPU idle, MAC, psum): %.1f nJ, "
        + "%+.1f %%%n", cells.applyAsDouble(isolated) / 1000, 100 * (cells.applyAsDouble(isolated) - opensta) / opensta);
  }
}
