package org.llmnpu.hdl;

import java.util.List;

/**
 * Anything that can be a port, wire or register: a single hardware value ({@link HwValue})
 * or an aggregate ({@link Bundle}, {@link Vec}). Before it is declared in a module a Data is
 * only a type; declaring it ({@code in}, {@code out}, {@code wire}, {@code reg}) binds it.
 */
public abstract class Data {
  /** Whether this element is flipped relative to its enclosing bundle (e.g. {@code ready}). */
  boolean flipped;
  /** Name of the aggregate field or index path, set when an aggregate is bound. */
  String pathName;

  /** The single values inside, in declaration order, each with its accumulated flip. */
  public abstract List<HwValue> leaves();

  /** A fresh, unbound copy of this type (same widths and structure). */
  public abstract Data copyType();

  /** Marks this element as flowing against its bundle's direction. */
  @SuppressWarnings("unchecked")
  public <T extends Data> T flip() {
    flipped = !flipped;
    return (T) this;
  }

  boolean isFlipped() {
    return flipped;
  }
}
