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
 *   for INT4 weights, {@code wInt4=2} group-scaled INT4 for {@code int4-g32}, packed N:M metadata for 2:4) and the feed-forward's GEMM epilogue through the PPM
 *   ({@code ppm=1}, {@link PpmEpilogues}: static calibrated scales, SiLU by the C-LUT) where it applies.</li>
 *   <li>{@link #FULL}: + attention without round trips (QKᵀ, scale/mask, SoftMax on the DSP, P·V kept in the
 *   scratchpad), its P·V batched: one GEMM per KV head over a batch's queries ({@link BatchedAttention}); consecutive
 *   DSP runs joined into one program load ({@link DspChain}).</li>
 * </ul>
 * A level needs the NPU to execute its commands. A level the NPU cannot fully run is not refused: each fusion the
 * NPU (or the weight format) cannot take falls back to the unfused commands for that operator, and {@link #on} says
 * which were not applied and why. The streamed weights are the fused levels' base (the PPM epilogue streams W1|W3,
 * and the fused layout has no staged weight region), so an NPU whose golden simulator answers
 * {@link ErrorCause#UNSUPPORTED} to a streamed GEMM (no MX decoding on the stream, several W rows a cycle, a PiM
 * engine) runs the {@link #NONE} program; the PPM epilogue falls back alone to the DSP path where
 * {@link PpmEpilogues#whyNot} says so.
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
   * The NPU capabilities the programs of this level need for block weights of {@code bits} bits, N:M mode
   * {@code sparsity} and MX format {@code mxFormat} (-1: integer) that {@code machine} lacks, each named as the
   * command operand the golden simulator refuses on it (empty: the NPU runs this level's programs). The lowering
   * emits streamed GEMMs ({@code wStream=1}, {@code wInt4=1} for INT4) at {@link #VERTICAL} and {@link #FULL}.
   */
  public List<String> missingCapabilities(MachineParams machine, int bits, int sparsity, int mxFormat) {
    List<String> missing = new ArrayList<>();
    if (this == NONE) {
      return missing;
    }
    int line = machine.lineBytes();
    if (mxFormat >= 0 && mxFormat != org.llmnpu.isa.MxLoad.INT8) {
      missing.add("MX element decoding on the weight stream (gemm wStream=1 reads INT8 or INT4 codes; this format's "
          + "elements are decoded only by loadmx)");
    }
    if (!runs(machine, streamed(line, sparsity, 0))) {
      missing.add(sparsity == Command.DENSE ? "gemm wStream=1 (weights streamed from external memory into the array)"
          : "gemm wStream=1 with N:M weights (packed metadata on the weight stream)");
    } else if (bits == 4 && !runs(machine, streamed(line, sparsity, 1))) {
      missing.add("gemm wStream=1 wInt4=1 (INT4 weights on the stream)");
    }
    return missing;
  }

  /** A streamed GEMM of one line of K and N ({@code wInt4} 0 or 1) for the probe. */
  private static Command.Gemm streamed(int line, int sparsity, int int4) {
    return new Command.Gemm(1, line, line, 0, line, 0, line, 2L * line, 4L * line, sparsity, 0, 1, int4, 0);
  }

  /**
   * The level the lowering applies on {@code machine} when this one is asked for: this level when the NPU runs its
   * streamed GEMMs, else {@link #NONE} (see the class comment).
   */
  public Fusion appliedOn(MachineParams machine, int bits, int sparsity, int mxFormat) {
    return missingCapabilities(machine, bits, sparsity, mxFormat).isEmpty() ? this : NONE;
  }

  /**
   * What a lowering asked for this level applies on {@code machine} to block weights of {@code bits} bits, group
   * {@code weightGroup} (0: per channel), N:M mode {@code sparsity} and MX format {@code mxFormat} (-1: integer) over
   * a model dimension {@code dim}: the level applied and each fusion not applied, with why.
   */
  public Applied on(MachineParams machine, int dim, int bits, int weightGroup, int sparsity, int mxFormat) {
    List<String> notApplied = new ArrayList<>();
    if (this == NONE) {
      return new Applied(this, this, notApplied);
    }
    List<String> missing = missingCapabilities(machine, bits, sparsity, mxFormat);
    if (!missing.isEmpty()) {
      notApplied.add("streamed weights: this NPU lacks " + String.join(" and ", missing));
      notApplied.add("feed-forward epilogue on the PPM" + (this == FULL ? " and batched P·V" : "")
          + ": built on the streamed weights' layout (the program is --fusion none's)");
      return new Applied(this, NONE, notApplied);
    }
    List<String> why = PpmEpilogues.whyNot(machine, dim, weightGroup, sparsity, mxFormat);
    if (!why.isEmpty()) {
      notApplied.add("feed-forward epilogue on the PPM: " + String.join("; ", why)
          + " (dequantization and SwiGLU on the DSP, as at --fusion none)");
    }
    return new Applied(this, this, notApplied);
  }

  /**
   * The fusion a lowering applies.
   *
   * @param requested  the level asked for ({@code --fusion})
   * @param applied    the level whose program runs: {@code requested}, or {@link #NONE} when the NPU cannot stream
   *                   weights
   * @param notApplied each fusion of {@code requested} that the program does not apply, with why (empty: all applied)
   */
  public record Applied(Fusion requested, Fusion applied, List<String> notApplied) {
    public Applied {
      notApplied = List.copyOf(notApplied);
    }

    /** One line for an architect: the level, and what of it was not applied and why. */
    public String summary() {
      String level = "--fusion " + requested.optionValue();
      if (requested == NONE) {
        return level + ": nothing fused, as asked";
      }
      if (notApplied.isEmpty()) {
        return level + ": every fusion applied";
      }
      return level + (applied == requested ? "" : ", run as " + applied.optionValue()) + "; not applied: "
          + String.join("; ", notApplied);
    }
  }

  /** Whether one command runs on {@code p} (with a small memory) without UNSUPPORTED. */
  private static boolean runs(MachineParams p, Command c) {
    MachineParams small = p.withExtMemBytes(1L << 20); // the probe uses neither the PPM nor a kept X
    Program.Builder b = Program.builder();
    b.add(c).halt();
    byte[] memory = new byte[(int) small.extMemBytes()];
    byte[] program = b.build().bytes();
    System.arraycopy(program, 0, memory, 0, program.length);
    return IsaSimulator.run(small, memory, 0).error() != ErrorCause.UNSUPPORTED;
  }
}
