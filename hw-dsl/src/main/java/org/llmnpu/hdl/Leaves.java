package org.llmnpu.hdl;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/** Flattens an aggregate into its single values with their path names and accumulated flips. */
final class Leaves {
  private Leaves() {
  }

  /** One single value inside an aggregate. */
  record Leaf(HwValue value, boolean flipped, String path) {
  }

  static List<Leaf> of(Data root) {
    List<Leaf> out = new ArrayList<>();
    walk(root, false, "", out);
    return out;
  }

  private static void walk(Data d, boolean flip, String path, List<Leaf> out) {
    boolean f = flip ^ d.isFlipped();
    if (d instanceof HwValue v) {
      out.add(new Leaf(v, f, path));
    } else if (d instanceof Bundle b) {
      for (Map.Entry<String, Data> e : b.elements().entrySet()) {
        walk(e.getValue(), f, path + "_" + e.getKey(), out);
      }
    } else if (d instanceof Vec<?> v) {
      for (int i = 0; i < v.size(); i++) {
        walk(v.get(i), f, path + "_" + i, out);
      }
    } else {
      throw new IllegalStateException("unknown Data " + d.getClass());
    }
  }
}
