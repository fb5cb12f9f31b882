package org.llmnpu.rtl.vector;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.llmnpu.hdl.Hw.catLsbFirst;
import static org.llmnpu.hdl.Hw.uint;

import java.math.BigInteger;
import java.util.ArrayList;
import java.util.List;
import java.util.function.BiFunction;
import java.util.function.Function;
import java.util.function.IntBinaryOperator;
import java.util.function.Supplier;
import org.llmnpu.hdl.HwModule;
import org.llmnpu.hdl.UInt;
import org.llmnpu.hdl.sim.Simulator;

/**
 * {@value #LANES} copies of a combinational 32-bit lane unit side by side on wide ports: a shared
 * {@code op} (and {@code format}, if the unit has one), lane i's operands and result at bits
 * 32i+31..32i of {@code a}, {@code b}, {@code result}. One round trip then checks {@value #LANES}
 * vectors, which is what makes the exhaustive tests fast.
 */
final class LaneBank extends HwModule {
  static final int LANES = 32;

  /** One unit's ports; {@code format} is null for a unit without one. */
  record Ports(UInt op, UInt format, UInt a, UInt b, UInt result) {
  }

  final UInt op;
  final UInt format;
  final UInt a = in(uint(32 * LANES));
  final UInt b = in(uint(32 * LANES));
  final UInt result = out(uint(32 * LANES));
  private final String name;

  <M extends HwModule> LaneBank(String name, int opBits, int formatBits, Supplier<M> unit, Function<M, Ports> ports) {
    this.name = name;
    op = in("op", uint(opBits));
    format = formatBits == 0 ? null : in("format", uint(formatBits));
    List<UInt> results = new ArrayList<>();
    for (int i = 0; i < LANES; i++) {
      Ports p = ports.apply(instance("unit_" + i, unit.get()));
      p.op().set(op);
      if (format != null) {
        p.format().set(format);
      }
      p.a().set(a.slice(32 * i + 31, 32 * i));
      p.b().set(b.slice(32 * i + 31, 32 * i));
      results.add(p.result());
    }
    result.set(catLsbFirst(results).asUInt());
  }

  @Override
  public String moduleName() {
    return name + "Bank" + LANES;
  }

  /**
   * Applies the pairs {a, b} {@value #LANES} at a time (op and format already poked), compares
   * every lane with {@code golden} and returns how many were compared; a mismatch fails with
   * {@code describe(a, b)}.
   */
  static int run(Simulator sim, List<int[]> pairs, IntBinaryOperator golden, BiFunction<Integer, Integer, String> describe) {
    int compared = 0;
    for (int start = 0; start < pairs.size(); start += LANES) {
      List<int[]> batch = pairs.subList(start, Math.min(pairs.size(), start + LANES));
      BigInteger got = apply(sim, batch);
      for (int l = 0; l < batch.size(); l++) {
        int x = batch.get(l)[0];
        int y = batch.get(l)[1];
        int expected = golden.applyAsInt(x, y);
        int actual = lane(got, l);
        if (expected != actual) {
          assertEquals(String.format("0x%08x", expected), String.format("0x%08x", actual), describe.apply(x, y));
        }
        compared++;
      }
    }
    return compared;
  }

  /** Pokes one batch (at most {@value #LANES} pairs) and returns the packed results. */
  static BigInteger apply(Simulator sim, List<int[]> batch) {
    sim.poke("a", pack(batch, 0));
    sim.poke("b", pack(batch, 1));
    return sim.peek("result");
  }

  /** Lane l's 32-bit result. */
  static int lane(BigInteger packed, int l) {
    return packed.shiftRight(32 * l).intValue();
  }

  /** Packs element {@code which} of each pair, lane 0 in the least significant bits. */
  private static BigInteger pack(List<int[]> batch, int which) {
    byte[] bytes = new byte[4 * LANES + 1];
    for (int l = 0; l < batch.size(); l++) {
      int v = batch.get(l)[which];
      int at = bytes.length - 1 - 4 * l;
      bytes[at] = (byte) v;
      bytes[at - 1] = (byte) (v >>> 8);
      bytes[at - 2] = (byte) (v >>> 16);
      bytes[at - 3] = (byte) (v >>> 24);
    }
    return new BigInteger(bytes);
  }
}
