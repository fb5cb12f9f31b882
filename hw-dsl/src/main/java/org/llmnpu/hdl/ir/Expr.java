package org.llmnpu.hdl.ir;

import org.llmnpu.hdl.Kind;

/** A node of the expression graph: a value of a fixed width and kind. */
public abstract sealed class Expr permits Signal, Literal, Op, MemRead {
  public final int width;
  public final Kind kind;

  protected Expr(int width, Kind kind) {
    if (width < 1) {
      throw new IllegalArgumentException("width must be >= 1, got " + width);
    }
    this.width = width;
    this.kind = kind;
  }
}
