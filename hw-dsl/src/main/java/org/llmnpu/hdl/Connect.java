package org.llmnpu.hdl;

import java.util.List;

/** Bulk connection of two aggregates of the same structure. */
final class Connect {
  private Connect() {
  }

  static void connect(Data sink, Data source) {
    List<Leaves.Leaf> s = Leaves.of(sink);
    List<Leaves.Leaf> r = Leaves.of(source);
    if (s.size() != r.size()) {
      throw new ElaborationException(SourceLocation.here(), "cannot connect aggregates of different shape: "
          + s.size() + " vs " + r.size() + " elements");
    }
    for (int i = 0; i < s.size(); i++) {
      Leaves.Leaf a = s.get(i);
      Leaves.Leaf b = r.get(i);
      if (!a.path().equals(b.path())) {
        throw new ElaborationException(SourceLocation.here(),
            "cannot connect aggregates: element '" + a.path() + "' meets '" + b.path() + "'");
      }
      if (a.flipped()) {
        b.value().set(a.value());
      } else {
        a.value().set(b.value());
      }
    }
  }
}
