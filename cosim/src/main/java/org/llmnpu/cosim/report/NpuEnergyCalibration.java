package org.llmnpu.cosim.report;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.function.Consumer;
import java.util.function.Supplier;
import org.llmnpu.cosim.report.NpuReportPipeline.Fmt;
import org.llmnpu.hdl.emit.Verilog;
import org.llmnpu.reports.energy.Calibration;
import org.llmnpu.reports.energy.EnergyAction;
import org.llmnpu.reports.energy.EnergyTable;
import org.llmnpu.reports.energy.NpuDataPathActivity;
import org.llmnpu.reports.ppa.ContentCache;
import org.llmnpu.reports.ppa.PpaFlow;
import org.llmnpu.reports.ppa.PpaOptions;
import org.llmnpu.reports.ppa.PpaResult;
import org.llmnpu.reports.ppa.ToolVersions;
import org.llmnpu.rtl.mac.GemmEngine;
import org.llmnpu.rtl.mac.GemmEngineConfig;
import org.llmnpu.rtl.mac.MacArrayConfig;
import org.llmnpu.rtl.mac.WeightSparsity;
import org.llmnpu.rtl.npu.Npu;
import org.llmnpu.rtl.npu.NpuConfig;
import org.llmnpu.rtl.ppm.LinePpm;
import org.llmnpu.rtl.ppm.PpmConfig;
import org.llmnpu.pim.PimMacro;
import org.llmnpu.pim.PimMacroConfig;
import org.llmnpu.pim.PimPrecision;
import org.llmnpu.verilator.SimOptions;

/**
 * The energy table of the whole-NPU report ({@link NpuReportPipeline}): read from a file written by
 * {@code npu report energy}, or calibrated on the NPU's GEMM engine size, a 2-lane Vector DSP of the NPU's
 * execute stages, a 2-lane PPM with and without the PPU, for a PiM engine a PiM macro, and the NPU's own data
 * paths (DMA, scratchpad port, command fetch) on the NPU itself
 * (Verilator activity of seeded workloads on the synthesized netlists, OpenSTA power; see
 * {@code reports} {@link Calibration}), with a fallback to an 8×8 engine whose idle energy is
 * scaled to the NPU's engine by flip-flops when OpenSTA cannot propagate the larger engine's
 * activity. A calibration is deterministic, so its result is kept in the PPA cache.
 */
public final class NpuEnergyCalibration {
  /** The table and where it came from (shown in the report). */
  public record Table(EnergyTable table, String source) {
  }

  private final PpaOptions ppa;
  private final SimOptions sim;
  private final long seed;
  private final Consumer<String> log;

  public NpuEnergyCalibration(PpaOptions ppa, SimOptions sim, long seed, Consumer<String> log) {
    this.ppa = ppa;
    this.sim = sim;
    this.seed = seed;
    this.log = log;
  }

  /**
   * The table read from {@code energyTable} when it is given, else calibrated on the {@code npu}'s
   * {@code rows × rows} engine (module {@code engineModule}; {@code engine} gives that engine's PPA, asked for only by
   * the fallback's flip-flop scaling, so a calibration that does not fall back synthesizes nothing of the NPU), a
   * {@value #DSP_CALIBRATION_LANES}-lane Vector DSP, a {@value #PPM_CALIBRATION_LANES}-lane PPM with and
   * without the PPU and, when {@code pimBitsPerCycle} &gt; 0 (a PiM engine applying that many input bits
   * per cycle), a PiM macro of {@code min(rows, }{@value #PIM_CALIBRATION_ROWS}{@code )} rows and columns.
   */
  public Table table(Path energyTable, NpuConfig npu, String engineModule, Supplier<PpaResult> engine,
                    int pimBitsPerCycle) {
    return table(energyTable, npu, engineModule, engine, pimBitsPerCycle, null);
  }

  /**
   * {@link #table(Path, NpuConfig, String, Supplier, int)} with the NPU data paths' simulations already made
   * ({@link #npuActivity}; null: simulated here).
   */
  public Table table(Path energyTable, NpuConfig npu, String engineModule, Supplier<PpaResult> engine,
                    int pimBitsPerCycle, NpuDataPathActivity activity) {
    return table(energyTable, npu, engineModule, engine, pimBitsPerCycle, activity, Map.of());
  }

  /**
   * {@link #table(Path, NpuConfig, String, Supplier, int, NpuDataPathActivity)} with the blocks' runs already made
   * ({@link #prepare}, a job per block): when every block's part is given and the GEMM engine's halves measured their
   * entries, the table takes them as they are ({@link Calibration#merged}) instead of repeating the blocks'
   * simulations; otherwise (a part missing, or one that needs the whole calibration's fallback) it calibrates the
   * blocks itself.
   */
  public Table table(Path energyTable, NpuConfig npu, String engineModule, Supplier<PpaResult> engine,
                    int pimBitsPerCycle, NpuDataPathActivity activity, Map<Block, Calibration> blocks) {
    if (energyTable != null) {
      try {
        return new Table(EnergyTable.fromJson(Files.readString(energyTable), "--energy-table " + energyTable),
            "read from " + energyTable);
      } catch (java.io.IOException e) {
        throw new IllegalArgumentException("--energy-table: cannot read " + energyTable + ": " + e.getMessage(), e);
      }
    }
    String[] cached = calibratedTable(npu, engineModule, engine, pimBitsPerCycle, activity, blocks);
    return new Table(EnergyTable.fromJson(cached[0], "cached energy calibration"), cached[1]);
  }

  /** The calibration's runs that can be made ahead of {@link #table}, each on its own ({@link #prepare}). */
  public enum Block {
    /** The GEMM engine, dense: idle and busy. */
    GEMM_DENSE,
    /** The GEMM engine with 2:4 weights: idle and busy. */
    GEMM_2_4,
    /** The Vector DSP: idle and its instruction classes. */
    DSP,
    /** The PPM with and without the PPU. */
    PPM,
    /** The PiM macro (a PiM engine only). */
    PIM
  }

  /**
   * Runs one block's calibration runs of {@link #table} unless the table is given or already cached, so that their
   * syntheses and OpenSTA runs are in the PPA cache when the table is asked for: a job graph runs each block as a job
   * of its own beside the NPU's synthesis, and the table then repeats only the blocks' short simulations (their
   * OpenSTA runs are found in the cache by their activity). A block whose activity OpenSTA cannot propagate is left to
   * the table, which falls back.
   *
   * @return the block's calibration when its runs were made, empty when there was nothing to do or they failed
   */
  public Optional<Calibration> prepare(Path energyTable, NpuConfig npu, String engineModule, int pimBitsPerCycle,
                                       Block block) {
    if (!calibrates(energyTable, npu, engineModule, pimBitsPerCycle)
        || (block == Block.PIM && pimBitsPerCycle == 0)) {
      return Optional.empty();
    }
    int r = npu.rows();
    Calibration c = new Calibration(ppa, sim, line -> log.accept("  " + line.strip()));
    try {
      switch (block) {
        case GEMM_DENSE -> c.gemmDense(r, r, 4 * r, 4 * r, 2 * r, seed);
        case GEMM_2_4 -> c.gemm24(r, r, 4 * r, 4 * r, 2 * r, seed);
        case DSP -> c.dsp(DSP_CALIBRATION_LANES, 64, npu.dspStages(), seed);
        case PPM -> c.ppm(PPM_CALIBRATION_LANES, seed);
        case PIM -> c.pim(Math.min(r, PIM_CALIBRATION_ROWS), Math.min(r, PIM_CALIBRATION_ROWS), pimBitsPerCycle,
            seed);
        default -> throw new IllegalArgumentException("block: " + block);
      }
    } catch (IllegalStateException e) {
      log.accept("  " + e.getMessage() + " (the table falls back when it is asked for)");
      return Optional.empty();
    }
    return Optional.of(c);
  }

  /**
   * The NPU data paths' simulations ({@link Calibration#npuActivity}) ahead of {@link #table}: empty when the table is
   * given or cached, or when a program's run fails (the table then meets the failure itself and reports it).
   */
  public Optional<NpuDataPathActivity> npuActivity(Path energyTable, NpuConfig npu, String engineModule,
                                                  int pimBitsPerCycle) {
    if (!calibrates(energyTable, npu, engineModule, pimBitsPerCycle)) {
      return Optional.empty();
    }
    try {
      return Optional.of(new Calibration(ppa, sim, line -> log.accept("  " + line.strip())).npuActivity(npu, seed));
    } catch (IllegalStateException e) {
      log.accept("  " + e.getMessage() + " (the table meets it again when it is asked for)");
      return Optional.empty();
    }
  }

  /** One whole-NPU power run of the data-path calibration ({@link Calibration#npuPower}) into the PPA cache. */
  public void npuPower(NpuDataPathActivity activity, int index) {
    new Calibration(ppa, sim, line -> log.accept("  " + line.strip())).npuPower(activity, index);
  }

  /** True when {@link #table} will calibrate: no table given and none cached. */
  private boolean calibrates(Path energyTable, NpuConfig npu, String engineModule, int pimBitsPerCycle) {
    return energyTable == null && ppa.cache().get(tableKey(npu, engineModule, pimBitsPerCycle)).isEmpty();
  }

  /** The calibrated table's cache key: the engines' Verilog, the tools' versions, the library, clock and seed. */
  private String tableKey(NpuConfig npu, String engineModule, int pimBitsPerCycle) {
    int r = npu.rows();
    List<String> parts = new ArrayList<>(List.of(CALIBRATION_VERSION, ToolVersions.yosys(),
        ToolVersions.sta(), ppa.liberty().toString(), Double.toString(ppa.clockNs()),
        Long.toString(seed), Integer.toString(r), engineModule, Integer.toString(pimBitsPerCycle),
        new TreeMap<>(Verilog.emit(new Npu(npu)).files()).toString()));
    for (PpmConfig.Activation a : new PpmConfig.Activation[] {PpmConfig.Activation.NONE, PpmConfig.Activation.PPU}) {
      // the calibrated PPM is the NPU's line-rate PPM (reports' PpmPimCalibration: 8 channel groups)
      parts.add(new TreeMap<>(Verilog.emit(new LinePpm(PpmConfig.of(PPM_CALIBRATION_LANES, 8, a),
          8 * PPM_CALIBRATION_LANES)).files()).toString());
    }
    if (pimBitsPerCycle > 0) {
      int p = Math.min(r, PIM_CALIBRATION_ROWS);
      parts.add(new TreeMap<>(Verilog.emit(new PimMacro(new PimMacroConfig(p, p, PimPrecision.INT8,
          PimMacroConfig.Alignment.NONE, 8, pimBitsPerCycle, 0, 32, 16, PimMacroConfig.ALL_ROW_GROUPS)
          .withStages(org.llmnpu.isa.EngineTiming.PIM_STAGES))).files())
          .toString());
    }
    for (int size : new int[] {r, FALLBACK_ROWS, 2}) {
      for (WeightSparsity sp : WeightSparsity.values()) {
        if (sp != WeightSparsity.NONE && sp != WeightSparsity.S2_4) {
          continue;
        }
        int m = size == 2 ? 4 : 4 * size;
        GemmEngineConfig cfg = new GemmEngineConfig(
            new MacArrayConfig(size, size, 32, Math.max(2, Math.min(1024, m)), 0, sp), m,
            size == 2 ? 8 : 4 * size, size == 2 ? 4 : 2 * size);
        parts.add(new TreeMap<>(Verilog.emit(new GemmEngine(cfg)).files()).toString());
      }
    }
    return ContentCache.key(parts);
  }

  /** Bumped when the calibration or its fallback changes, so older cached tables are not reused. */
  private static final String CALIBRATION_VERSION = "npu-report energy calibration 10 (GEMM engine, 2-lane Vector DSP "
      + "of the NPU's stages, 2-lane PPM with and without the PPU, PiM macro for PiM engines, idle per flip-flop, the "
      + "NPU's own data paths on the NPU with its gated clocks ideal and open in every run; constants tied for OpenSTA; "
      + "SRAM read data with its own activity on the macro pins, every run on OpenSTA's first attempt, input default 0; "
      + "flip-flop outputs and clocked read data reach the logic they drive)";

  /**
   * The energy table calibrated on the NPU's array size ({@link #calibrate}, with the fallback),
   * as {table JSON, source}: the calibration is deterministic (seeded workloads, RTL, tools), so
   * its result is kept in the PPA cache under the hash of the engines' Verilog, the tools'
   * versions, the library, the clock and the seed, and a warm run skips the simulations.
   */
  private String[] calibratedTable(NpuConfig npu, String engineModule, Supplier<PpaResult> engine,
                                   int pimBitsPerCycle, NpuDataPathActivity activity, Map<Block, Calibration> blocks) {
    int r = npu.rows();
    String key = tableKey(npu, engineModule, pimBitsPerCycle);
    var hit = ppa.cache().get(key);
    if (hit.isPresent() && hit.get().containsKey("energy.json") && hit.get().containsKey("source.txt")) {
      log.accept("  energy table: cached calibration (" + hit.get().get("source.txt").strip() + ")");
      return new String[] {hit.get().get("energy.json"), hit.get().get("source.txt").strip()};
    }
    EnergyTable table;
    String source;
    try {
      table = calibrate(r, npu, pimBitsPerCycle, activity, blocks);
      source = String.format(Locale.ROOT, "calibrated on a %dx%d GEMM engine and the NPU's own data paths at %s "
          + "ns (Verilator activity, OpenSTA), like npu report energy --rows %d --cols %d", r, r, Fmt.num(ppa.clockNs()), r, r);
    } catch (IllegalStateException e) {
      if (r == FALLBACK_ROWS) {
        throw new IllegalStateException(e.getMessage() + "; give a table with --energy-table", e);
      }
      log.accept("  " + e.getMessage() + "; calibrating on an " + FALLBACK_ROWS + "x" + FALLBACK_ROWS
          + " engine instead");
      table = scaledIdle(calibrate(FALLBACK_ROWS, npu, pimBitsPerCycle, activity, Map.of()), engine.get(),
          e.getMessage());
      source = String.format(Locale.ROOT, "calibrated on an %dx%d GEMM engine at %s ns (the %dx%d engine's "
          + "activity crashed OpenSTA), idle per cycle scaled to the NPU's engine by flip-flops", FALLBACK_ROWS,
          FALLBACK_ROWS, Fmt.num(ppa.clockNs()), r, r);
    }
    ppa.cache().put(key, Map.of("energy.json", table.json(), "source.txt", source + "\n"));
    return new String[] {table.json(), source};
  }

  /**
   * Lanes of the Vector DSP whose instruction classes are calibrated (energies are per lane-instruction;
   * a small DSP keeps the synthesis short).
   */
  static final int DSP_CALIBRATION_LANES = 2;

  /** Array size the energy calibration falls back to when OpenSTA cannot propagate a larger engine's activity. */
  static final int FALLBACK_ROWS = 8;

  /** Lanes of the PPM whose element and PPU energies are calibrated (per element; a small PPM keeps the synthesis short). */
  static final int PPM_CALIBRATION_LANES = 2;

  /** Largest PiM macro the calibration synthesizes (its energy is per row of a column operation). */
  static final int PIM_CALIBRATION_ROWS = 8;

  private EnergyTable calibrate(int r, NpuConfig npu, int pimBitsPerCycle, NpuDataPathActivity activity,
                                Map<Block, Calibration> parts) {
    List<Block> needed = new ArrayList<>(List.of(Block.GEMM_DENSE, Block.GEMM_2_4, Block.DSP, Block.PPM));
    if (pimBitsPerCycle > 0) {
      needed.add(Block.PIM);
    }
    Calibration blocks;
    if (r == npu.rows() && parts.keySet().containsAll(needed) && parts.get(Block.GEMM_DENSE).measuredGemmDense()
        && parts.get(Block.GEMM_2_4).measuredGemm24()) {
      log.accept("  the blocks' runs from their own jobs (" + needed + ")");
      blocks = Calibration.merged(ppa, sim, line -> log.accept("  " + line.strip()),
          needed.stream().map(parts::get).toList());
    } else {
      blocks = blocks(r, npu, pimBitsPerCycle);
    }
    // the NPU's own data paths (DMA, scratchpad port, command fetch), on the reported NPU itself
    return blocks.npu(npu, NpuEnergyShape.PPM_INPUT_LANES.applyAsInt(npu), seed, activity).table();
  }

  /**
   * The table of the blocks alone — the same GEMM engine, DSP, PPM (and PiM macro) calibrations as {@link #table},
   * through the same cache of tool runs — without the NPU's own data paths ({@code NPU_COMMAND}, {@code NPU_DMA_BYTE},
   * {@code NPU_SPAD_BYTE}, which need the whole NPU simulated with waves and four OpenSTA runs of it): an estimate
   * with it leaves out the data paths' energy, a lower bound.
   */
  public EnergyTable blocksOnly(NpuConfig npu, int pimBitsPerCycle) {
    return blocks(npu.rows(), npu, pimBitsPerCycle).table();
  }

  private Calibration blocks(int r, NpuConfig npu, int pimBitsPerCycle) {
    Calibration c = new Calibration(ppa, sim, line -> log.accept("  " + line.strip())).gemm(r, r, 4 * r, 4 * r, 2 * r,
        seed).dsp(DSP_CALIBRATION_LANES, 64, npu.dspStages(), seed).ppm(PPM_CALIBRATION_LANES, seed);
    if (pimBitsPerCycle > 0) {
      int p = Math.min(r, PIM_CALIBRATION_ROWS);
      c.pim(p, p, pimBitsPerCycle, seed);
    }
    return c;
  }

  /**
   * The table of a smaller engine with its idle energy per cycle scaled to the NPU's engine by the
   * ratio of flip-flops (an idle engine's power is its clocked flip-flops; assumption stated in the
   * entry's basis). The per-action energies (MAC, 2:4 MAC, write-back) are per occurrence and kept.
   */
  private EnergyTable scaledIdle(EnergyTable small, PpaResult engine, String why) {
    int r = FALLBACK_ROWS;
    GemmEngineConfig cfg = new GemmEngineConfig(
        new MacArrayConfig(r, r, 32, Math.max(2, Math.min(1024, 4 * r)), 0,
            WeightSparsity.NONE), 4 * r, 4 * r, 2 * r);
    PpaResult calibrated = PpaFlow.run(Verilog.emit(new GemmEngine(cfg)), ppa);
    double ratio = (double) engine.synthesis().flipFlops() / calibrated.synthesis().flipFlops();
    Map<EnergyAction, EnergyTable.Entry> m = new EnumMap<>(small.entries());
    EnergyTable.Entry idle = m.get(EnergyAction.MAC_IDLE);
    m.put(idle.action(), new EnergyTable.Entry(idle.action(), idle.pj180() * ratio, String.format(Locale.ROOT,
        "scaled: %s times the flip-flop ratio %.3f of the NPU's engine %s (%d) to %s (%d), because %s",
        Fmt.num(idle.pj180()) + " pJ of " + calibrated.design(), ratio, engine.design(),
        engine.synthesis().flipFlops(), calibrated.design(), calibrated.synthesis().flipFlops(), why)));
    log.accept(String.format(Locale.ROOT, "  MAC_IDLE scaled by flip-flops x%.3f: %.4g pJ at 180 nm", ratio,
        idle.pj180() * ratio));
    return new EnergyTable(m, small.notMeasured());
  }
}
