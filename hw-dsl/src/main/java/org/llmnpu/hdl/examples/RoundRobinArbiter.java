package org.llmnpu.hdl.examples;

import static org.llmnpu.hdl.Hw.bits;
import static org.llmnpu.hdl.Hw.bool;
import static org.llmnpu.hdl.Hw.catLsbFirst;
import static org.llmnpu.hdl.Hw.log2Ceil;
import static org.llmnpu.hdl.Hw.mux;
import static org.llmnpu.hdl.Hw.priorityEncoder;
import static org.llmnpu.hdl.Hw.uint;

import java.util.ArrayList;
import java.util.List;
import org.llmnpu.hdl.Bits;
import org.llmnpu.hdl.Bool;
import org.llmnpu.hdl.HwModule;
import org.llmnpu.hdl.UInt;
import org.llmnpu.hdl.gen.DeclaredGenerator;
import org.llmnpu.hdl.gen.ParamSpec;

/**
 * Round-robin arbiter over {@code ports} requesters. Combinational grant: the first
 * requester after the last one served (wrapping), one-hot in {@code grant} and binary in
 * {@code grantIndex}; {@code valid} when anyone requests. The pointer advances in cycles
 * where {@code valid} and {@code accept} are high, so every requester is served within
 * {@code ports} grants.
 */
public final class RoundRobinArbiter extends HwModule {
  /** {@code ports} in 2..64. */
  public record Config(int ports) {
    public Config {
      if (ports < 2 || ports > 64) {
        throw new IllegalArgumentException("ports must be in 2..64, got " + ports);
      }
    }
  }

  public final Bits requests;
  public final Bool accept = in(bool());
  public final Bits grant;
  public final UInt grantIndex;
  public final Bool valid = out(bool());
  private final Config config;

  public RoundRobinArbiter(Config c) {
    config = c;
    int n = c.ports();
    int idx = Math.max(1, log2Ceil(n));
    requests = in(bits(n));
    grant = out(bits(n));
    grantIndex = out(uint(idx));

    UInt last = regInit("last", uint(idx), n - 1);
    List<Bool> after = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      after.add(last.lt(i));
    }
    Bits afterLast = wire("afterLast", catLsbFirst(after));
    Bits masked = wire("masked", requests.and(afterLast));
    UInt winner = wire("winner", mux(masked.orR(), priorityEncoder(masked), priorityEncoder(requests)));

    List<Bool> oneHot = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      oneHot.add(winner.eq(i).and(requests.bit(i)));
    }
    grant.set(catLsbFirst(oneHot));
    grantIndex.set(winner);
    valid.set(requests.orR());
    when(valid.and(accept), () -> last.set(winner));
  }

  @Override
  public String moduleName() {
    return "RoundRobinArbiter_n" + config.ports();
  }

  /** Registers {@code arbiter}. */
  public static final class Generator extends DeclaredGenerator {
    public Generator() {
      super("arbiter", "round-robin arbiter with one-hot and binary grant",
          List.of(ParamSpec.integer("ports", 4, 2, 64, "number of requesters")),
          p -> new RoundRobinArbiter(new Config(p.getInt("ports"))));
    }
  }
}
