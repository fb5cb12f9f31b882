package org.llmnpu.hdl;

import java.util.ArrayList;
import java.util.Collections;
import java.util.Iterator;
import java.util.List;
import java.util.function.IntFunction;
import java.util.function.Supplier;

/** A fixed-size sequence of elements of one type; element {@code i} is named {@code <vec>_<i>}. */
public final class Vec<T extends Data> extends Data implements Iterable<T> {
  private final List<T> elements;

  private Vec(List<T> elements) {
    this.elements = Collections.unmodifiableList(elements);
  }

  /** {@code size} fresh elements from {@code factory}. */
  public static <T extends Data> Vec<T> of(int size, Supplier<T> factory) {
    if (size < 1) {
      throw new ElaborationException(SourceLocation.here(), "Vec size must be >= 1, got " + size);
    }
    List<T> list = new ArrayList<>();
    for (int i = 0; i < size; i++) {
      list.add(factory.get());
    }
    return new Vec<>(list);
  }

  /** Elements built from their index. */
  public static <T extends Data> Vec<T> tabulate(int size, IntFunction<T> factory) {
    List<T> list = new ArrayList<>();
    for (int i = 0; i < size; i++) {
      list.add(factory.apply(i));
    }
    return new Vec<>(list);
  }

  public T get(int i) {
    return elements.get(i);
  }

  public int size() {
    return elements.size();
  }

  public List<T> asList() {
    return elements;
  }

  @Override
  public Iterator<T> iterator() {
    return elements.iterator();
  }

  /** Element at a runtime index (a mux tree); indices past the end read the last element. */
  @SuppressWarnings("unchecked")
  public T read(UInt index) {
    if (!(elements.get(0) instanceof HwValue)) {
      throw new ElaborationException(SourceLocation.here(), "read(UInt) needs a Vec of single values");
    }
    HwValue result = (HwValue) elements.get(size() - 1);
    for (int i = size() - 2; i >= 0; i--) {
      result = Hw.mux(index.eq(i), (HwValue) elements.get(i), result);
    }
    return (T) result;
  }

  @Override
  public List<HwValue> leaves() {
    List<HwValue> out = new ArrayList<>();
    for (T e : elements) {
      out.addAll(e.leaves());
    }
    return out;
  }

  @Override
  @SuppressWarnings("unchecked")
  public Vec<T> copyType() {
    List<T> list = new ArrayList<>();
    for (T e : elements) {
      T c = (T) e.copyType();
      c.flipped = e.flipped;
      list.add(c);
    }
    return new Vec<>(list);
  }
}
