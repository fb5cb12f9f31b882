package org.llmnpu.reports.energy;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Random;
import org.llmnpu.hdl.emit.Verilog;
import org.llmnpu.hdl.emit.VerilogDesign;
import org.llmnpu.isa.Counter;
import org.llmnpu.isa.ErrorCause;
import org.llmnpu.isa.IsaSimulator;
import org.llmnpu.isa.MachineParams;
import org.llmnpu.isa.Program;
import org.llmnpu.reports.activity.SimulatedActivity;
import org.llmnpu.reports.energy.CalibrationRuns.Measured;
import org.llmnpu.reports.ppa.NodeScaling;
import org.llmnpu.rtl.npu.Npu;
import org.llmnpu.rtl.npu.NpuConfig;
import org.llmnpu.rtl.npu.NpuDriver;

/**
 * The NPU's own data paths ({@link Calibration#npu}), measured on the NPU itself: {@code NPU_DMA_BYTE} (per byte a
 * load or store moves: the DMA engine, the external-memory port and its registers), {@code NPU_SPAD_BYTE} (per
 * byte of a scratchpad line read or written by any unit: address and data muxing, bank select, the units' line
 * registers and operand-load ports) and {@code NPU_COMMAND} (per command fetched and decoded). Three programs run
 * on the NPU's RTL with the waves dumped from {@code start} to {@code finished} — 64 fences; loads and stores of a
 * quarter of the scratchpad at a time, twice each way; one GEMM's operands loaded, the GEMM run 8 times, its
 * result stored — and for each
 *
 * <pre>
 *   R = E_run − P_idle · T · cycles − (the actions the estimate already charges: MACs or PiM columns, psum
 *       write-backs, PPM terms; {@link EnergyEstimate} on the same counters)
 * </pre>
 *
 * with P_idle the NPU clocked with nothing to do (its own run). The fences give {@code NPU_COMMAND = R / commands};
 * the other two, less their commands, give {@code NPU_DMA_BYTE} and {@code NPU_SPAD_BYTE} from the 2×2 system
 * {@code R = dmaBytes · E_dma + (spadReads + spadWrites) · lineBytes · E_spad}. The counters are the RTL's, checked
 * against the golden ISA simulator's.
 */
final class NpuDataPathCalibration {
  /** Fences of the command program. */
  static final int FENCES = 64;
  /** Times the GEMM program runs its GEMM on the loaded operands. */
  static final int GEMM_REPEATS = 8;

  private NpuDataPathCalibration() {
  }

  /** One program's counters and the energy it leaves to the NPU's data paths. */
  private record Residual(String name, Map<String, Long> counters, double pj, Measured run) {
    double count(String key) {
      return counters.getOrDefault(key, 0L);
    }
  }

  /** The runs' names, in run order: the NPU clocked idle, then the three programs. */
  static final List<String> RUNS = List.of("NPU idle", "NPU fences", "NPU loads/stores", "NPU GEMM x" + GEMM_REPEATS);

  /**
   * The simulation half of {@link #run}: the idle run and the three programs on the NPU's RTL in Verilator with their
   * waves, the programs' counters checked against the golden ISA simulator's — no synthesis and no power run, so a
   * job graph can make it while the NPU is still being synthesized.
   */
  static NpuDataPathActivity simulate(CalibrationRuns allRuns, NpuConfig config, long seed) {
    MachineParams mp = config.machine();
    if (mp.extMemBytes() < 0x80000) {
      throw new IllegalArgumentException("the NPU data-path calibration needs 512 KiB of external memory, the NPU has "
          + mp.extMemBytes() + " bytes (extMemMiB >= 1)");
    }
    VerilogDesign d = Verilog.emit(new Npu(config));
    CalibrationRuns runs = allRuns.withGatesOpen(d);
    List<NpuDataPathActivity.Run> out = new ArrayList<>();
    out.add(new NpuDataPathActivity.Run(RUNS.get(0), runs.simulate(d, s -> {
      NpuDriver npu = new NpuDriver(s, config);
      npu.reset();
      npu.configureMemory();
      s.waves(true);
      s.step(CalibrationRuns.IDLE_CYCLES);
      s.waves(false);
    }), Map.of()));
    out.add(program(runs, d, config, RUNS.get(1), fenceProgram(), seed));
    out.add(program(runs, d, config, RUNS.get(2), dmaProgram(mp), seed));
    out.add(program(runs, d, config, RUNS.get(3), gemmProgram(mp, gemmShape(mp)), seed));
    return new NpuDataPathActivity(config, seed, out);
  }

  /**
   * The power run of {@code activity}'s run {@code index} on the NPU's netlist (the PPA flow's cache keeps it, so
   * {@link #run} with the same activity reads it back): one of the calibration's OpenSTA runs of the whole NPU, made
   * on its own.
   */
  static void power(CalibrationRuns allRuns, NpuDataPathActivity activity, int index) {
    VerilogDesign d = Verilog.emit(new Npu(activity.config()));
    NpuDataPathActivity.Run r = activity.runs().get(index);
    allRuns.withGatesOpen(d).power(d, r.name(), r.activity());
  }

  /**
   * The data paths' entries from {@code activity} (simulated now when null or made for another NPU or seed):
   * each run's power on the NPU's netlist, less what {@code c}'s table already charges.
   */
  static void run(Calibration c, CalibrationRuns allRuns, NpuConfig config, int ppmInputLanes, long seed,
                  NpuDataPathActivity activity) {
    NpuDataPathActivity sims = activity != null && activity.config().equals(config) && activity.seed() == seed
        ? activity : simulate(allRuns, config, seed);
    MachineParams mp = config.machine();
    VerilogDesign d = Verilog.emit(new Npu(config));
    // a gated NPU's gates clocked every cycle in every run (idle included): the estimate charges the gated units'
    // clocks by their counters, so the data paths' residuals must not hold them
    CalibrationRuns runs = allRuns.withGatesOpen(d);
    Measured idle = runs.power(d, RUNS.get(0), sims.runs().get(0).activity());
    CalibrationRuns.requireSimulated(idle);
    EnergyTable known = c.table();
    EnergyEstimate.Shape shape = new EnergyEstimate.Shape(8 * mp.lineBytes(),
        mp.spadBytes() / mp.lineBytes() / mp.spadBanks(), false, runs.ppa.clockNs(), 0).withPpu(config.ppu())
        .withPimRows(config.engineTiming().pim() ? config.rows() : 0).withPpmInputLanes(ppmInputLanes);
    Residual cmd = residual(runs, d, sims.runs().get(1), idle, known, shape, 0);
    Residual dma = residual(runs, d, sims.runs().get(2), idle, known, shape, 0);
    int[] g = gemmShape(mp);
    long vectors = (long) GEMM_REPEATS * g[0] * ceil(g[1], mp.rows()) * ceil(g[2], mp.rows());
    Residual gemm = residual(runs, d, sims.runs().get(3), idle, known, shape, vectors);
    String commands = Counter.COMMANDS.key();
    double perCommand = cmd.pj() / cmd.count(commands);
    double[] r = {dma.pj() - perCommand * dma.count(commands), gemm.pj() - perCommand * gemm.count(commands)};
    double[][] a = {{dmaBytes(dma), spadBytes(dma, mp)}, {dmaBytes(gemm), spadBytes(gemm, mp)}};
    double det = a[0][0] * a[1][1] - a[0][1] * a[1][0];
    if (Math.abs(det) < 1e-6 * Math.abs(a[0][0] * a[1][1])) {
      throw new IllegalStateException("the NPU data-path programs do not separate DMA bytes from scratchpad bytes "
          + "(determinant " + det + ")");
    }
    double perDmaByte = (r[0] * a[1][1] - r[1] * a[0][1]) / det;
    double perSpadByte = (a[0][0] * r[1] - a[1][0] * r[0]) / det;
    String on = String.format(Locale.ROOT, "OpenSTA with the activity of %s (%dx%d, %d-byte lines) at %.3g ns, idle "
        + "%.3f mW (its own run)", d.top(), mp.rows(), mp.rows(), mp.lineBytes(), runs.ppa.clockNs(), idle.mw());
    c.put(EnergyAction.NPU_COMMAND, perCommand, String.format(Locale.ROOT, "%s; %s: %.3f mW over %d cycles, %.0f "
        + "commands, above idle", on, cmd.name(), cmd.run().mw(), cmd.run().cycles(), cmd.count(commands)));
    if (perSpadByte > 0 && perDmaByte > 0) {
      c.put(EnergyAction.NPU_DMA_BYTE, perDmaByte, String.format(Locale.ROOT, "%s; solved with NPU_SPAD_BYTE from %s "
          + "and %s, less their commands and what the table already charges", on, describe(dma, mp),
          describe(gemm, mp)));
      c.put(EnergyAction.NPU_SPAD_BYTE, perSpadByte, String.format(Locale.ROOT, "%s; solved with NPU_DMA_BYTE from "
          + "the same two programs (%s and %s)", on, dma.name(), gemm.name()));
      return;
    }
    // the GEMM program left less than the table already charges for its scratchpad reads (the PPM lanes on the
    // read port): the scratchpad side cannot be separated, so the loads and stores carry it per DMA byte
    c.put(EnergyAction.NPU_DMA_BYTE, r[0] / a[0][0], String.format(Locale.ROOT, "%s; %s less its commands and what "
        + "the table already charges, per DMA byte, its scratchpad line reads and writes included (the 2x2 solution "
        + "with %s gave %.4g pJ per DMA byte and %.4g per scratchpad byte, not physical)", on, describe(dma, mp),
        describe(gemm, mp), perDmaByte, perSpadByte));
    c.notMeasured(EnergyAction.NPU_SPAD_BYTE, String.format(Locale.ROOT, "not separable from NPU_DMA_BYTE on %s: the "
        + "GEMM program's energy above idle less its commands is at or below what the table already charges for it "
        + "(%s), so the DMA byte carries the scratchpad side of loads and stores and GEMM operand traffic adds nothing "
        + "beyond the PPM lanes on the read port", d.top(), describe(gemm, mp)));
  }

  private static double dmaBytes(Residual r) {
    return r.count(Counter.DMA_LOAD_BYTES.key()) + r.count(Counter.DMA_STORE_BYTES.key());
  }

  private static double spadBytes(Residual r, MachineParams mp) {
    return (r.count(Counter.SPAD_READS.key()) + r.count(Counter.SPAD_WRITES.key())) * mp.lineBytes();
  }

  private static String describe(Residual r, MachineParams mp) {
    return String.format(Locale.ROOT, "%s (%.3f mW over %d cycles, %.0f DMA bytes, %.0f scratchpad bytes, %.4g pJ "
        + "left)", r.name(), r.run().mw(), r.run().cycles(), dmaBytes(r), spadBytes(r, mp), r.pj());
  }

  /**
   * Runs {@code p} on the NPU with waves from start to finished and checks the RTL's counters against the golden
   * ISA simulator's.
   */
  static NpuDataPathActivity.Run program(CalibrationRuns runs, VerilogDesign d, NpuConfig config,
                                         String name, Program p, long seed) {
    MachineParams mp = config.machine();
    byte[] image = new byte[(int) mp.extMemBytes()];
    Random rnd = new Random(seed);
    byte[] data = new byte[0x30000];
    rnd.nextBytes(data);
    System.arraycopy(data, 0, image, 0x10000, data.length);
    byte[] code = p.bytes();
    System.arraycopy(code, 0, image, 0, code.length);
    Map<String, Long> counters = new LinkedHashMap<>();
    ErrorCause[] error = new ErrorCause[1];
    SimulatedActivity act = runs.simulate(d, s -> {
      NpuDriver npu = new NpuDriver(s, config);
      npu.reset();
      npu.loadImage(image);
      s.waves(true);
      npu.start(0);
      npu.awaitFinished(1_000_000);
      s.waves(false);
      error[0] = npu.error();
      npu.counters().forEach((k, v) -> counters.put(k.key(), v));
    });
    IsaSimulator.Result golden = IsaSimulator.run(mp, image, 0);
    if (error[0] != ErrorCause.NONE || golden.error() != ErrorCause.NONE) {
      throw new IllegalStateException("the calibration program '" + name + "' stopped with " + error[0]
          + " on the RTL, " + golden.error() + " on the golden ISA simulator");
    }
    for (Counter k : Counter.values()) {
      if (k.golden() && golden.counter(k) != counters.get(k.key())) {
        throw new IllegalStateException("the calibration program '" + name + "': counter " + k.key() + " is "
            + counters.get(k.key()) + " on the RTL, " + golden.counter(k) + " on the golden ISA simulator");
      }
    }
    return new NpuDataPathActivity.Run(name, act, counters);
  }

  /** The energy of {@code r} above idle less the actions {@code known} already charges. */
  private static Residual residual(CalibrationRuns runs, VerilogDesign d, NpuDataPathActivity.Run r, Measured idle,
      EnergyTable known, EnergyEstimate.Shape shape, long arrayVectors) {
    Measured run = runs.power(d, r.name(), r.activity());
    CalibrationRuns.requireSimulated(run);
    Map<String, Long> counters = new LinkedHashMap<>(r.counters());
    counters.put(EnergyEstimate.ARRAY_VECTORS, arrayVectors);
    counters.put(Counter.CYCLES.key(), run.cycles());
    EnergyEstimate e = EnergyEstimate.of(known, NodeScaling.Node.N180, counters, shape.withFlipFlops(0));
    double charged = e.totalPj() - e.byUnitPj().getOrDefault(EnergyEstimate.IDLE_UNIT, 0.0)
        - e.byUnitPj().getOrDefault(EnergyEstimate.SRAM_UNIT, 0.0) - e.byUnitPj().getOrDefault(EnergyEstimate.DRAM_UNIT, 0.0);
    return new Residual(r.name(), counters, CalibrationRuns.aboveIdle(run, idle) - charged, run);
  }

  /** {@value #FENCES} fences and a halt: the command program. */
  static Program fenceProgram() {
    Program.Builder fences = Program.builder();
    for (int i = 0; i < FENCES; i++) {
      fences.fence();
    }
    return fences.halt().build();
  }

  /** Loads and stores of a quarter of the scratchpad at a time (rows of 4 lines), twice each way. */
  static Program dmaProgram(MachineParams mp) {
    int row = 4 * mp.lineBytes();
    int block = mp.spadBytes() / 4;
    Program.Builder b = Program.builder();
    for (int t = 0; t < 4; t++) {
      long spad = (long) (t % 2) * mp.spadBytes() / 2;
      b.load(0x10000 + (long) t * block, row, spad, row, row, block / row);
      b.store(0x40000 + (long) t * block, row, spad, row, row, block / row);
    }
    return b.halt().build();
  }

  /** M, K, N of the GEMM program: 2·mTile × 4·rows × 2·rows within the NPU's limits. */
  static int[] gemmShape(MachineParams mp) {
    return new int[] {Math.min(mp.maxM(), 2 * mp.mTile()), Math.min(mp.maxK(), 4 * mp.rows()),
        Math.min(mp.maxN(), 2 * mp.rows())};
  }

  /** X and W loaded once, the GEMM run {@value #GEMM_REPEATS} times, Y (INT32) stored. */
  static Program gemmProgram(MachineParams mp, int[] g) {
    int m = g[0];
    int k = g[1];
    int n = g[2];
    long w = align(m * k, mp.lineBytes());
    long y = align(w + (long) k * n, mp.lineBytes());
    if (y + 4L * m * n > mp.spadBytes()) {
      throw new IllegalArgumentException("the calibration GEMM " + m + "x" + k + "x" + n + " does not fit the "
          + mp.spadBytes() + "-byte scratchpad");
    }
    Program.Builder b = Program.builder().load(0x10000, k, 0, k, k, m).load(0x20000, n, w, n, n, k);
    for (int i = 0; i < GEMM_REPEATS; i++) {
      b.gemm(m, k, n, 0, k, w, n, y, 4L * n);
    }
    return b.store(0x40000, 4L * n, y, 4L * n, 4L * n, m).halt().build();
  }

  private static long align(long v, int to) {
    return (v + to - 1) / to * to;
  }

  private static long ceil(long a, long b) {
    return (a + b - 1) / b;
  }
}
