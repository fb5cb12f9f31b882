package org.llmnpu.rtl.vector;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.llmnpu.hdl.Hw.uint;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.llmnpu.hdl.HwModule;
import org.llmnpu.hdl.UInt;
import org.llmnpu.hdl.sim.Simulator;

/**
 * {@link PrefixAdder} equals the wrapping {@code +} and {@code −} of its width in Verilator: every pair at
 * widths 1, 2 and 5 (exhaustive), and at widths 17 and 32 the corner operands (0, 1, all ones, the sign bit,
 * alternating bits, carries that run the whole width) against each other plus 3,000 random pairs, for
 * {@code a + b}, {@code a − b} and {@code a + b + 1}. One model holds all widths side by side.
 */
class PrefixAdderTest {
  static final int[] WIDTHS = {1, 2, 5, 17, 32};

  /** For each width w: inputs a_w, b_w and outputs add_w, sub_w, inc_w. */
  static final class Bank extends HwModule {
    Bank() {
      for (int w : WIDTHS) {
        UInt a = in("a_" + w, uint(w));
        UInt b = in("b_" + w, uint(w));
        out("add_" + w, uint(w)).set(PrefixAdder.add(a, b));
        out("sub_" + w, uint(w)).set(PrefixAdder.subtract(a, b));
        out("inc_" + w, uint(w)).set(PrefixAdder.sum(a, b, true));
      }
    }

    @Override
    public String moduleName() {
      return "PrefixAdderBank";
    }
  }

  @Test
  void equalsTheWrappingSumAtEveryWidth() {
    VectorSim.require("verilator");
    VectorSim.assertLintClean(new Bank(), false);
    try (Simulator sim = VectorSim.start(new Bank())) {
      Random rnd = new Random(17);
      for (int w : WIDTHS) {
        long mask = (1L << w) - 1;
        List<long[]> pairs = new ArrayList<>();
        if (w <= 5) {
          for (long a = 0; a <= mask; a++) {
            for (long b = 0; b <= mask; b++) {
              pairs.add(new long[] {a, b});
            }
          }
        } else {
          long[] corners = {0, 1, mask, mask - 1, 1L << (w - 1), mask >>> 1, 0x5555_5555L & mask, 0xAAAA_AAAAL & mask};
          for (long a : corners) {
            for (long b : corners) {
              pairs.add(new long[] {a, b});
            }
          }
          for (int i = 0; i < 3000; i++) {
            pairs.add(new long[] {rnd.nextLong() & mask, rnd.nextLong() & mask});
          }
        }
        for (long[] p : pairs) {
          sim.poke("a_" + w, p[0]);
          sim.poke("b_" + w, p[1]);
          String at = " at width " + w + " for a=" + Long.toHexString(p[0]) + " b=" + Long.toHexString(p[1]);
          assertEquals((p[0] + p[1]) & mask, sim.peekLong("add_" + w), "a + b" + at);
          assertEquals((p[0] - p[1]) & mask, sim.peekLong("sub_" + w), "a - b" + at);
          assertEquals((p[0] + p[1] + 1) & mask, sim.peekLong("inc_" + w), "a + b + 1" + at);
        }
      }
    }
  }
}
