package org.llmnpu.soc;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.llmnpu.isa.CycleFormulas;
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
 * <p>Per-operator figures are an attribution of that program's cycles in two pools. The program's Vector DSP cycles
 * (its {@code DSP_CYCLES} counter) go to the work that runs on the DSP — the light operators and attention's softmax
 * — and the rest of its cycles to the work on the array — the matrix products and attention's QKᵀ and PV products.
 * Within a pool each operator's standalone cycle-model cost sets its share (matrix products: {@link NpuGemmCost};
 * attention's products: per head on {@link NpuGemmCost}; DSP work: its FP16 rows into and out of the DSP at the
 * copies' line rate, {@link CycleFormulas#dspCopyCycles}, plus its operations over the lanes), scaled so that the
 * pool adds up to the program's cycles in it. A runtime that submits one graph per operator (llama.cpp's NPU
 * backend, seed 001) pays the dispatch per operator on top.
 */
public final class NpuBackend {
  /** The energy table shipped with the module: written by {@code npu report energy} on 2026-12-03. */
  static final String ENERGY_RESOURCE = "npu-energy.json";
  /** Bytes of an element the Vector DSP computes on (FP16). */
  private static final int FP16_BYTES = 2;

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
    return of(EstimateTarget.load(preset, null), quant, fusion);
  }

  /** The NPU {@code target} with the shipped energy table at 7 nm. */
  static NpuBackend of(EstimateTarget target, String quant, Fusion fusion) {
    return new NpuBackend(target, shippedTable(), NodeScaling.Node.N7, quant, fusion);
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
    Map<String, Standalone> cost = new LinkedHashMap<>();
    double arraySum = 0;
    double dspSum = 0;
    for (Operator op : ops) {
      Standalone s = standalone(op, shape.config());
      cost.put(op.name(), new Standalone(s.array() * op.calls(), s.dsp() * op.calls()));
      arraySum += s.array() * op.calls();
      dspSum += s.dsp() * op.calls();
    }
    // a pool without work folds into the other one, so the attribution always adds up to the program
    double dspPool = dspSum == 0 ? 0 : arraySum == 0 ? phase.cycles() : Math.min(phase.dspCycles(), phase.cycles());
    double arrayScale = arraySum == 0 ? 0 : (phase.cycles() - dspPool) / arraySum;
    double dspScale = dspSum == 0 ? 0 : dspPool / dspSum;
    Map<String, Double> attributed = new LinkedHashMap<>();
    cost.forEach((name, s) -> attributed.put(name, s.array() * arrayScale + s.dsp() * dspScale));
    return new Program(phase.cycles(), energy.joules(), phase, attributed);
  }

  /**
   * One call of an operator run alone on the NPU, split by where it runs: {@code array} the cycles of its matrix
   * products (GEMM commands with their loads and stores), {@code dsp} the cycles of its Vector DSP work.
   */
  public record Standalone(double array, double dsp) {
    public double cycles() {
      return array + dsp;
    }
  }

  /**
   * One call of {@code op} run alone on the NPU: matrix products on the cycle model ({@link NpuGemmCost}); DSP work
   * as its FP16 rows copied in and out at the copies' line rate ({@link CycleFormulas#dspCopyCycles}; an add reads two
   * rows) plus its operations over the lanes; attention's softmax reads and writes its scores the same way and
   * takes five operations an element.
   */
  public Standalone standalone(Operator op, ModelConfig c) {
    MachineParams p = target.npu().machine();
    int lanes = p.dsp().lanes();
    return switch (op.kind()) {
      case MATMUL -> new Standalone(gemm.cycles(op.m(), op.k(), op.n()), 0);
      case ATTENTION -> {
        int keys = (int) Math.max(1, op.ctx() / op.m());
        double products = 2.0 * c.heads() * new NpuGemmCost(gemm.machine(), false).cycles(op.m(), c.headDim(), keys);
        long rows = (long) c.heads() * op.m();
        double softmax = 2.0 * CycleFormulas.dspCopyCycles(p, rows, keys, FP16_BYTES) + 1
            + (double) rows * keys * 5.0 / lanes;
        yield new Standalone(products, softmax);
      }
      default -> {
        int inputs = op.kind() == Operator.Kind.ADD ? 2 : 1;
        double copies = (inputs + 1.0) * CycleFormulas.dspCopyCycles(p, op.m(), op.n(), FP16_BYTES) + inputs;
        yield new Standalone(0, copies + op.ops(c.headDim(), c.heads()) / lanes);
      }
    };
  }

  private EnergyEstimate.Shape energyShape() {
    NpuConfig n = target.npu();
    int bankWords = (int) (n.spadKiB() * 1024L / n.spadBanks() / n.rows());
    return new EnergyEstimate.Shape(8 * n.rows(), bankWords, n.sparsity().equals("2:4"), 1000 / target.clockMhz(),
        n.dspLanes(), 0, n.ppu(), 0, 0);
  }
}
