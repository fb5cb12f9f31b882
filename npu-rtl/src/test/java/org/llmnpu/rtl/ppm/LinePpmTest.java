package org.llmnpu.rtl.ppm;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.llmnpu.hdl.DesignAssertions;
import org.llmnpu.hdl.emit.Verilog;
import org.llmnpu.hdl.sim.Simulator;
import org.llmnpu.numerics.ppu.Ppm;
import org.llmnpu.numerics.ppu.PpuFitter;
import org.llmnpu.numerics.ppu.PpuFunction;
import org.llmnpu.numerics.ppu.PpuTable;
import org.llmnpu.numerics.requant.RequantParams;
import org.llmnpu.verilator.Simulators;

/**
 * Verilator: the line-rate PPM ({@link LinePpm}) equals {@code numerics.ppu.Ppm.process} bit for bit with a
 * different channel group every cycle — random and corner accumulators, biases and parameters (multipliers 0, 2^30,
 * 2^31 − 1, shifts −31..31, zero points at the ends), channels written in random order, with and without the PPU,
 * at every requantizer depth, bubbles in the input — and {@code outValid} is {@code inValid} delayed by
 * {@link LinePpm#latency()} in every cycle. The gated PPM (the SwiGLU gate) too: elements with and without
 * {@code inGated} mixed cycle by cycle, each equal to {@code Ppm.processGated} or {@code Ppm.process}.
 */
class LinePpmTest {
  record Case(PpmConfig config, int channels) {
    @Override
    public String toString() {
      return config.moduleName() + " ch" + channels;
    }
  }

  static Stream<Case> cases() {
    return Stream.of(
        new Case(PpmConfig.of(4, 8, PpmConfig.Activation.PPU), 37),
        new Case(PpmConfig.of(1, 8, PpmConfig.Activation.NONE), 64),
        new Case(PpmConfig.of(2, 8, PpmConfig.Activation.PPU).withStages(7, 3), 8),
        new Case(PpmConfig.of(4, 8, PpmConfig.Activation.NONE).withStages(6, 5), 20));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("cases")
  void everyGroupOfEveryCycleEqualsPpmProcess(Case c) {
    run(c, false);
  }

  static Stream<Case> gatedCases() {
    return Stream.of(new Case(PpmConfig.of(4, 8, PpmConfig.Activation.PPU), 37),
        new Case(PpmConfig.of(2, 8, PpmConfig.Activation.PPU).withStages(7, 3), 8));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("gatedCases")
  void gatedAndUngatedElementsMixedEqualProcessGatedAndProcess(Case c) {
    run(c, true);
  }

  private static void run(Case c, boolean gated) {
    PpmConfig config = c.config();
    int lanes = config.cols();
    int depth = LinePpm.depth(config, c.channels());
    LinePpm module = new LinePpm(config, c.channels(), 1, gated);
    DesignAssertions.assertLintClean(module, false);
    RequantCases cases = new RequantCases(c.channels() * 31L + lanes, config);
    Random rnd = cases.random();
    try (Simulator sim = Simulators.start(Verilog.emit(new LinePpm(config, c.channels(), 1, gated)),
        PpmToolchain.localSimulation())) {
      sim.reset(2);
      PpuTable table = null;
      for (int round = 0; round < 3; round++) {
        if (config.hasPpu()) {
          table = PpuFitter.fit(PpuFunction.values()[round % PpuFunction.values().length], PpuTables.formatOf(config));
          loadTable(sim, config, table);
        }
        int[] bias = new int[c.channels()];
        RequantParams[] params = new RequantParams[c.channels()];
        List<Integer> order = new ArrayList<>();
        for (int ch = 0; ch < c.channels(); ch++) {
          bias[ch] = cases.bias();
          params[ch] = cases.params();
          order.add(ch);
        }
        java.util.Collections.shuffle(order, rnd);
        for (int ch : order) {
          sim.poke("cfgWrite", 1);
          sim.poke("cfgChannel", ch);
          sim.poke("cfgBias", bias[ch]);
          sim.poke("cfgMultiplier", params[ch].multiplier().multiplier());
          sim.poke("cfgShift", params[ch].multiplier().shift());
          sim.poke("cfgZeroPoint", params[ch].outputZeroPoint());
          sim.step();
        }
        sim.poke("cfgWrite", 0);
        stream(sim, module.latency(), lanes, depth, c.channels(), bias, params, table, rnd, cases, 200, gated);
      }
    }
  }

  private static void stream(Simulator sim, int latency, int lanes, int depth, int channels, int[] bias,
                             RequantParams[] params, PpuTable table, Random rnd, RequantCases cases, int elements,
                             boolean gated) {
    List<int[]> expected = new ArrayList<>();
    List<Boolean> sent = new ArrayList<>();
    int cycle = 0;
    int checked = 0;
    int fed = 0;
    while (fed < elements || checked < expected.size()) {
      boolean valid = fed < elements && rnd.nextInt(5) != 0;
      int group = rnd.nextInt(depth);
      int[] want = new int[lanes];
      sim.poke("inValid", valid ? 1 : 0);
      sim.poke("inGroup", group);
      boolean gate = gated && rnd.nextBoolean();
      if (gated) {
        sim.poke("inGated", gate ? 1 : 0);
      }
      for (int j = 0; j < lanes; j++) {
        int acc = cases.accumulator();
        int code = rnd.nextInt(8) == 0 ? -128 : rnd.nextInt(256) - 128;
        sim.poke("inAcc_" + j, acc);
        if (gated) {
          sim.poke("inGate_" + j, code);
        }
        int ch = group * lanes + j;
        want[j] = ch >= channels ? Integer.MIN_VALUE : gate ? Ppm.processGated(acc, code, bias[ch], params[ch])
            : Ppm.process(acc, bias[ch], params[ch], table);
      }
      if (valid) {
        expected.add(want);
        fed++;
      }
      sent.add(valid);
      sim.step();
      cycle++;
      boolean expectValid = cycle - latency >= 0 && sent.get(cycle - latency);
      assertEquals(expectValid ? 1 : 0, sim.peekLong("outValid"), "outValid at cycle " + cycle);
      if (expectValid) {
        int[] w = expected.get(checked++);
        for (int j = 0; j < lanes; j++) {
          if (w[j] != Integer.MIN_VALUE) {
            assertEquals(w[j], sim.peekSigned("outData_" + j).intValueExact(), "element " + checked + " lane " + j);
          }
        }
      }
    }
    sim.poke("inValid", 0);
  }

  private static void loadTable(Simulator sim, PpmConfig config, PpuTable table) {
    int[] boundaries = table.boundaries();
    for (int i = 0; i < boundaries.length; i++) {
      writeLut(sim, config.lutAddressOfBoundary(i), boundaries[i]);
    }
    for (int s = 0; s < config.segments(); s++) {
      for (int k = 0; k <= config.degree(); k++) {
        writeLut(sim, config.lutAddressOfCoefficient(s, k), table.coefficient(s, k));
      }
    }
    for (int k = 0; k <= config.degree(); k++) {
      writeLut(sim, config.lutAddressOfFracBits(k), table.fracBits(k));
    }
    sim.poke("lutWrite", 0);
  }

  private static void writeLut(Simulator sim, int address, int data) {
    sim.poke("lutWrite", 1);
    sim.poke("lutAddress", address);
    sim.poke("lutData", data);
    sim.step();
  }
}
