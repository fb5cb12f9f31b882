package org.llmnpu.sw.lower;

import org.llmnpu.isa.MachineParams;

/**
 * How much of the NPU's external memory a lowered model's memory image holds. The layout puts its regions from address
 * 0 up (the command area, tables, weights, caches, logits), the DSP program pool after them and the PPM epilogues'
 * data ({@link PpmEpilogues}) at the layout's top. On an NPU whose external memory a JVM byte array can hold
 * ({@link #MAX_BYTES}) the top is the memory's end and the image is the whole memory, as the golden simulator has
 * always run it. On a larger one (edge-64: 4 GiB) the top is where the program's data ends — the regions, a DSP program
 * pool of {@link #BOUNDED_POOL_BYTES}, the epilogue data — and the image holds only that: a <em>bounded image</em>,
 * which the golden simulator runs as the beginning of the NPU's memory ({@code IsaSimulator#run}: a command that
 * reaches beyond it is an error of the run, not of the NPU). Programs and results are the same as on an NPU with just
 * that much memory; only the DSP pool's and the epilogue data's addresses differ from a whole-memory layout.
 *
 * <p>Programs without DSP programs or epilogue data ({@code GemmProgram}, {@code EstimationProgram}) bound their
 * image with {@link #dataImageLength}: the whole memory, or on a larger NPU their data rounded up to the line.
 */
public final class MemoryImage {
  /** The largest image: a JVM byte array holds up to {@code Integer.MAX_VALUE − 8} bytes; a multiple of 4 KiB. */
  static final long MAX_BYTES = (Integer.MAX_VALUE - 8L) / 4096 * 4096;
  /** The DSP program pool of a bounded image (external-memory bytes for the programs the steps place). */
  static final long BOUNDED_POOL_BYTES = 64L << 20;

  private MemoryImage() {
  }

  /**
   * The layout's top of external memory on {@code machine}: its end, or on an NPU beyond {@link #MAX_BYTES} the end of
   * a bounded image whose regions end at {@code regionsEnd} and whose epilogue data takes {@code epilogueBytes}.
   */
  static long top(MachineParams machine, long regionsEnd, long epilogueBytes) {
    long end = machine.extMemBytes();
    if (end <= MAX_BYTES) {
      return end;
    }
    long line = machine.lineBytes();
    return Math.min(end, (regionsEnd + BOUNDED_POOL_BYTES + epilogueBytes + line - 1) / line * line);
  }

  /**
   * The length of the image of a program whose data (commands, operands, results) ends at {@code dataEnd} and that
   * places no DSP programs and no epilogue data: the NPU's whole external memory when a byte array holds it ({@link
   * #MAX_BYTES}), else {@code dataEnd} rounded up to the line (a bounded image); an error when that is too large too.
   */
  public static int dataImageLength(MachineParams machine, long dataEnd) {
    long end = machine.extMemBytes();
    if (dataEnd > end) {
      throw new IllegalArgumentException("the program's data ends at byte " + dataEnd + ", past the NPU's " + end
          + " bytes of external memory (extMemMiB)");
    }
    long line = machine.lineBytes();
    return length(end <= MAX_BYTES ? end : Math.min(end, (dataEnd + line - 1) / line * line), machine);
  }

  /** The length of the image of a layout whose top is {@code top}, or an error when no byte array holds it. */
  static int length(long top, MachineParams machine) {
    if (top > MAX_BYTES) {
      throw new IllegalStateException("the lowered model's memory image needs " + top + " bytes (weights, caches, "
          + "DSP programs, epilogue data), more than a JVM byte array holds (" + MAX_BYTES + "); the NPU's "
          + machine.extMemBytes() + " bytes of external memory are not the limit: a golden run needs a smaller model, "
          + "context or weight format");
    }
    return (int) top;
  }
}
