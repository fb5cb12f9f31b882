package org.llmnpu.soc;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.llmnpu.sw.estimate.ModelShapes;
import org.llmnpu.sw.model.ModelConfig;

/**
 * Costs one stage on one backend choice, operator by operator: {@code cpu} and {@code gpu} (rooflines), {@code npu}
 * (our lowering: the whole step one program, one submission) and {@code npu-per-op} (one graph per operator, as
 * llama.cpp's NPU backend submits them: seed 001's setting). On the NPU choices the operators the NPU lacks
 * ({@code --npu paper}: those of the paper's NPU backend) fall back to the CPU: the CPU's call, the tensors copied
 * out and back ({@link HostCosts#copyGBs}) unless the shared-buffer path is used, and a driver synchronization
 * each way; in {@code npu} mode each fallback also splits the program (one more submission).
 */
final class StageCosting {
  /** The backend choices of a stage. */
  static final List<String> CHOICES = List.of("cpu", "gpu", "npu", "npu-per-op");

  private final SocPreset preset;
  private final Optional<RooflineBackend> cpu;
  private final Optional<RooflineBackend> gpu;
  private final NpuBackend npu;
  private final boolean sharedBuffer;
  private final List<Operator.Kind> npuLacks;

  StageCosting(SocPreset preset, boolean withCpu, boolean withGpu, NpuBackend npu, boolean sharedBuffer,
               List<Operator.Kind> npuLacks) {
    this.preset = preset;
    double bits = preset.host().bitsPerWeight().value();
    this.cpu = withCpu ? Optional.of(new RooflineBackend(preset.cpu(), bits)) : Optional.empty();
    this.gpu = withGpu ? preset.gpu().map(g -> new RooflineBackend(g, bits)) : Optional.empty();
    this.npu = npu;
    this.sharedBuffer = sharedBuffer;
    this.npuLacks = List.copyOf(npuLacks);
    if (!npuLacks.isEmpty() && cpu.isEmpty()) {
      throw new IllegalArgumentException("--npu paper: operators the NPU lacks fall back to the CPU; --backends must "
          + "include cpu");
    }
  }

  Optional<RooflineBackend> cpu() {
    return cpu;
  }

  NpuBackend npu() {
    return npu;
  }

  Optional<RooflineBackend> gpu() {
    return gpu;
  }

  /** The operators of a stage costed on {@code choice}, or empty when that backend is absent. */
  Optional<List<Costed>> cost(String choice, ModelShapes.Shape shape, OperatorGraph.Stage stage, int promptLen,
                             NpuBackend.Program program) {
    ModelConfig c = shape.config();
    List<Operator> ops = OperatorGraph.of(c, stage, promptLen);
    List<Costed> out = new ArrayList<>();
    switch (choice) {
      case "cpu", "gpu" -> {
        Optional<RooflineBackend> b = choice.equals("cpu") ? cpu : gpu;
        if (b.isEmpty()) {
          return Optional.empty();
        }
        ops.forEach(op -> out.add(new Costed(op, b.get().call(op, c).times(op.calls()))));
      }
      case "npu", "npu-per-op" -> {
        boolean perOp = choice.equals("npu-per-op");
        HostCosts h = preset.host();
        double clock = npu.clockHz();
        double programS = 0;
        for (Operator op : ops) {
          if (npuLacks.contains(op.kind())) {
            out.add(new Costed(op, fallback(op, c, !perOp).times(op.calls())));
            continue;
          }
          double opS = program.opCycles().get(op.name()) / clock;
          double energy = program.energyJ() * program.opCycles().get(op.name()) / program.cycles();
          programS += opS;
          if (perOp) {
            double comm = h.commandStreamUs().value() * 1e-6 * op.calls()
                + (sharedBuffer ? 0 : activationBytes(op, c) * op.calls() / (h.copyGBs().value() * 1e9));
            double dispatch = h.perOpDispatchUs().value() * 1e-6 * op.calls();
            double callS = opS + dispatch + comm;
            out.add(new Costed(op, new OpCost(opS, callS, comm, energy + (dispatch + comm) * hostW(), "npu")));
          } else {
            out.add(new Costed(op, new OpCost(opS, opS, 0, energy, "npu")));
          }
        }
        if (!perOp) {
          double submit = (h.submissionUs().value() + h.commandStreamUs().value()) * 1e-6;
          out.add(new Costed(new Operator("program_submission", Operator.Kind.ADD, 0, 0, 0, 0, 1),
              new OpCost(0, submit, h.commandStreamUs().value() * 1e-6, submit * hostW(), "host")));
        }
      }
      default -> throw new IllegalArgumentException("backend choice must be one of " + CHOICES + ", got " + choice);
    }
    return Optional.of(out);
  }

  /** The CPU's power charged while it dispatches or waits (the CPU roofline's active power). */
  private double hostW() {
    return preset.cpu().activeW().value();
  }

  /**
   * One call of {@code op} falling back from the NPU to the CPU: the CPU's call, its input and output copied
   * unless the buffers are shared, a driver synchronization each way, and in program mode one more submission.
   */
  OpCost fallback(Operator op, ModelConfig c, boolean splitsProgram) {
    HostCosts h = preset.host();
    OpCost onCpu = cpu.orElseThrow().call(op, c);
    double copy = sharedBuffer ? 0 : 2 * activationBytes(op, c) / (h.copyGBs().value() * 1e9);
    double sync = 2 * h.driverSyncUs().value() * 1e-6 + h.commandStreamUs().value() * 1e-6;
    double submit = splitsProgram ? h.submissionUs().value() * 1e-6 : h.perOpDispatchUs().value() * 1e-6;
    double comm = copy + sync;
    double callS = onCpu.callS() + comm + submit;
    return new OpCost(onCpu.opS(), callS, comm, onCpu.energyJ() + (comm + submit) * hostW()
        + (sharedBuffer ? 0 : 2 * activationBytes(op, c) * h.dramPjPerByte().value() * 1e-12), "cpu (fallback)");
  }

  /** Bytes of an operator's activations in and out (FP32 rows; attention: Q in, output out, K/V of its rows). */
  static double activationBytes(Operator op, ModelConfig c) {
    return switch (op.kind()) {
      case MATMUL -> 4.0 * op.m() * (op.k() + op.n());
      case ATTENTION -> 4.0 * op.m() * (2.0 * c.dim() + 2.0 * c.kvDim());
      default -> 8.0 * op.m() * op.n();
    };
  }

  /** An operator and its cost over all its calls. */
  record Costed(Operator op, OpCost cost) {
  }
}
