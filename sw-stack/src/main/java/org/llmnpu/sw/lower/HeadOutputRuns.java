package org.llmnpu.sw.lower;

import java.util.ArrayList;
import java.util.List;
import org.llmnpu.sw.model.ModelConfig;

/**
 * Which heads' P·V results one {@code dspin} takes into the DSP ({@link BatchedAttention}'s outputs at
 * {@code --fusion full}, issue 32). Query (h, t)'s INT32 result row lies at byte {@link #offset} of the P·V results
 * ({@code queryRow(h, t)·outStride + 4·col}: a row per query, KV head g's queries a block of {@code blockMax·groupSize}
 * rows, the head's columns from {@code col = headDim·g mod line}) and goes to DSP rows from {@code rO + h·hdRows}.
 *
 * <p>A {@code dspin} of several rows writes them as one flat vector, so heads {@code h .. h + k − 1} go in one flat
 * {@code dspin} of k rows of headDim elements when a head's results fill whole DSP rows (head dim a multiple of
 * the lanes: head h + 1 then starts at row {@code rO + (h + 1)·hdRows}, as one by one), and otherwise in one
 * {@code dspin} with the DSP row stride {@code hdRows} (2026-12-06: each head from lane 0 of its own rows), wherever
 * their rows lie evenly apart (the {@code dspin}'s spadStride, a multiple of the line as every address is). With one query head per KV head
 * (LLaMA-2-7B) that is every head of a token, {@code blockMax·outStride} apart: one {@code dspin} where there were
 * {@code heads}; with grouped queries a KV head's {@code groupSize} heads, a row apart. The values and their DSP rows are
 * those of the one-head {@code dspin}s (the same INT32 → FP16 conversion with the same shift); only the commands
 * differ: {@code k·ceil(headDim/E) + 1} cycles and one dispatch instead of k of each. Results that start off a line
 * ({@link #lead}) are read with the columns before them, in runs of heads of the same lead.
 */
final class HeadOutputRuns {
  private HeadOutputRuns() {
  }

  /**
   * Byte offset where query (h, t)'s P·V results are read in a K chunk's results (rows {@code outStride} bytes apart):
   * from its first result, or where that is off a line, from the {@link #lead} columns before it (the row's start).
   */
  static long offset(ModelConfig c, int line, int blockMax, long outStride, int h, int t) {
    long row = BatchedAttentionLayout.queryRow(c, blockMax, h, t);
    int col = c.headDim() * (h / c.groupSize()) % line;
    return row * outStride + 4L * (col - lead(c, line, h));
  }

  /**
   * Columns read before query head h's results ({@link HeadWindows}): 0 where they start on a line, else their column
   * in the line (stories260K's odd KV heads on a 64-byte line: 8), moved down in the DSP afterwards.
   */
  static int lead(ModelConfig c, int line, int h) {
    int g = h / c.groupSize();
    return HeadWindows.onALine(c, line, g) ? 0 : HeadWindows.column(c, line, g);
  }

  /**
   * Token t's heads {@code h0 .. h0 + count − 1} in runs that one {@code dspin} each takes: {first head, heads,
   * spadStride, DSP row stride} (a lone head's spadStride {@code outStride}, as before). Where a head's results fill
   * whole DSP rows the flat vector already puts each head at its rows (DSP row stride 0); else a run of several heads
   * takes the DSP row stride {@code ceil(headDim / lanes)}, the rows between two heads' starts.
   */
  static List<long[]> runs(ModelConfig c, int lanes, int line, int blockMax, long outStride, int t, int h0,
                           int count) {
    List<long[]> runs = new ArrayList<>();
    long hdRows = (c.headDim() + lanes - 1) / lanes;
    // a run's heads share their lead (the elements each dspin row takes)
    int from = h0;
    while (from < h0 + count) {
      int lead = lead(c, line, from);
      int to = from + 1;
      while (to < h0 + count && lead(c, line, to) == lead) {
        to++;
      }
      boolean wholeRows = lead + c.headDim() == hdRows * lanes;
      for (long[] run : EvenRuns.of(from, to - from, h -> offset(c, line, blockMax, outStride, h, t), line)) {
        boolean lone = run[1] == 1;
        runs.add(new long[] {run[0], run[1], lone ? outStride : run[2], lone || wholeRows ? 0 : hdRows});
      }
      from = to;
    }
    return runs;
  }
}
