package org.llmnpu.rtl.npu;

import java.util.Optional;
import org.llmnpu.isa.Counter;

/**
 * Which performance counter counts the cycles each of the {@link Npu}'s clock gates is open
 * ({@code clockGating on}), for the energy of the gated units' flip-flops.
 *
 * <ul>
 *   <li>{@code gemmEngine} (the GEMM engine): open exactly in the GEMM unit's busy cycles, {@link Counter#GEMM_CYCLES}
 *       (operand copies, start, array run, drain).</li>
 *   <li>{@code dspUnit} (the Vector DSP): open in the DSP commands' cycles, {@link Counter#DSP_CYCLES}, and for
 *       {@link NpuDsp#DSP_GATE_TRAIL} cycles after each run of them (dspin's trailing buffer writes, the lanes'
 *       pipelines settling); the counter leaves those trailing cycles out.</li>
 *   <li>{@code ppmUnit} (the line-rate PPM): open in the PPM commands' cycles, {@link Counter#PPM_CYCLES}, in the
 *       cycles a fused GEMM ({@code gemm ppm=1}) feeds it drain lines, and for the pipeline's latency + 2 cycles
 *       after each run of them. The counter leaves out the trailing cycles and the fused drains' lines (those are
 *       in {@link Counter#GEMM_CYCLES}), so a fused GEMM's PPM clock is charged short by its drain lines.</li>
 * </ul>
 * All gates are also open for the {@value Npu#GATE_WARMUP_CYCLES} cycles after reset (not counted: once per reset).
 */
public final class NpuClockGates {
  private NpuClockGates() {
  }

  /** The counter of the cycles the gate {@code bank} (its path in the design, sections included) is open. */
  public static Optional<Counter> enableCounter(String bank) {
    String name = bank.substring(bank.lastIndexOf('_') + 1);
    return switch (name) {
      case "gemmEngine" -> Optional.of(Counter.GEMM_CYCLES);
      case "dspUnit" -> Optional.of(Counter.DSP_CYCLES);
      case "ppmUnit" -> Optional.of(Counter.PPM_CYCLES);
      default -> Optional.empty();
    };
  }
}
