package org.llmnpu.hdl.examples;

import static org.llmnpu.hdl.Hw.bitsToHold;
import static org.llmnpu.hdl.Hw.bool;
import static org.llmnpu.hdl.Hw.uint;
import static org.llmnpu.hdl.Hw.uintLit;

import java.util.List;
import org.llmnpu.hdl.Bool;
import org.llmnpu.hdl.HwModule;
import org.llmnpu.hdl.UInt;
import org.llmnpu.hdl.gen.DeclaredGenerator;
import org.llmnpu.hdl.gen.ParamSpec;

/**
 * Modulo counter: counts 0, 1, ..., {@code limit - 1}, 0, ... in cycles where
 * {@code enable} is high; {@code wrap} is high in the cycle the count returns to 0.
 * Reset (synchronous, active high) clears it. Latency: {@code value} is registered.
 */
public final class Counter extends HwModule {
  /** {@code limit} in 2..2^32. */
  public record Config(long limit) {
    public Config {
      if (limit < 2 || limit > (1L << 32)) {
        throw new IllegalArgumentException("limit must be in 2..4294967296, got " + limit);
      }
    }
  }

  public final Bool enable = in(bool());
  public final UInt value;
  public final Bool wrap = out(bool());
  private final Config config;

  public Counter(Config c) {
    config = c;
    int w = bitsToHold(c.limit() - 1);
    value = out(uint(w));
    UInt count = regInit("count", uint(w), 0);
    Bool atEnd = wire("atEnd", count.eq(c.limit() - 1));
    when(enable, () -> when(atEnd, () -> count.set(uintLit(0, w)))
        .otherwise(() -> count.set(count.add(1))));
    value.set(count);
    wrap.set(enable.and(atEnd));
  }

  @Override
  public String moduleName() {
    return "Counter_l" + config.limit();
  }

  /** Registers {@code counter}. */
  public static final class Generator extends DeclaredGenerator {
    public Generator() {
      super("counter", "modulo counter with enable and wrap pulse",
          List.of(ParamSpec.integer("limit", 10, 2, 1L << 32, "count modulo this value")),
          p -> new Counter(new Config(Long.parseLong(p.get("limit")))));
    }
  }
}
