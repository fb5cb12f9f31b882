package org.llmnpu.sw.lower;

import org.llmnpu.sw.model.ModelConfig;

/**
 * Where a head's parts lie against the DSP's rows and the scratchpad's lines, and the rules the lowering's layouts
 * need of them. <b>Halves</b>: the q codes' halves go to rows of their own ({@code scatter}), so headDim/2 must divide
 * the lanes or be a multiple of them ({@link #requireUnfused}). <b>P·V results</b>: P·V of KV head g is a GEMM over
 * the line-aligned window of the cached V rows that holds its columns (from column {@code headDim·g} rounded down to
 * the line), so the head's INT32 results start {@link #column} columns, {@code 4·column} bytes, into a Y line. A
 * {@code dspin} starts on a line: on lines up to 32 bytes (headDim a multiple of 8) they always do; on longer lines,
 * where they do not (stories260K's odd KV heads on a 64-byte line: 32 bytes in), the lowering reads the columns before
 * them too and moves them down to lane 0 ({@link DspRoutines#headsDown}), which needs them to fit one DSP row: the
 * unfused lowering head by head, the batched attention ({@code --fusion full}) in {@link HeadOutputRuns}' runs.
 */
final class HeadWindows {
  private HeadWindows() {
  }

  /** The column of KV head g's first result in its P·V GEMM's window. */
  static int column(ModelConfig c, int line, int g) {
    return c.headDim() * g % line;
  }

  /** Whether KV head g's P·V results start on a scratchpad line. */
  static boolean onALine(ModelConfig c, int line, int g) {
    return 4 * column(c, line, g) % line == 0;
  }

  /** Throws {@link IllegalArgumentException} with the reason, if any, the lowering cannot lay out the heads. */
  static void requireUnfused(ModelConfig c, int line, int lanes) {
    int half = c.headDim() / 2;
    if (half % lanes != 0 && lanes % half != 0) {
      throw new IllegalArgumentException("headDim/2 (" + half + ") must divide the DSP lanes " + lanes
          + " or be a multiple of them");
    }
    String whyNot = pvResultsWhyNot(c, line, lanes);
    if (whyNot != null) {
      throw new IllegalArgumentException(whyNot);
    }
  }

  /** Why the lowering cannot read some KV head's P·V results into its DSP row, or null. */
  static String pvResultsWhyNot(ModelConfig c, int line, int lanes) {
    for (int g = 1; g < c.kvHeads(); g++) {
      int col = column(c, line, g);
      if (!onALine(c, line, g) && col + c.headDim() > lanes) {
        return "the P·V results of KV head " + g + " start " + 4 * col + " bytes into a " + line + "-byte scratchpad "
            + "line, and with the " + col + " columns before them (" + (col + c.headDim()) + ") they do not fit one "
            + "DSP row (" + lanes + " lanes), in which they are moved down: 4·headDim (" + 4 * c.headDim() + ") must be "
            + "a multiple of the line, or headDim·g mod line + headDim at most the lanes";
      }
    }
    return null;
  }
}
