package org.llmnpu.reports.estimate;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.llmnpu.reports.energy.EnergyEstimate;
import org.llmnpu.reports.energy.EnergyTable;
import org.llmnpu.reports.ppa.NodeScaling;
import org.llmnpu.rtl.npu.NpuConfig;
import org.llmnpu.sw.estimate.CycleEstimate;
import org.llmnpu.sw.estimate.CycleEstimator;
import org.llmnpu.sw.lower.Fusion;
import org.llmnpu.sw.estimate.ModelShapes;
import org.llmnpu.sw.lower.PhaseCost;
import org.llmnpu.sw.lower.WeightFormats;

/**
 * An architect's estimate of LLM inference on an NPU: TTFT, TPOT and tokens/s at the target's clock, the array's
 * prefill utilization, the decode step's bandwidth utilization and DRAM bytes, each unit's busy share, and energy per
 * token from a calibrated energy table. Cycles and counters come from {@code sw-stack}'s {@link CycleEstimator}
 * (the lowering's command sequence through the RTL-validated cycle model); energy is those counters times the table
 * ({@link EnergyEstimate}, as {@code npu report npu} charges the co-simulated decoder's counters).
 *
 * @param target  the NPU and its clock (with any unit the format needs added, see {@code notes})
 * @param cycles  the prefill's and the decode step's counters
 * @param fusion  the lowering's fusion asked for ({@code none}: the unfused lowering; what was applied is
 *                {@link CycleEstimate#fusion})
 * @param energy  the energy of both phases, or null without an energy table
 * @param notes   what the figures assume, for the reader
 */
public record NpuEstimate(EstimateTarget target, CycleEstimate cycles, String fusion, Energy energy, List<String> notes) {
  /**
   * Allowed {@code --qkv-scales} values: {@code dynamic} (each token's absmax, the default) or {@code static}
   * (calibrated per-tensor scales and the QKV post tile by tile, {@link CycleEstimator#estimate(ModelShapes.Shape,
   * org.llmnpu.isa.MachineParams, String, int, Fusion, boolean)}).
   */
  public static final List<String> QKV_SCALES = List.of("dynamic", "static");
  /** Allowed {@code --fusion} values ({@link Fusion}). */
  public static final List<String> FUSIONS = Fusion.NAMES;
  /** Allowed {@code --node} values (nm). */
  public static final List<Integer> NODES = List.of(180, 45, 7);

  public NpuEstimate {
    notes = List.copyOf(notes);
  }

  /**
   * What to estimate.
   *
   * @param model        a named shape ({@link ModelShapes#NAMES}) or a directory with a config.json
   * @param preset       a shipped NPU ({@link EstimateTarget#PRESETS})
   * @param config       a file overriding the preset's fields, or null
   * @param promptLen    prompt tokens
   * @param quant        block weight format ({@link CycleEstimator#QUANTS})
   * @param fusion       {@code none}, {@code vertical} or {@code full} ({@link Fusion}; what the NPU cannot fuse falls
   *                     back to the unfused commands, said in the notes and {@link CycleEstimate#fusion})
   * @param bandwidthGbs external-memory bandwidth replacing the target's, or null
   * @param energyTable  an {@code energy.json} of {@code npu report energy}, or null for no energy
   * @param nodeNm       process node of the energy figures: 180, 45 or 7
   * @param params       NPU parameters by name ({@code -p name=value}) over the preset's and the file's
   */
  public record Options(String model, String preset, Path config, int promptLen, String quant, String fusion,
                        Double bandwidthGbs, Path energyTable, int nodeNm, Map<String, String> params,
                        String qkvScales) {
    public Options {
      params = Map.copyOf(params);
      if (!QKV_SCALES.contains(qkvScales)) {
        throw new IllegalArgumentException("--qkv-scales: '" + qkvScales + "' is not allowed; allowed: "
            + String.join(", ", QKV_SCALES));
      }
    }

    /** Options with each token's q/k/v scales ({@code --qkv-scales dynamic}). */
    public Options(String model, String preset, Path config, int promptLen, String quant, String fusion,
                   Double bandwidthGbs, Path energyTable, int nodeNm, Map<String, String> params) {
      this(model, preset, config, promptLen, quant, fusion, bandwidthGbs, energyTable, nodeNm, params, "dynamic");
    }

    /** Options without {@code -p} parameters. */
    public Options(String model, String preset, Path config, int promptLen, String quant, String fusion,
                   Double bandwidthGbs, Path energyTable, int nodeNm) {
      this(model, preset, config, promptLen, quant, fusion, bandwidthGbs, energyTable, nodeNm, Map.of());
    }
  }

  /** Energy of both phases at a node, and the table it came from. */
  public record Energy(NodeScaling.Node node, String table, EnergyEstimate prefill, EnergyEstimate decode) {
  }

  /**
   * Runs the estimate.
   *
   * @throws IllegalArgumentException naming the option and what it allows
   */
  public static NpuEstimate run(Options o) {
    Fusion fusion = Fusion.parse(o.fusion());
    if (!NODES.contains(o.nodeNm())) {
      throw new IllegalArgumentException("--node: " + o.nodeNm() + " is not allowed; allowed: 180, 45, 7 (nm)");
    }
    ModelShapes.Shape shape = ModelShapes.of(o.model());
    CycleEstimator.checkOptions(shape.config(), o.quant(), o.promptLen());
    EnergyTable table = o.energyTable() == null ? null : readTable(o.energyTable());
    EstimateTarget target = EstimateTarget.load(o.preset(), o.config(), o.params());
    if (o.bandwidthGbs() != null) {
      target = target.withBandwidthGbs(o.bandwidthGbs());
    }
    List<String> notes = new ArrayList<>();
    target = withUnitsFor(target, o.quant(), notes);
    CycleEstimate c = CycleEstimator.estimate(shape, target.npu().machine(), o.quant(), o.promptLen(), fusion,
        o.qkvScales().equals("static"));
    notes.add(0, "staging: " + c.staging().meaning + (c.stagingReason().isEmpty() ? "" : ", because "
        + c.stagingReason()));
    notes.add(1, "fusion: " + c.fusion().summary());
    int at = 2;
    if (o.qkvScales().equals("static")) {
      notes.add(at++, "qkv: " + c.qkvPost());
    }
    notes.add(at, "prefill: " + c.prefillOrder());
    Energy energy = null;
    if (table != null) {
      NodeScaling.Node node = NodeScaling.Node.valueOf("N" + o.nodeNm());
      EnergyEstimate.Shape es = energyShape(target);
      energy = new Energy(node, o.energyTable().toString(), EnergyEstimate.of(table, node, counters(c.prefill(), es), es),
          EnergyEstimate.of(table, node, counters(c.decode(), es), es));
      notes.add("energy: the phases' counters times the table read from " + o.energyTable() + " at " + o.nodeNm()
          + " nm; idle is charged as cycles x MAC_IDLE (the whole NPU's flip-flops need its synthesis: a lower bound)");
    } else {
      notes.add("energy: not computed; give --energy-table FILE (energy.json written by npu report energy -o DIR)");
    }
    return new NpuEstimate(target, c, o.fusion(), energy, notes);
  }

  /**
   * The target with the units the format needs: a 2:4 array for s2_4, MX decoding on the load path for MX formats
   * (each change noted in {@code notes}).
   */
  public static EstimateTarget withUnitsFor(EstimateTarget t, String quant, List<String> notes) {
    NpuConfig npu = t.npu();
    if (!npu.engine().equals("systolic")) {
      throw new IllegalArgumentException("--config: engine " + npu.engine() + " is not estimated (the cost model has the "
          + "systolic engine's timing); allowed: engine systolic");
    }
    if (WeightFormats.sparsity(quant) == org.llmnpu.isa.Command.S2_4 && !npu.sparsity().equals("2:4")) {
      npu = npu.withSparsity("2:4");
      notes.add("--quant s2_4: the MAC array is built for 2:4 (sparsity: 2:4 instead of " + t.npu().sparsity() + ")");
    }
    if (WeightFormats.mx(quant) >= 0 && !npu.mxLoad()) {
      npu = npu.withMxLoad(true);
      notes.add("--quant " + quant + ": MX decoding on the load path added (mxLoad: true)");
    }
    return npu == t.npu() ? t : new EstimateTarget(t.name(), npu, t.clockMhz(), t.source());
  }

  private static EnergyTable readTable(Path file) {
    try {
      return EnergyTable.fromJson(Files.readString(file), "--energy-table " + file);
    } catch (IOException e) {
      throw new IllegalArgumentException("--energy-table: cannot read " + file + ": " + e.getMessage(), e);
    }
  }

  private static EnergyEstimate.Shape energyShape(EstimateTarget t) {
    NpuConfig n = t.npu();
    int lineBits = 8 * n.rows();
    int bankWords = (int) (n.spadKiB() * 1024L / n.spadBanks() / n.rows());
    return new EnergyEstimate.Shape(lineBits, bankWords, n.sparsity().equals("2:4"), 1000 / t.clockMhz(), n.dspLanes(),
        0, n.ppu(), 0, 0);
  }

  /**
   * The counters as {@link EnergyEstimate} reads them. On a 2:4 array every GEMM runs as a 2:4 one (a dense GEMM of
   * K as one of 2K), so each executed MAC ({@code macs}) is a 2:4 action; {@link EnergyEstimate} charges
   * {@code macs / 2} of them on a 2:4 shape, hence twice the executed count.
   */
  private static Map<String, Long> counters(PhaseCost phase, EnergyEstimate.Shape shape) {
    Map<String, Long> m = new LinkedHashMap<>(phase.counters());
    if (shape.sparse24()) {
      m.put("macs", 2 * phase.macs());
    }
    return m;
  }

  /** Seconds of {@code cycles} at the target's clock. */
  public double seconds(long cycles) {
    return cycles / (target.clockMhz() * 1e6);
  }

  /** Time to first token: the prefill of the prompt, the LM head of its last token included. */
  public double ttftS() {
    return seconds(cycles.prefill().cycles());
  }

  /** Time per output token: one decode step at position {@code promptLen}. */
  public double tpotS() {
    return seconds(cycles.decode().cycles());
  }

  public double tokensPerS() {
    return 1 / tpotS();
  }

  /** Energy of a decode step (one generated token), J; null without a table. */
  public Double energyPerTokenJ() {
    return energy == null ? null : energy.decode().joules();
  }

  /** Energy of the prefill per prompt token, J; null without a table. */
  public Double prefillEnergyPerTokenJ() {
    return energy == null ? null : energy.prefill().joules() / cycles.promptLen();
  }
}
