package org.llmnpu.rtl.ppm;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.ArrayList;
import java.util.List;
import org.llmnpu.hdl.emit.Verilog;
import org.llmnpu.hdl.sim.Simulator;
import org.llmnpu.numerics.ppu.PpuTable;
import org.llmnpu.numerics.requant.RequantParams;
import org.llmnpu.verilator.Simulators;

/**
 * Drives one Verilator model of a {@link Ppm} through its ports: writes channel registers and
 * C-LUT entries, streams rows of accumulators and collects the rows that leave with
 * {@code outValid}, checking on every cycle that {@code outValid} is {@code inValid} delayed by
 * {@link PpmConfig#latency()}.
 */
final class PpmBench implements AutoCloseable {
  private final PpmConfig config;
  private final Simulator sim;

  PpmBench(PpmConfig config) {
    this.config = config;
    this.sim = Simulators.start(Verilog.emit(new Ppm(config)), PpmToolchain.localSimulation());
    sim.reset(2);
  }

  PpmConfig config() {
    return config;
  }

  Simulator simulator() {
    return sim;
  }

  /** Writes lane j's bias and requantization parameters, one lane per cycle. */
  void loadChannels(int[] bias, RequantParams[] params) {
    for (int j = 0; j < config.cols(); j++) {
      RequantParams p = params[j];
      sim.poke("cfgWrite", 1);
      sim.poke("cfgLane", j);
      sim.poke("cfgBias", bias[j]);
      sim.poke("cfgMultiplier", p.multiplier().multiplier());
      sim.poke("cfgShift", p.multiplier().shift());
      sim.poke("cfgZeroPoint", p.outputZeroPoint());
      if (config.activation() == PpmConfig.Activation.RELU6) {
        sim.poke("cfgSixCode", p.clampMax());
      }
      sim.step();
    }
    sim.poke("cfgWrite", 0);
  }

  /** Writes every C-LUT entry of a table of the configured format, one entry per cycle. */
  void loadTable(PpuTable table) {
    int[] boundaries = table.boundaries();
    for (int i = 0; i < boundaries.length; i++) {
      writeLut(config.lutAddressOfBoundary(i), boundaries[i]);
    }
    for (int s = 0; s < config.segments(); s++) {
      for (int k = 0; k <= config.degree(); k++) {
        writeLut(config.lutAddressOfCoefficient(s, k), table.coefficient(s, k));
      }
    }
    for (int k = 0; k <= config.degree(); k++) {
      writeLut(config.lutAddressOfFracBits(k), table.fracBits(k));
    }
    sim.poke("lutWrite", 0);
  }

  private void writeLut(int address, int data) {
    sim.poke("lutWrite", 1);
    sim.poke("lutAddress", address);
    sim.poke("lutData", data);
    sim.step();
  }

  /**
   * Streams the rows (each {@code cols} accumulators) with {@code inValid} high on the cycles
   * where {@code valid} is true (idle cycles in between carry garbage data), then drains the
   * pipeline. Returns the rows seen with {@code outValid}, in order.
   */
  List<int[]> stream(List<int[]> rows, boolean[] validPattern) {
    int latency = config.latency();
    List<Boolean> sent = new ArrayList<>();
    List<int[]> out = new ArrayList<>();
    int next = 0;
    int cycle = 0;
    int doneAt = rows.isEmpty() ? 0 : Integer.MAX_VALUE;
    while (cycle < doneAt) {
      boolean valid = next < rows.size() && validPattern[cycle % validPattern.length];
      sim.poke("inValid", valid ? 1 : 0);
      int[] row = valid ? rows.get(next++) : null;
      if (valid && next == rows.size()) {
        doneAt = cycle + 1 + latency;
      }
      for (int j = 0; j < config.cols(); j++) {
        sim.poke("inAcc_" + j, row != null ? row[j] : 0x5A5A5A5A ^ (cycle * 7919 + j));
      }
      sent.add(valid);
      sim.step();
      cycle++;
      boolean expectValid = cycle - latency >= 0 && sent.get(cycle - latency);
      assertEquals(expectValid ? 1 : 0, sim.peekLong("outValid"), "outValid at cycle " + cycle);
      if (expectValid) {
        int[] y = new int[config.cols()];
        for (int j = 0; j < config.cols(); j++) {
          y[j] = sim.peekSigned("outData_" + j).intValueExact();
        }
        out.add(y);
      }
    }
    sim.poke("inValid", 0);
    return out;
  }

  /** Streams the rows back to back. */
  List<int[]> stream(List<int[]> rows) {
    return stream(rows, new boolean[] {true});
  }

  @Override
  public void close() {
    sim.close();
  }
}
