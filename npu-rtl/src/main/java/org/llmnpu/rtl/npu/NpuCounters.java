package org.llmnpu.rtl.npu;

import static org.llmnpu.hdl.Hw.mux;
import static org.llmnpu.hdl.Hw.uint;
import static org.llmnpu.hdl.Hw.uintLit;

import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import org.llmnpu.hdl.Bool;
import org.llmnpu.hdl.UInt;
import org.llmnpu.isa.Counter;

/** The performance counters of the {@link Npu}: one 48-bit register per {@link Counter}, cleared at start. */
final class NpuCounters {
  private static final int BITS = 48;
  private final Npu npu;
  private final Map<Counter, UInt> regs = new EnumMap<>(Counter.class);
  private final Map<Counter, List<Bool>> conditions = new EnumMap<>(Counter.class);
  private final Map<Counter, List<UInt>> amounts = new EnumMap<>(Counter.class);

  NpuCounters(Npu npu) {
    this.npu = npu;
    for (Counter c : Counter.values()) {
      regs.put(c, npu.reg0("counter_" + c.key(), uint(BITS)));
      conditions.put(c, new ArrayList<>());
      amounts.put(c, new ArrayList<>());
    }
  }

  void count(Counter c, Bool when) {
    add(c, when, uintLit(1, 1));
  }

  void add(Counter c, Bool when, UInt amount) {
    conditions.get(c).add(when);
    amounts.get(c).add(amount);
  }

  /** The value each counter takes at the next edge (without the clear), in {@link Counter} order. */
  List<UInt> nextValues() {
    return nexts;
  }

  private final List<UInt> nexts = new ArrayList<>();

  /** Emits every counter's update: cleared when {@code clear}, else incremented by its amounts. */
  void clearOn(Bool clear) {
    for (Counter c : Counter.values()) {
      UInt r = regs.get(c);
      UInt next = r;
      List<Bool> cond = conditions.get(c);
      for (int i = 0; i < cond.size(); i++) {
        UInt a = amounts.get(c).get(i).resize(BITS);
        next = next.add(mux(cond.get(i), a, uintLit(0, BITS)));
      }
      UInt sum = npu.wireOf("counter_" + c.key() + "_next", next);
      nexts.add(sum);
      npu.whenElse(clear, () -> r.set(uintLit(0, BITS)), () -> r.set(sum));
    }
  }

  UInt select(UInt sel) {
    UInt out = uintLit(0, 64);
    for (Counter c : Counter.values()) {
      out = mux(sel.eq(c.ordinal()), regs.get(c).resize(64), out);
    }
    return out;
  }
}
