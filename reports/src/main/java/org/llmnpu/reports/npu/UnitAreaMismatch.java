package org.llmnpu.reports.npu;

/**
 * The NPU's units, each synthesized on its own, add up to more than the NPU top by more than
 * {@link UnitAreaSplit#TOLERANCE}: the area split would be wrong, so the report is not written.
 */
public final class UnitAreaMismatch extends IllegalStateException {
  private static final long serialVersionUID = 1L;

  public UnitAreaMismatch(String message) {
    super(message);
  }
}
