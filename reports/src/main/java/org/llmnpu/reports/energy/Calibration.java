package org.llmnpu.reports.energy;

import java.nio.file.Path;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Random;
import java.util.function.Consumer;
import org.llmnpu.hdl.emit.Verilog;
import org.llmnpu.hdl.emit.VerilogDesign;
import org.llmnpu.hdl.sim.Simulator;
import org.llmnpu.numerics.sparse.NmCompressedMatrix;
import org.llmnpu.numerics.sparse.NmPattern;
import org.llmnpu.reports.activity.SimulatedActivity;
import org.llmnpu.reports.ppa.NodeScaling;
import org.llmnpu.reports.ppa.PpaFlow;
import org.llmnpu.reports.ppa.PpaOptions;
import org.llmnpu.reports.ppa.PpaResult;
import org.llmnpu.isa.dsp.DspAssembler;
import org.llmnpu.isa.dsp.DspMath;
import org.llmnpu.isa.dsp.DspOp;
import org.llmnpu.isa.dsp.DspProgram;
import org.llmnpu.rtl.dsp.VectorDsp;
import org.llmnpu.rtl.dsp.VectorDspDriver;
import org.llmnpu.rtl.mac.GemmEngine;
import org.llmnpu.rtl.mac.GemmEngineConfig;
import org.llmnpu.rtl.mac.GemmEngineDriver;
import org.llmnpu.rtl.mac.MacArrayConfig;
import org.llmnpu.rtl.mac.WeightSparsity;
import org.llmnpu.rtl.ppm.Ppm;
import org.llmnpu.rtl.ppm.PpmConfig;
import org.llmnpu.pim.PimMacro;
import org.llmnpu.pim.PimMacroConfig;
import org.llmnpu.pim.PimPrecision;
import org.llmnpu.verilator.SimOptions;
import org.llmnpu.verilator.Simulators;

/**
 * Calibrates the energy table from the blocks' own workloads: each workload runs in Verilator
 * with its waves dumped over the compute only ({@link ComputeWindow}), its switching activity
 * goes onto the synthesized netlist ({@link SimulatedActivity}, OpenSTA), and
 *
 * <pre>
 *   E(action) = (P_run · T · cycles − P_idle · T · cycles) / actions
 * </pre>
 *
 * where P_idle is the power of the same design clocked with nothing to do (its own run) and T
 * the clock period: the energy above idle that the actions cost, per action. The idle power
 * itself is charged per cycle ({@code MAC_IDLE}, {@code DSP_IDLE}) and, pooled over every idle
 * run, per flip-flop ({@code IDLE_FLIP_FLOP}: the blocks' idle energy per cycle summed over their
 * flip-flops summed; a whole NPU is charged its flip-flops). Standard cells only: the memories are
 * SRAM macros outside synthesis and are charged per access from the SRAM model.
 *
 * <p>Workloads: the GEMM engine on random INT8 X and W, dense and 2:4 (two random survivors per
 * group of four); the Vector DSP on four loops over fresh random FP16 rows — loads and stores
 * (4 memory ops per iteration), FP16 arithmetic (2 loads + 4 ops), conversion (2 loads + 4),
 * FP32 (2 loads + 2 conversions + 4 ops) — each class solved after the ones it contains; the
 * PPM without and with the PPU on rows of random INT32 accumulators ({@link #ppm}); the PiM
 * macro on a random INT8 GEMM ({@link #pim}).
 */
public final class Calibration {
  /** Cycles of the idle runs. */
  static final int IDLE_CYCLES = 200;

  private final PpaOptions ppa;
  private final SimOptions sim;
  private final Consumer<String> log;
  private final Map<EnergyAction, EnergyTable.Entry> entries = new EnumMap<>(EnergyAction.class);
  private final Map<String, Double> powers = new LinkedHashMap<>();
  private final Map<EnergyAction, String> notMeasured = new EnumMap<>(EnergyAction.class);
  /** The idle runs by design: energy per cycle (pJ) and flip-flops, for {@link EnergyAction#IDLE_FLIP_FLOP}. */
  private final Map<String, double[]> idleRuns = new LinkedHashMap<>();

  public Calibration(PpaOptions ppa, SimOptions sim, Consumer<String> log) {
    this.ppa = ppa;
    this.sim = sim.withWaves(SimOptions.Waves.VCD);
    this.log = log;
  }

  /** The table of what has been calibrated so far, with the external memory figure. */
  public EnergyTable table() {
    Map<EnergyAction, EnergyTable.Entry> m = new EnumMap<>(entries);
    m.put(EnergyAction.DRAM_BYTE, new EnergyTable.Entry(EnergyAction.DRAM_BYTE, EnergyTable.DRAM_PJ_PER_BYTE,
        EnergyTable.DRAM_SOURCE));
    double bit = EnergyTable.sramAccessPj(64, 8192, NodeScaling.Node.N180) / 64;
    String sram = "SRAM model per 64-bit word of a 64 KB macro at 180 nm, per bit; use "
        + "EnergyTable.sramAccessPj(width, depth, node) for a given geometry";
    m.put(EnergyAction.SRAM_READ_BIT, new EnergyTable.Entry(EnergyAction.SRAM_READ_BIT, bit, sram));
    m.put(EnergyAction.SRAM_WRITE_BIT, new EnergyTable.Entry(EnergyAction.SRAM_WRITE_BIT, bit, sram));
    if (!idleRuns.isEmpty()) {
      m.put(EnergyAction.IDLE_FLIP_FLOP, idlePerFlipFlop());
    }
    return new EnergyTable(m, notMeasured);
  }

  /**
   * Idle energy per flip-flop and cycle: the idle runs' energy per cycle summed over the blocks
   * measured, divided by their flip-flops summed (no clock gating, so a design that holds still
   * spends its clock pins' internal energy, the clock net's switching and leakage, all of which
   * scale with its flip-flops).
   */
  private EnergyTable.Entry idlePerFlipFlop() {
    double pj = 0;
    double ffs = 0;
    StringBuilder each = new StringBuilder();
    for (Map.Entry<String, double[]> e : idleRuns.entrySet()) {
      pj += e.getValue()[0];
      ffs += e.getValue()[1];
      each.append(each.length() == 0 ? "" : ", ").append(String.format(Locale.ROOT, "%s %.4g pJ/cycle / %.0f = %.4g",
          e.getKey(), e.getValue()[0], e.getValue()[1], e.getValue()[0] / e.getValue()[1]));
    }
    return new EnergyTable.Entry(EnergyAction.IDLE_FLIP_FLOP, pj / ffs, String.format(Locale.ROOT, "OpenSTA: the "
        + "idle runs (clocked with nothing to do) of the blocks calibrated, energy per cycle over flip-flops, pooled "
        + "(%s pJ per flip-flop) at %.3g ns", each, ppa.clockNs()));
  }

  /** Power (mW) of each calibration run, by name, in run order. */
  public Map<String, Double> powers() {
    return Map.copyOf(powers);
  }

  /** Calibrates MAC (dense), MAC_2_4, MAC_IDLE and PSUM_WRITEBACK on a rows×cols array. */
  public Calibration gemm(int rows, int cols, int m, int k, int n, long seed) {
    MacArrayConfig dense = new MacArrayConfig(rows, cols, 32, Math.max(2, Math.min(1024, m)), 0, WeightSparsity.NONE);
    MacArrayConfig sparse = new MacArrayConfig(rows, cols, 32, Math.max(2, Math.min(1024, m)), 0, WeightSparsity.S2_4);
    GemmEngineConfig dc = new GemmEngineConfig(dense, m, k, n);
    GemmEngineConfig sc = new GemmEngineConfig(sparse, m, k, n);
    Random rnd = new Random(seed);
    byte[][] x = random(rnd, m, k);
    byte[][] w = random(rnd, k, n);
    VerilogDesign dd = Verilog.emit(new GemmEngine(dc));
    Measured idle = idle(dd, "GEMM engine idle");
    long[] psum = new long[1];
    Measured busy = measure(dd, "GEMM dense " + m + "x" + k + "x" + n, s -> {
      psum[0] = new GemmEngineDriver(s, dc).runDense(x, w).psumWritebacks();
    });
    requireSimulated(idle, busy);
    double macs = (double) m * k * n;
    put(EnergyAction.MAC_IDLE, idle.energyPerCyclePj(), String.format(Locale.ROOT,
        "OpenSTA: %s, %d cycles clocked with nothing to do: %.3f mW at %.3g ns", dd.top(), idle.cycles, idle.mw,
        ppa.clockNs()));
    put(EnergyAction.MAC, aboveIdle(busy, idle) / macs, basis(busy, idle, macs, "MACs", dd.top()));
    // 2:4: prune W to two random survivors per group of four along K and run the compressed engine
    byte[][] wt = new byte[n][(k + 3) / 4 * 4];
    for (int c = 0; c < n; c++) {
      for (int g = 0; g * 4 < k; g++) {
        int a = rnd.nextInt(4);
        int b = (a + 1 + rnd.nextInt(3)) % 4;
        for (int j = 0; j < 4 && g * 4 + j < k; j++) {
          wt[c][g * 4 + j] = j == a || j == b ? w[g * 4 + j][c] : 0;
        }
      }
    }
    NmCompressedMatrix cm = NmCompressedMatrix.compress(wt, NmPattern.TWO_FOUR);
    int[][] idx = new int[n][];
    for (int c = 0; c < n; c++) {
      idx[c] = cm.rowIndices(c);
    }
    VerilogDesign sd = Verilog.emit(new GemmEngine(sc));
    Measured sidle = idle(sd, "GEMM engine 2:4 idle");
    Measured sbusy = measure(sd, "GEMM 2:4 " + m + "x" + k + "x" + n, s ->
        new GemmEngineDriver(s, sc).runSparse(x, k, n, cm.values(), idx));
    double executed = (double) m * ((k + 3) / 4 * 2) * n;
    if (sbusy.simulated() && sidle.simulated()) {
      put(EnergyAction.MAC_2_4, aboveIdle(sbusy, sidle) / executed, basis(sbusy, sidle, executed,
          "executed MACs (half the dense-equivalent)", sd.top()));
    } else if (rows > 2 || cols > 2) {
      // Debian's OpenSTA crashes on some 2:4 netlists; take the 2:4/dense ratio of a 2x2 array
      Calibration small = new Calibration(ppa, sim, line -> log.accept("  [2x2, for the 2:4/dense ratio]" + line))
          .gemm(2, 2, 4, 8, 4, seed);
      double ratio = small.entries.get(EnergyAction.MAC_2_4).pj180() / small.entries.get(EnergyAction.MAC).pj180();
      double densePj = entries.get(EnergyAction.MAC).pj180();
      put(EnergyAction.MAC_2_4, densePj * ratio, String.format(Locale.ROOT, "scaled: OpenSTA crashed on %s, so the "
          + "dense MAC of %s (%.4g pJ) times the 2:4/dense ratio %.3f measured on 2x2 arrays", sd.top(), dd.top(),
          densePj, ratio));
    } else {
      requireSimulated(sidle, sbusy);
    }
    double writeback = EnergyTable.sramAccessPj(dense.accWidth(), Math.max(2, m * ((n + cols - 1) / cols)),
        NodeScaling.Node.N180);
    put(EnergyAction.PSUM_WRITEBACK, writeback, String.format(Locale.ROOT, "SRAM model: one %d-bit write of the "
        + "psum memory of %s (%d write-backs in the dense run)", dense.accWidth(), dd.top(), psum[0]));
    return this;
  }

  /**
   * Calibrates the DSP instruction classes and DSP_IDLE on a {@code lanes}-lane DSP; if OpenSTA
   * cannot propagate the runs' activity on this DSP, the DSP actions are listed as not measured,
   * with the reason, instead of being filled with figures that are not from the runs.
   */
  public Calibration dsp(int lanes, int rows, long seed) {
    try {
      measureDsp(lanes, rows, seed);
    } catch (IllegalStateException e) {
      for (EnergyAction a : new EnergyAction[] {EnergyAction.DSP_IDLE, EnergyAction.DSP_MEMORY,
          EnergyAction.DSP_CONVERT, EnergyAction.DSP_FP16, EnergyAction.DSP_FP32}) {
        entries.remove(a);
        notMeasured.put(a, e.getMessage());
      }
      log.accept("  DSP actions not measured: " + e.getMessage());
    }
    return this;
  }

  private void measureDsp(int lanes, int rows, long seed) {
    VectorDsp.Config config = new VectorDsp.Config(lanes, rows, 64);
    VerilogDesign d = Verilog.emit(new VectorDsp(config));
    Measured idle = idle(d, "Vector DSP idle");
    requireSimulated(idle);
    put(EnergyAction.DSP_IDLE, idle.energyPerCyclePj(), String.format(Locale.ROOT,
        "OpenSTA: %s, %d cycles clocked with nothing to do: %.3f mW at %.3g ns", d.top(), idle.cycles, idle.mw,
        ppa.clockNs()));
    int iters = rows / 4;
    Random rnd = new Random(seed);
    double mem = dspClass(d, config, idle, "DSP loads/stores", rnd, iters, a -> {
      a.load(1, 0).load(2, iters).store(2 * iters, 1).store(3 * iters, 2);
    });
    double ops = (double) iters * lanes;
    double memPer = mem / (4 * ops);
    put(EnergyAction.DSP_MEMORY, memPer, dspBasis(d, "4 LD/ST per iteration", iters, lanes));
    double conv = dspClass(d, config, idle, "DSP conversions", rnd, iters, a -> {
      a.load(1, 0).load(2, iters).op(DspOp.WIDEN, 3, 1, 0).op(DspOp.WIDEN, 4, 2, 0)
          .op(DspOp.NARROW, 5, 3, 0).op(DspOp.NARROW, 6, 4, 0);
    });
    double convPer = (conv - 2 * ops * memPer) / (4 * ops);
    put(EnergyAction.DSP_CONVERT, convPer, dspBasis(d, "2 LD + 2 WIDEN + 2 NARROW per iteration, loads "
        + "subtracted", iters, lanes));
    double fp16 = dspClass(d, config, idle, "DSP FP16", rnd, iters, a -> {
      a.load(1, 0).load(2, iters).op(DspOp.ADD16, 3, 1, 2).op(DspOp.MUL16, 4, 1, 2)
          .op(DspOp.SUB16, 5, 1, 2).op(DspOp.MAX16, 6, 1, 2);
    });
    put(EnergyAction.DSP_FP16, (fp16 - 2 * ops * memPer) / (4 * ops), dspBasis(d, "2 LD + ADD16, MUL16, SUB16, "
        + "MAX16 per iteration, loads subtracted", iters, lanes));
    double fp32 = dspClass(d, config, idle, "DSP FP32", rnd, iters, a -> {
      a.load(1, 0).load(2, iters).op(DspOp.WIDEN, 3, 1, 0).op(DspOp.WIDEN, 4, 2, 0)
          .op(DspOp.ADD32, 5, 3, 4).op(DspOp.MUL32, 6, 3, 4).op(DspOp.SUB32, 7, 3, 4).op(DspOp.MUL32, 8, 4, 3);
    });
    put(EnergyAction.DSP_FP32, (fp32 - 2 * ops * memPer - 2 * ops * convPer) / (4 * ops), dspBasis(d,
        "2 LD + 2 WIDEN + ADD32, MUL32, SUB32, MUL32 per iteration, loads and conversions subtracted", iters, lanes));
  }

  /**
   * Calibrates {@code PPM_ELEMENT} on a {@code cols}-lane PPM without the PPU and {@code PPU_LOOKUP}
   * as the same workload's energy per element on the PPM with the PPU minus that (each above its own
   * idle): {@code rows} rows of random INT32 accumulators back to back through random channel
   * parameters, the PPU holding the GELU table. Listed as not measured, with the reason, if OpenSTA
   * cannot propagate the runs' activity.
   */
  public Calibration ppm(int cols, long seed) {
    int rows = 64;
    try {
      double[] perElement = new double[2];
      String[] runs = new String[2];
      for (int i = 0; i < 2; i++) {
        PpmConfig c = PpmConfig.of(cols, 8, i == 0 ? PpmConfig.Activation.NONE : PpmConfig.Activation.PPU);
        VerilogDesign d = Verilog.emit(new Ppm(c));
        Measured idle = idle(d, "PPM idle" + (c.hasPpu() ? " (PPU)" : ""));
        Random rnd = new Random(seed);
        long[] elements = new long[1];
        Measured run = window(d, "PPM " + rows + " rows" + (c.hasPpu() ? " (PPU)" : ""), s -> {
          BlockWorkloads.loadPpmChannels(s, c, rnd);
          if (c.hasPpu()) {
            BlockWorkloads.loadPpuTable(s, c);
          }
        }, s -> elements[0] = BlockWorkloads.streamPpm(s, c, rnd, rows));
        requireSimulated(idle, run);
        perElement[i] = aboveIdle(run, idle) / elements[0];
        runs[i] = basis(run, idle, elements[0], "elements", d.top());
      }
      put(EnergyAction.PPM_ELEMENT, perElement[0], runs[0] + "; random INT32 accumulators (+-2^20), random "
          + "channel parameters");
      put(EnergyAction.PPU_LOOKUP, perElement[1] - perElement[0], String.format(Locale.ROOT, "the same workload "
          + "with the PPU (GELU table) minus without: %.4g - %.4g pJ per element; %s", perElement[1], perElement[0],
          runs[1]));
    } catch (IllegalStateException e) {
      for (EnergyAction a : new EnergyAction[] {EnergyAction.PPM_ELEMENT, EnergyAction.PPU_LOOKUP}) {
        entries.remove(a);
        notMeasured.put(a, e.getMessage());
      }
      log.accept("  PPM actions not measured: " + e.getMessage());
    }
    return this;
  }

  /**
   * Calibrates {@code PIM_COLUMN} on a {@code rows × cols} INT8 PiM macro applying
   * {@code bitsPerCycle} input bits per cycle: a GEMM of random INT8 X (mTile × 2·rows) and W
   * (2·rows × cols), weight writes included, above idle, per row of a column operation
   * (vectors · cols · rows). Listed as not measured if OpenSTA cannot propagate the activity.
   */
  public Calibration pim(int rows, int cols, int bitsPerCycle, long seed) {
    PimMacroConfig c = new PimMacroConfig(rows, cols, PimPrecision.INT8, PimMacroConfig.Alignment.NONE, 8,
        bitsPerCycle, 0, 32, 16, PimMacroConfig.ALL_ROW_GROUPS);
    try {
      VerilogDesign d = Verilog.emit(new PimMacro(c));
      Measured idle = idle(d, "PiM macro idle");
      Random rnd = new Random(seed);
      long[] vectors = new long[1];
      int m = c.mTile();
      Measured run = window(d, "PiM GEMM " + m + "x" + 2 * rows + "x" + cols, s -> { },
          s -> vectors[0] = BlockWorkloads.pimGemm(s, c, rnd, m, 2 * rows, cols));
      requireSimulated(idle, run);
      double cellOps = (double) vectors[0] * cols * rows;
      put(EnergyAction.PIM_COLUMN, aboveIdle(run, idle) / cellOps, basis(run, idle, cellOps, String.format(Locale.ROOT,
          "rows of column operations (%d vectors x %d columns x %d rows; %d input bits per cycle, weight writes "
          + "included)", vectors[0], cols, rows, bitsPerCycle), d.top()));
    } catch (IllegalStateException e) {
      entries.remove(EnergyAction.PIM_COLUMN);
      notMeasured.put(EnergyAction.PIM_COLUMN, e.getMessage());
      log.accept("  PIM_COLUMN not measured: " + e.getMessage());
    }
    return this;
  }

  private String dspBasis(VerilogDesign d, String what, int iters, int lanes) {
    return String.format(Locale.ROOT, "OpenSTA with the activity of %s on random FP16 rows: %d iterations x %d lanes, "
        + "above idle, per lane-instruction", d.top(), iters, lanes) + "; " + what;
  }

  /** Energy above idle (pJ) of a loop of {@code iters} iterations of {@code body} on random buffer rows. */
  private double dspClass(VerilogDesign d, VectorDsp.Config config, Measured idle, String name, Random rnd,
      int iters, Consumer<DspAssembler> body) {
    DspAssembler a = new DspAssembler();
    a.emit(DspOp.SETLEN, 0, 0, 0, 0, false, 0, config.rows() * config.lanes());
    a.li(0, 0);
    a.loop(iters, () -> body.accept(a));
    a.emit(DspOp.HALT, 0, 0, 0, 0, false, 0, 0);
    DspProgram p = a.finish(name);
    Measured run = measure(d, name, s -> {
      VectorDspDriver drv = new VectorDspDriver(s, config, DspMath.DEFAULT);
      drv.loadProgram(p);
      for (int e = 0; e < 2 * iters * config.lanes(); e++) {
        drv.writeElement(e, randomFp16(rnd));
      }
      s.poke("buf_we", 0);
      drv.execute(p.size() + (long) iters * 8);
    });
    requireSimulated(run);
    return aboveIdle(run, idle);
  }

  /** A finite FP16 value of magnitude 2^-4..2^4 with random sign and mantissa. */
  private static short randomFp16(Random rnd) {
    int exp = 11 + rnd.nextInt(8);
    return (short) ((rnd.nextBoolean() ? 0x8000 : 0) | (exp << 10) | rnd.nextInt(1024));
  }

  private record Measured(String name, double mw, long cycles, double clockNs, boolean simulated, int flipFlops) {
    double energyPerCyclePj() {
      return mw * clockNs;
    }

    double energyPj() {
      return mw * clockNs * cycles;
    }
  }

  private static void requireSimulated(Measured... runs) {
    for (Measured r : runs) {
      if (!r.simulated()) {
        throw new IllegalStateException("OpenSTA crashed propagating the activity of '" + r.name() + "', so its power "
            + "is not from the run; the energy table cannot be calibrated on this design (try another size)");
      }
    }
  }

  private static double aboveIdle(Measured run, Measured idle) {
    return run.energyPj() - idle.energyPerCyclePj() * run.cycles;
  }

  private String basis(Measured busy, Measured idle, double actions, String what, String top) {
    return String.format(Locale.ROOT, "OpenSTA with the activity of %s: %.3f mW over %d compute cycles, idle "
        + "%.3f mW, %.0f %s, at %.3g ns", top, busy.mw, busy.cycles, idle.mw, actions, what, ppa.clockNs());
  }

  private void put(EnergyAction a, double pj, String basis) {
    entries.put(a, new EnergyTable.Entry(a, pj, basis));
    log.accept(String.format(Locale.ROOT, "  %-15s %10.4g pJ at 180 nm", a.name(), pj));
  }

  private Measured idle(VerilogDesign d, String name) {
    Path vcd;
    try (Simulator s = Simulators.start(d, sim)) {
      s.reset(2);
      s.waves(true);
      s.step(IDLE_CYCLES);
      s.waves(false);
      vcd = s.waveFile();
    }
    Measured m = power(d, name, vcd);
    if (m.simulated() && m.flipFlops() > 0) {
      idleRuns.put(d.top(), new double[] {m.energyPerCyclePj(), m.flipFlops()});
    }
    return m;
  }

  /**
   * A run whose waves cover only {@code work}: {@code setup} (loading registers or tables) runs
   * first with the dump off.
   */
  private Measured window(VerilogDesign d, String name, Consumer<Simulator> setup, Consumer<Simulator> work) {
    Path vcd;
    try (Simulator s = Simulators.start(d, sim)) {
      s.reset(2);
      s.waves(false);
      setup.accept(s);
      s.waves(true);
      work.accept(s);
      s.waves(false);
      vcd = s.waveFile();
    }
    return power(d, name, vcd);
  }

  private Measured measure(VerilogDesign d, String name, Consumer<Simulator> work) {
    Path vcd;
    try (Simulator s = Simulators.start(d, sim)) {
      s.reset(2);
      work.accept(new ComputeWindow(s));
      vcd = s.waveFile();
    }
    return power(d, name, vcd);
  }

  private Measured power(VerilogDesign d, String name, Path vcd) {
    SimulatedActivity act = SimulatedActivity.read(vcd, ppa.clockPort());
    PpaResult r = PpaFlow.run(d, Map.of(), ppa, act);
    powers.put(name, r.power().totalMw());
    log.accept(String.format(Locale.ROOT, "  run %-28s %8.3f mW over %d cycles (%s)", name, r.power().totalMw(),
        act.cycles(), d.top()));
    boolean simulated = r.power().activityModel().startsWith("simulated");
    if (!simulated) {
      log.accept("  (OpenSTA crashed propagating this run's activity on " + d.top() + "; not usable)");
    }
    return new Measured(name, r.power().totalMw(), act.cycles(), ppa.clockNs(), simulated, r.synthesis().flipFlops());
  }

  private static byte[][] random(Random rnd, int rows, int cols) {
    byte[][] a = new byte[rows][cols];
    for (byte[] row : a) {
      rnd.nextBytes(row);
    }
    return a;
  }
}
