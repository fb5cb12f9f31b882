package org.llmnpu.rtl.ppm;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.llmnpu.hdl.emit.Verilog;
import org.llmnpu.hdl.sim.Simulator;
import org.llmnpu.numerics.requant.Activation;
import org.llmnpu.numerics.requant.GatedRequantizer;
import org.llmnpu.numerics.requant.OutputFormat;
import org.llmnpu.numerics.requant.QuantizedMultiplier;
import org.llmnpu.numerics.requant.RequantParams;
import org.llmnpu.numerics.requant.Requantizer;
import org.llmnpu.verilator.Simulators;

/**
 * Verilator: the gated requantizer lane ({@link RequantUnit} streamed and gated, the SwiGLU gate's arithmetic) equals
 * {@code numerics} {@link GatedRequantizer#requantize} bit for bit on {@link RequantUnit#gatedQ}, and
 * {@code Requantizer.requantize} on {@link RequantUnit#q}, for a new element every cycle with its own channel and gate
 * (random and corner cases: gate −128, 127, 0; saturating biases; the widest right shifts; zero points), at the
 * documented latencies ({@code stages}, {@code stages + 2}); 6, 7 and the default 8 stages.
 */
class GatedRequantLaneTest {

  private record Element(int acc, int bias, RequantParams params, int gate) {
  }

  @Test
  void gatedLaneEqualsTheGoldenOnRandomAndCornerElements() {
    for (int stages : new int[] {8, 7, 6}) {
      RequantUnit lane = new RequantUnit(8, PpmConfig.Activation.PPU, stages, true, true);
      assertEquals(stages + 3, lane.gatedLatency());
      try (Simulator sim = Simulators.start(Verilog.emit(lane), PpmToolchain.localSimulation())) {
        // no reset: the lane is registers without reset, every output checked is an element's
        List<Element> elements = elements(new Random(3100 + stages));
        int n = elements.size();
        int[] q = new int[n];
        int[] gated = new int[n];
        for (int cycle = 0; cycle < n + stages + 3; cycle++) {
          if (cycle < n) {
            Element e = elements.get(cycle);
            sim.poke("acc", e.acc());
            sim.poke("bias", e.bias());
            sim.poke("multiplier", e.params().multiplier().multiplier());
            sim.poke("shift", e.params().multiplier().shift());
            sim.poke("zeroPoint", e.params().outputZeroPoint());
            sim.poke("gate", e.gate());
          }
          sim.step();
          int qIndex = cycle + 1 - stages;
          int gIndex = cycle + 1 - (stages + 3);
          if (qIndex >= 0 && qIndex < n) {
            q[qIndex] = sim.peekSigned("q").intValueExact();
          }
          if (gIndex >= 0 && gIndex < n) {
            gated[gIndex] = sim.peekSigned("gatedQ").intValueExact();
          }
        }
        for (int i = 0; i < n; i++) {
          Element e = elements.get(i);
          assertEquals(Requantizer.requantize(e.acc(), e.bias(), e.params()), q[i], "q of element " + i);
          assertEquals(GatedRequantizer.requantize(e.acc(), e.gate(), e.bias(), e.params()), gated[i],
              "gatedQ of element " + i + " " + e + " stages " + stages);
        }
      }
    }
  }

  private static List<Element> elements(Random r) {
    List<Element> list = new ArrayList<>();
    int[] gates = {-128, 127, 0, -1, 1, 64};
    for (int i = 0; i < 600; i++) {
      int shift = i % 50 == 0 ? -31 : r.nextInt(40) - 31;
      int multiplier = i % 37 == 0 ? Integer.MAX_VALUE : (1 << 30) + r.nextInt(1 << 30);
      RequantParams p = new RequantParams(new QuantizedMultiplier(multiplier, shift), r.nextInt(256) - 128,
          OutputFormat.INT8, Activation.NONE, 0);
      int acc = i % 11 == 0 ? (r.nextBoolean() ? Integer.MAX_VALUE : Integer.MIN_VALUE) : r.nextInt(1 << (1 + r.nextInt(30)));
      int bias = i % 13 == 0 ? Integer.MAX_VALUE : r.nextInt(4001) - 2000;
      int gate = i % 3 == 0 ? gates[(i / 3) % gates.length] : r.nextInt(256) - 128;
      list.add(new Element(r.nextBoolean() ? acc : -acc, bias, p, gate));
    }
    return list;
  }
}
