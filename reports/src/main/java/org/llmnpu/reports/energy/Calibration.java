package org.llmnpu.reports.energy;

import java.util.EnumMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.Consumer;
import org.llmnpu.reports.ppa.NodeScaling;
import org.llmnpu.reports.ppa.PpaOptions;
import org.llmnpu.rtl.npu.NpuConfig;
import org.llmnpu.verilator.SimOptions;

/**
 * Calibrates the energy table from the blocks' own workloads: each workload runs in Verilator
 * with its waves dumped over the compute only ({@link ComputeWindow}), its switching activity
 * goes onto the synthesized netlist ({@link CalibrationRuns}: {@code SimulatedActivity}, OpenSTA), and
 *
 * <pre>
 *   E(action) = (P_run · T · cycles − P_idle · T · cycles) / actions
 * </pre>
 *
 * where P_idle is the power of the same design clocked with nothing to do (its own run) and T
 * the clock period: the energy above idle that the actions cost, per action. The idle power
 * itself is charged per cycle ({@code MAC_IDLE}, {@code DSP_IDLE}) and, pooled over the blocks'
 * idle runs, per flip-flop ({@code IDLE_FLIP_FLOP}: the blocks' idle energy per cycle summed over their
 * flip-flops summed; a whole NPU is charged its flip-flops). Standard cells only: the memories are
 * SRAM macros outside synthesis and are charged per access from the SRAM model.
 *
 * <p>Workloads: the GEMM engine ({@link GemmCalibration}), the Vector DSP ({@link DspCalibration}), the PPM and
 * the PiM macro ({@link PpmPimCalibration}) and the NPU's own data paths — DMA, scratchpad port, command
 * fetch — on the NPU itself ({@link NpuDataPathCalibration}, after the blocks whose actions its programs also do).
 * A block whose runs OpenSTA cannot propagate gets its actions listed as not measured, with the reason.
 */
public final class Calibration {

  private final CalibrationRuns runs;
  private final Map<EnergyAction, EnergyTable.Entry> entries = new EnumMap<>(EnergyAction.class);
  private final Map<EnergyAction, String> notMeasured = new EnumMap<>(EnergyAction.class);

  public Calibration(PpaOptions ppa, SimOptions sim, Consumer<String> log) {
    this.runs = new CalibrationRuns(ppa, sim, log);
  }

  /**
   * The blocks' calibrations made apart — {@link #gemmDense}, {@link #gemm24}, {@link #dsp}, {@link #ppm}, {@link #pim},
   * each on a calibration of its own, as a job graph makes them side by side — as one, parts in that order: their
   * entries, the actions they could not measure, their idle runs (pooled for {@code IDLE_FLIP_FLOP} in this order)
   * and their runs' powers. That is what {@link #gemm}, then {@link #dsp}, {@link #ppm} (and {@link #pim}) on one
   * calibration give when both GEMM halves measured their entries ({@link #measuredGemmDense},
   * {@link #measuredGemm24}); the NPU's data paths ({@link #npu}) follow on the result.
   */
  public static Calibration merged(PpaOptions ppa, SimOptions sim, Consumer<String> log, List<Calibration> parts) {
    Calibration c = new Calibration(ppa, sim, log);
    for (Calibration p : parts) {
      c.entries.putAll(p.entries);
      c.notMeasured.putAll(p.notMeasured);
      c.runs.idleRuns.putAll(p.runs.idleRuns);
      c.runs.powers.putAll(p.runs.powers);
    }
    return c;
  }

  /** True when {@link #gemmDense}'s entries (MAC_IDLE, MAC, PSUM_WRITEBACK) were measured. */
  public boolean measuredGemmDense() {
    return entries.containsKey(EnergyAction.MAC_IDLE) && entries.containsKey(EnergyAction.MAC)
        && entries.containsKey(EnergyAction.PSUM_WRITEBACK);
  }

  /** True when {@link #gemm24}'s MAC_2_4 was measured (not left to {@link #gemm}'s fallback). */
  public boolean measuredGemm24() {
    return entries.containsKey(EnergyAction.MAC_2_4);
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
    if (!runs.idleRuns.isEmpty()) {
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
    for (Map.Entry<String, double[]> e : runs.idleRuns.entrySet()) {
      pj += e.getValue()[0];
      ffs += e.getValue()[1];
      each.append(each.length() == 0 ? "" : ", ").append(String.format(Locale.ROOT, "%s %.4g pJ/cycle / %.0f = %.4g",
          e.getKey(), e.getValue()[0], e.getValue()[1], e.getValue()[0] / e.getValue()[1]));
    }
    return new EnergyTable.Entry(EnergyAction.IDLE_FLIP_FLOP, pj / ffs, String.format(Locale.ROOT, "OpenSTA: the "
        + "idle runs (clocked with nothing to do) of the blocks calibrated, energy per cycle over flip-flops, pooled "
        + "(%s pJ per flip-flop) at %.3g ns", each, runs.ppa.clockNs()));
  }

  /** Power (mW) of each calibration run, by name, in run order. */
  public Map<String, Double> powers() {
    return Map.copyOf(runs.powers);
  }

  /** Calibrates MAC (dense), MAC_2_4, MAC_IDLE and PSUM_WRITEBACK on a rows×cols array ({@link GemmCalibration}). */
  public Calibration gemm(int rows, int cols, int m, int k, int n, long seed) {
    GemmCalibration.run(this, runs, rows, cols, m, k, n, seed, GemmCalibration.Engines.BOTH);
    return this;
  }

  /**
   * The dense engine's half of {@link #gemm} (MAC_IDLE, MAC, PSUM_WRITEBACK): the same design, data and runs, so a
   * {@link #gemm} of the same arguments afterwards finds their OpenSTA runs in the PPA cache.
   */
  public Calibration gemmDense(int rows, int cols, int m, int k, int n, long seed) {
    GemmCalibration.run(this, runs, rows, cols, m, k, n, seed, GemmCalibration.Engines.DENSE);
    return this;
  }

  /**
   * The 2:4 engine's half of {@link #gemm} (MAC_2_4, when OpenSTA propagates its activity; the fallback on 2×2 arrays
   * needs the dense MAC and is left to {@link #gemm}): the same design, data and runs as there.
   */
  public Calibration gemm24(int rows, int cols, int m, int k, int n, long seed) {
    GemmCalibration.run(this, runs, rows, cols, m, k, n, seed, GemmCalibration.Engines.SPARSE_2_4);
    return this;
  }

  /** {@link #dsp(int, int, int, long)} on the NPU's default DSP of {@link NpuConfig#DEFAULT_DSP_STAGES} stages. */
  public Calibration dsp(int lanes, int rows, long seed) {
    return dsp(lanes, rows, NpuConfig.DEFAULT_DSP_STAGES, seed);
  }

  /**
   * Calibrates the DSP instruction classes and DSP_IDLE on a {@code lanes}-lane DSP of {@code stages} execute
   * stages ({@link DspCalibration}); if OpenSTA cannot propagate the runs' activity on this DSP, the DSP actions are
   * listed as not measured, with the reason, instead of being filled with figures that are not from the runs.
   */
  public Calibration dsp(int lanes, int rows, int stages, long seed) {
    return guarded(() -> DspCalibration.run(this, runs, lanes, rows, stages, seed), "DSP", EnergyAction.DSP_IDLE,
        EnergyAction.DSP_MEMORY, EnergyAction.DSP_CONVERT, EnergyAction.DSP_FP16, EnergyAction.DSP_FP32);
  }

  /**
   * Calibrates {@code PPM_ELEMENT} and {@code PPU_LOOKUP} on a {@code cols}-lane PPM without and with the PPU
   * ({@link PpmPimCalibration#ppm}); not measured, with the reason, if OpenSTA cannot propagate the runs' activity.
   */
  public Calibration ppm(int cols, long seed) {
    return guarded(() -> PpmPimCalibration.ppm(this, runs, cols, seed), "PPM", EnergyAction.PPM_ELEMENT,
        EnergyAction.PPU_LOOKUP);
  }

  /**
   * Calibrates {@code PIM_COLUMN} on a {@code rows × cols} INT8 PiM macro applying {@code bitsPerCycle} input bits
   * per cycle ({@link PpmPimCalibration#pim}); not measured if OpenSTA cannot propagate the activity.
   */
  public Calibration pim(int rows, int cols, int bitsPerCycle, long seed) {
    return guarded(() -> PpmPimCalibration.pim(this, runs, rows, cols, bitsPerCycle, seed), "PIM_COLUMN",
        EnergyAction.PIM_COLUMN);
  }

  /**
   * Calibrates {@code NPU_COMMAND}, {@code NPU_DMA_BYTE} and {@code NPU_SPAD_BYTE} on the NPU of {@code config}
   * itself ({@link NpuDataPathCalibration}); call it after {@link #gemm} (and {@link #ppm}, {@link #pim} as the NPU
   * has them): what the table already charges for its programs is subtracted. {@code ppmInputLanes}: the PPM lanes
   * the NPU wires to the scratchpad read port without isolation ({@link EnergyEstimate.Shape#ppmInputLanes}).
   * Not measured, with the reason, if OpenSTA cannot propagate the NPU's activity.
   */
  public Calibration npu(NpuConfig config, int ppmInputLanes, long seed) {
    return npu(config, ppmInputLanes, seed, null);
  }

  /**
   * {@link #npu(NpuConfig, int, long)} on the simulations of {@code activity} ({@link #npuActivity}; simulated here
   * when null or made for another NPU or seed): only the power runs and the arithmetic are left.
   */
  public Calibration npu(NpuConfig config, int ppmInputLanes, long seed, NpuDataPathActivity activity) {
    if (!entries.containsKey(EnergyAction.MAC_IDLE)) {
      throw new IllegalStateException("calibrate the GEMM engine (gemm) before the NPU's data paths: their "
          + "programs run GEMMs, whose energy is subtracted");
    }
    return guarded(() -> NpuDataPathCalibration.run(this, runs, config, ppmInputLanes, seed, activity),
        "NPU data-path", EnergyAction.NPU_COMMAND, EnergyAction.NPU_DMA_BYTE, EnergyAction.NPU_SPAD_BYTE);
  }

  /**
   * The simulations of {@link #npu}'s data-path calibration on the NPU of {@code config} (Verilator with waves, the
   * counters checked against the golden ISA simulator): no synthesis, so they can run while the NPU is synthesized.
   *
   * @throws IllegalStateException when a program's RTL run disagrees with the golden ISA simulator
   */
  public NpuDataPathActivity npuActivity(NpuConfig config, long seed) {
    return NpuDataPathCalibration.simulate(runs, config, seed);
  }

  /**
   * The OpenSTA power run of {@code activity}'s run {@code index} ({@link NpuDataPathActivity#RUNS}) on the NPU's
   * netlist, into the PPA cache, where {@link #npu(NpuConfig, int, long, NpuDataPathActivity)} finds it: each of the
   * four whole-NPU power runs can be a job of its own.
   */
  public void npuPower(NpuDataPathActivity activity, int index) {
    NpuDataPathCalibration.power(runs, activity, index);
  }

  /**
   * The NPU {@code npu report energy} calibrates the data paths on ({@link #npu}): a {@code rows × rows} array
   * with the validation benchmark's other sizes — a 16 KiB scratchpad in 2 banks, 1 MiB of external memory, GEMM
   * tiles up to 32×64×32 (mTile 16) and a 2-lane Vector DSP of 64 rows and 64 program words — the rest at
   * {@link NpuConfig#defaults()}.
   */
  public static NpuConfig referenceNpu(int rows) {
    NpuConfig d = NpuConfig.defaults();
    return new NpuConfig(rows, 16, 2, 1, 16, d.accWidth(), d.icAccumDepth(), 32, 64, 32, d.memLatency(),
        d.memBytesPerCycle(), d.watchdogCycles(), 2, 64, 64, d.dspMaxRunCycles(), d.engine(), d.weightRowsPerCycle(),
        d.ppu(), d.mxLoad(), d.sparsity(), d.commandQueueDepth(), d.dspStages());
  }

  private Calibration guarded(Runnable calibration, String what, EnergyAction... actions) {
    try {
      calibration.run();
    } catch (IllegalStateException e) {
      for (EnergyAction a : actions) {
        entries.remove(a);
        notMeasured.put(a, e.getMessage());
      }
      runs.log.accept("  " + what + " actions not measured: " + e.getMessage());
    }
    return this;
  }

  /** An entry measured so far (null if not). */
  EnergyTable.Entry entry(EnergyAction a) {
    return entries.get(a);
  }

  void notMeasured(EnergyAction a, String why) {
    entries.remove(a);
    notMeasured.put(a, why);
    runs.log.accept("  " + a.name() + " not measured: " + why);
  }

  void put(EnergyAction a, double pj, String basis) {
    entries.put(a, new EnergyTable.Entry(a, pj, basis));
    runs.log.accept(String.format(Locale.ROOT, "  %-15s %10.4g pJ at 180 nm", a.name(), pj));
  }
}
