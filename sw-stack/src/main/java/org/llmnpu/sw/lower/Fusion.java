package org.llmnpu.sw.lower;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import org.llmnpu.isa.Command;
import org.llmnpu.isa.ErrorCause;
import org.llmnpu.isa.IsaSimulator;
import org.llmnpu.isa.MachineParams;
import org.llmnpu.isa.Program;

/**
 * How much of the paper's fusion the lowering emits ({@code --fusion}):
 * <ul>
 *   <li>{@link #NONE}: the lowering as it was before the fused datapath: weights staged in the scratchpad by a DMA
 *   load and copied into the engine by the GEMM, INT32 results dequantized on the Vector DSP. It already has the
 *   horizontal fusions that need no new hardware: Q/K/V one GEMM over concatenated weight columns (K and V narrower
 *   with GQA) and W1|W3 (gate and up) one GEMM ({@link LoweredModel}).</li>
 *   <li>{@link #VERTICAL}: + weights streamed from memory into the array ({@code gemm wStream=1}, {@code wInt4=1}
 *   for INT4 weights, packed N:M metadata for 2:4) and the GEMM epilogue through the PPM ({@code ppm=1}).</li>
 *   <li>{@link #FULL}: + attention without round trips (QKᵀ, scale/mask, SoftMax on the DSP, P·V kept in the
 *   scratchpad).</li>
 * </ul>
 * A level needs the NPU to execute its commands: {@link #requireSupported} asks the golden ISA simulator whether the
 * NPU runs them (its checks answer {@link ErrorCause#UNSUPPORTED} for a datapath the NPU is built without) and
 * refuses with the option and the missing capability named, never falling back to a lower level.
 */
public enum Fusion {
  NONE, VERTICAL, FULL;

  /** The {@code --fusion} values. */
  public static final List<String> NAMES = List.of("none", "vertical", "full");

  /** The option's name for this level. */
  public String optionValue() {
    return name().toLowerCase(Locale.ROOT);
  }

  /** {@code none}, {@code vertical} or {@code full}; else an error naming {@code --fusion} and the allowed values. */
  public static Fusion parse(String value) {
    if (value != null && NAMES.contains(value)) {
      return valueOf(value.toUpperCase(Locale.ROOT));
    }
    throw new IllegalArgumentException("--fusion: '" + value + "' is not allowed; allowed: " + String.join(", ", NAMES));
  }

  /**
   * The NPU capabilities this level needs for block weights of {@code bits} bits that {@code machine} lacks, each
   * named as the command operand the golden simulator refuses on it (empty: the NPU runs this level).
   */
  public List<String> missingCapabilities(MachineParams machine, int bits) {
    List<String> missing = new ArrayList<>();
    if (this == NONE) {
      return missing;
    }
    int line = machine.lineBytes();
    if (!runs(machine, new Command.Gemm(1, line, line, 0, line, 0, line, 2L * line, 4L * line, Command.DENSE, 0, 1, 0,
        0))) {
      missing.add("gemm wStream=1 (weights streamed from external memory into the array)");
    } else if (bits == 4 && !runs(machine, new Command.Gemm(1, line, line, 0, line, 0, line, 2L * line, 4L * line,
        Command.DENSE, 0, 1, 1, 0))) {
      missing.add("gemm wStream=1 wInt4=1 (INT4 weights on the stream)");
    }
    if (!machine.hasPpm() || !runs(machine, new Command.Gemm(1, line, line, 0, line, 0, line, 2L * line, line,
        Command.DENSE, 0, 0, 0, 1))) {
      missing.add("gemm ppm=1 (GEMM results through the PPM to INT8)");
    }
    return missing;
  }

  /**
   * Refuses a level {@code machine} cannot run: an error naming {@code --fusion}, the level and each missing
   * capability.
   */
  public void requireSupported(MachineParams machine, int bits) {
    List<String> missing = missingCapabilities(machine, bits);
    if (!missing.isEmpty()) {
      throw new IllegalArgumentException("--fusion " + optionValue() + " needs " + String.join(" and ", missing)
          + ", which this NPU does not execute (npu-isa answers UNSUPPORTED: the datapath is not built into it); "
          + "use --fusion none, or an NPU built with the fused datapath");
    }
  }

  /** Whether one command (after a PPU table when the NPU has a PPU) runs on {@code p} without UNSUPPORTED. */
  private static boolean runs(MachineParams p, Command c) {
    MachineParams small = new MachineParams(p.rows(), p.lineBytes(), p.spadBytes(), p.spadBanks(), 1L << 20, p.mTile(),
        p.accWidth(), p.icAccumDepth(), p.maxM(), p.maxK(), p.maxN(), p.memLatency(), p.memBytesPerCycle(),
        p.watchdogCycles(), p.dsp(), p.weightRowsPerCycle(), p.ppmLatency(), p.ppu(), p.sparsity(), p.mxLoad(),
        p.commandQueueDepth());
    Program.Builder b = Program.builder();
    if (p.ppu()) {
      b.ppuTab(4096);
    }
    b.add(c).halt();
    byte[] memory = new byte[(int) small.extMemBytes()];
    byte[] program = b.build().bytes();
    System.arraycopy(program, 0, memory, 0, program.length);
    return IsaSimulator.run(small, memory, 0).error() != ErrorCause.UNSUPPORTED;
  }
}
