package org.llmnpu.hdl;

import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A record of named signals. Subclasses declare {@code public final} fields of Data types;
 * a field made with {@code .flip()} flows against the bundle's direction (e.g. {@code ready}
 * of a stream). Leaves are named {@code <bundle>_<field>}.
 */
public abstract class Bundle extends Data {

  /** Field name to element, superclass fields first, in declaration order. */
  public Map<String, Data> elements() {
    Map<String, Data> out = new LinkedHashMap<>();
    List<Class<?>> chain = new ArrayList<>();
    for (Class<?> c = getClass(); c != Bundle.class; c = c.getSuperclass()) {
      chain.add(0, c);
    }
    for (Class<?> c : chain) {
      for (Field f : c.getDeclaredFields()) {
        if (Modifier.isStatic(f.getModifiers()) || !Data.class.isAssignableFrom(f.getType())) {
          continue;
        }
        try {
          f.setAccessible(true);
          Data d = (Data) f.get(this);
          if (d != null) {
            out.put(f.getName(), d);
          }
        } catch (IllegalAccessException e) {
          throw new IllegalStateException("cannot read bundle field " + f, e);
        }
      }
    }
    return out;
  }

  @Override
  public List<HwValue> leaves() {
    List<HwValue> out = new ArrayList<>();
    for (Data d : elements().values()) {
      out.addAll(d.leaves());
    }
    return out;
  }

  /** A fresh copy made with the bundle's no-argument constructor; override for bundles with parameters. */
  @Override
  public Data copyType() {
    try {
      var ctor = getClass().getDeclaredConstructor();
      ctor.setAccessible(true);
      return (Data) ctor.newInstance();
    } catch (ReflectiveOperationException e) {
      throw new ElaborationException(SourceLocation.here(), getClass().getSimpleName()
          + " has no no-argument constructor: override copyType() to make a fresh copy");
    }
  }

  /**
   * Bulk connection {@code this <> source} as seen from the module doing it: forward
   * elements flow from {@code source} into {@code this}, flipped ones from {@code this}
   * back into {@code source}. Both must have the same structure.
   */
  public void connectFrom(Bundle source) {
    Connect.connect(this, source);
  }
}
