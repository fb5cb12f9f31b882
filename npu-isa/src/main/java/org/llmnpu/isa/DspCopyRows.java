package org.llmnpu.isa;

/**
 * Where a {@code dspin}'s or {@code dspout}'s rows sit in the DSP buffer ({@link Command.DspIn}, {@link Command.DspOut}):
 * with DSP row stride 0 the rows packed flat from buffer row {@code row0} (row r's element e is buffer element
 * {@code row0·lanes + r·rowElems + e}); with stride k ≥ 1 row r from lane 0 of buffer row {@code row0 + r·k} (element
 * {@code (row0 + r·k)·lanes + e}). The golden copy ({@code DspUnit}), the checks ({@code CommandChecks}) and the
 * lowering's footprints read the rows from here.
 */
public final class DspCopyRows {
  private DspCopyRows() {
  }

  /** Buffer element of row r's first element. */
  public static long rowStart(int lanes, long row0, long stride, long rowElems, long r) {
    return stride == 0 ? row0 * lanes + r * rowElems : (row0 + r * stride) * lanes;
  }

  /** One past the last buffer element the copy touches ({@code rows ≥ 1}). */
  public static long end(int lanes, long row0, long stride, long rowElems, long rows) {
    return rowStart(lanes, row0, stride, rowElems, rows - 1) + rowElems;
  }

  /** Whether a strided copy's rows overlap: more than one row and a row longer than its {@code stride·lanes} elements. */
  public static boolean overlaps(int lanes, long stride, long rowElems, long rows) {
    return stride != 0 && rows > 1 && rowElems > stride * lanes;
  }
}
