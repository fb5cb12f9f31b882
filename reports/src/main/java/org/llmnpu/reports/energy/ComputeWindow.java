package org.llmnpu.reports.energy;

import java.math.BigInteger;
import java.nio.file.Path;
import org.llmnpu.hdl.sim.Simulator;

/**
 * A simulator whose waveform dump covers only the compute of a start/done block: dumping is
 * off from the start, turned on when {@code start} is poked to 1 and off again when a
 * {@code runUntil} (the wait for {@code done}) returns. Loading buffers and programs through
 * the ports is then left out of the measured activity, and the cycles dumped are the
 * block's compute cycles.
 */
final class ComputeWindow implements Simulator {
  private final Simulator sim;

  ComputeWindow(Simulator sim) {
    this.sim = sim;
    sim.waves(false);
  }

  @Override
  public void poke(String port, BigInteger value) {
    if (port.equals("start") && value.signum() != 0) {
      sim.waves(true);
    }
    sim.poke(port, value);
  }

  @Override
  public BigInteger peek(String port) {
    return sim.peek(port);
  }

  @Override
  public BigInteger peekSigned(String port) {
    return sim.peekSigned(port);
  }

  @Override
  public void step(int cycles) {
    sim.step(cycles);
  }

  @Override
  public void reset(int cycles) {
    sim.reset(cycles);
  }

  @Override
  public long runUntil(String port, BigInteger value, long maxCycles) {
    long n = sim.runUntil(port, value, maxCycles);
    sim.waves(false);
    return n;
  }

  @Override
  public long cycle() {
    return sim.cycle();
  }

  @Override
  public void waves(boolean on) {
    sim.waves(on);
  }

  @Override
  public Path waveFile() {
    return sim.waveFile();
  }

  @Override
  public Path replayFile() {
    return sim.replayFile();
  }

  @Override
  public void close() {
    sim.close();
  }
}
