package org.llmnpu.soc;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.llmnpu.isa.MachineParams;
import org.llmnpu.reports.energy.EnergyEstimate;
import org.llmnpu.reports.energy.EnergyTable;
import org.llmnpu.reports.estimate.EstimateTarget;
import org.llmnpu.reports.ppa.NodeScaling;
import org.llmnpu.rtl.npu.NpuConfig;
import org.llmnpu.sw.estimate.CycleEstimate;
import org.llmnpu.sw.estimate.CycleEstimator;
import org.llmnpu.sw.estimate.ModelShapes;
import org.llmnpu.sw.lower.Fusion;
import org.llmnpu.sw.lower.PhaseCost;
import org.llmnpu.sw.model.ModelConfig;

/**
 * Our NPU in the SoC. A stage's program is the lowering's command stream costed by {@link CycleEstimator} on the
 * RTL-validated cycle model at the target's clock (exactly what {@code npu estimate} reports), its energy the
 * program's counters times the energy table ({@link EnergyEstimate}). The host adds a submission and a command
 * stream per program ({@link HostCosts}).
 *
 * <p>Per-operator figures are an attribution of that program's cycles: every operator's standalone cost on the
 * cycle model (matrix products: {@link NpuGemmCost}; attention: its QKᵀ and PV products per head plus the softmax
 * on the Vector DSP; light operators: their elements into and out of the DSP and their operations over its lanes)
 * sets its share, and the shares are scaled so that they add up to the program's cycles. A runtime that submits
 * one graph per operator (llama.cpp's NPU backend, seed 001) pays the dispatch per operator on top.
 */
public final class NpuBackend {
  /** The energy table shipped with the module: written by {@code npu report energy} on 2026-12-03. */
  static final String ENERGY_RESOURCE = "npu-energy.json";

  private final EstimateTarget target;
  private final EnergyTable table;
  private final NodeScaling.Node node;
  private final String quant;
  private final Fusion fusion;
  private final NpuGemmCost gemm;

  /**
   * @param target the NPU and its clock
   * @param table  energy per action
   * @param node   process node of the energy figures
   * @param quant  block weight format ({@link CycleEstimator#QUANTS})
   * @param fusion the lowering's fusion level
   */
  public NpuBackend(EstimateTarget target, EnergyTable table, NodeScaling.Node node, String quant, Fusion fusion) {
    this.target = target;
    this.table = table;
    this.node = node;
    this.quant = quant;
    this.fusion = fusion;
    this.gemm = new NpuGemmCost(target.npu().machine(), quant.startsWith("int4"));
  }

  /** The NPU of estimate preset {@code preset} with the shipped energy table at 7 nm. */
  public static NpuBackend of(String preset, String quant, Fusion fusion) {
    return new NpuBackend(EstimateTarget.load(preset, null), shippedTable(), NodeScaling.Node.N7, quant, fusion);
  }

  static EnergyTable shippedTable() {
    try (InputStream in = NpuBackend.class.getResourceAsStream(ENERGY_RESOURCE)) {
      if (in == null) {
        throw new IllegalStateException("the NPU energy table is missing from the build (" + ENERGY_RESOURCE + ")");
      }
      return EnergyTable.fromJson(new String(in.readAllBytes(), StandardCharsets.UTF_8), ENERGY_RESOURCE);
    } catch (IOException e) {
      throw new IllegalStateException("the NPU energy table cannot be read: " + e.getMessage(), e);
    }
  }

  public EstimateTarget target() {
    return target;
  }

  public NpuGemmCost gemm() {
    return gemm;
  }

  public double clockHz() {
    return target.clockMhz() * 1e6;
  }

  /**
   * A stage's program and its per-operator attribution.
   *
   * @param cycles  the program's cycles (the cycle model's)
   * @param energyJ the program's energy
   * @param phase   every counter of the program
   * @param opCycles each operator's attributed cycles over all its calls (adds up to {@code cycles})
   */
  public record Program(long cycles, double energyJ, PhaseCost phase, Map<String, Double> opCycles) {
  }

  /** The prefill of {@code promptLen} tokens or the decode step at that position. */
  public Program program(ModelShapes.Shape shape, OperatorGraph.Stage stage, int promptLen) {
    MachineParams p = target.npu().machine();
    CycleEstimate e = CycleEstimator.estimate(shape, p, quant, promptLen, fusion);
    PhaseCost phase = stage == OperatorGraph.Stage.PREFILL ? e.prefill() : e.decode();
    EnergyEstimate energy = EnergyEstimate.of(table, node, phase.counters(), energyShape());
    List<Operator> ops = OperatorGraph.of(shape.config(), stage, promptLen);
    Map<String, Double> weight = new LinkedHashMap<>();
    double sum = 0;
    for (Operator op : ops) {
      double w = standaloneCycles(op, shape.config()) * op.calls();
      weight.put(op.name(), w);
      sum += w;
    }
    double scale = phase.cycles() / sum;
    Map<String, Double> attributed = new LinkedHashMap<>();
    weight.forEach((name, w) -> attributed.put(name, w * scale));
    return new Program(phase.cycles(), energy.joules(), phase, attributed);
  }

  /** Cycles of one call of {@code op} run alone on the NPU (the attribution's weight). */
  public double standaloneCycles(Operator op, ModelConfig c) {
    int lanes = target.npu().machine().dsp().lanes();
    return switch (op.kind()) {
      case MATMUL -> gemm.cycles(op.m(), op.k(), op.n());
      case ATTENTION -> {
        int keys = (int) Math.max(1, op.ctx() / op.m());
        double products = 2.0 * c.heads() * new NpuGemmCost(gemm.machine(), false).cycles(op.m(), c.headDim(), keys);
        double softmax = (double) c.heads() * op.m() * keys * (2.0 + 5.0 / lanes);
        yield products + softmax;
      }
      default -> 2.0 * op.m() * op.n() + op.ops(c.headDim(), c.heads()) / lanes;
    };
  }

  private EnergyEstimate.Shape energyShape() {
    NpuConfig n = target.npu();
    int bankWords = (int) (n.spadKiB() * 1024L / n.spadBanks() / n.rows());
    return new EnergyEstimate.Shape(8 * n.rows(), bankWords, n.sparsity().equals("2:4"), 1000 / target.clockMhz(),
        n.dspLanes(), 0, n.ppu(), 0, 0);
  }
}
