package org.llmnpu.verilator;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.Random;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.llmnpu.hdl.emit.Verilog;
import org.llmnpu.hdl.sim.ExternalMemory;
import org.llmnpu.hdl.sim.SimulationException;
import org.llmnpu.hdl.sim.Simulator;

/** The C++ external-memory model: bulk load and dump, latency and bandwidth, free-running runs. */
class ExternalMemoryTest {

  @ParameterizedTest(name = "{0}-byte beats, latency {1}, interval {2}")
  @CsvSource({"4, 1, 1", "16, 5, 2", "32, 3, 4"})
  void copierMovesTheImageWithTheConfiguredTiming(int bytes, int latency, int interval) {
    int beats = 9;
    byte[] image = new byte[4096];
    new Random(bytes * 31 + latency).nextBytes(image);
    try (Simulator sim = Simulators.start(Verilog.emit(new MemoryCopier(bytes)), SimModes.local())) {
      ExternalMemory mem = sim.externalMemory();
      mem.configure(image.length, latency, interval);
      assertEquals(bytes, mem.beatBytes());
      mem.load(0, image);
      sim.reset(2);
      sim.poke("src", 64);
      sim.poke("dst", 2048);
      sim.poke("count", beats);
      sim.poke("start", 1);
      sim.step(1);
      sim.poke("start", 0);
      long cycles = mem.runUntilNonZero("done", 100_000);
      byte[] out = mem.dump(0, image.length);
      byte[] expected = image.clone();
      System.arraycopy(image, 64, expected, 2048, beats * bytes - 1);
      assertArrayEquals(expected, out);
      // Read fires at r = max(ready cycle, memory free); data at r + latency; the write fires one cycle
      // later or when the memory is free again; the next read one cycle after the write.
      long t = 0;
      long free = 0;
      for (int i = 0; i < beats; i++) {
        long read = Math.max(t, free);
        long write = Math.max(read + latency + 1, read + interval);
        free = write + interval;
        t = write + 1;
      }
      assertEquals(t, cycles, "cycles to done");
      assertEquals(beats, mem.beats()[0]);
      assertEquals(beats, mem.beats()[1]);
      assertEquals(0, mem.faults());
    }
  }

  @org.junit.jupiter.api.Test
  void containerModelHasTheSameMemory() {
    byte[] image = new byte[1024];
    new Random(5).nextBytes(image);
    try (Simulator sim = Simulators.start(Verilog.emit(new MemoryCopier(8)),
        SimModes.options(SimOptions.Mode.CONTAINER))) {
      ExternalMemory mem = sim.externalMemory();
      mem.configure(image.length, 2, 1);
      mem.load(0, image);
      sim.reset(2);
      sim.poke("src", 0);
      sim.poke("dst", 512);
      sim.poke("count", 4);
      sim.poke("start", 1);
      sim.step(1);
      sim.poke("start", 0);
      assertEquals(16, mem.runUntilNonZero("done", 1000));
      byte[] expected = image.clone();
      System.arraycopy(image, 0, expected, 512, 31);
      assertArrayEquals(expected, mem.dump(0, image.length));
    }
  }

  @org.junit.jupiter.api.Test
  void runUntilNonZeroThrowsAtItsLimit() {
    try (Simulator sim = Simulators.start(Verilog.emit(new MemoryCopier(4)), SimModes.local())) {
      ExternalMemory mem = sim.externalMemory();
      mem.configure(1024, 1, 1);
      sim.reset(2);
      SimulationException e = assertThrows(SimulationException.class, () -> mem.runUntilNonZero("done", 50));
      assertEquals(true, e.getMessage().contains("stayed 0 for 50 cycles"), e.getMessage());
    }
  }

  @org.junit.jupiter.api.Test
  void aDesignWithoutAMemoryPortHasNoExternalMemory() {
    try (Simulator sim = Simulators.start(Verilog.emit(new HarnessDesigns.Crashes()), SimModes.local())) {
      UnsupportedOperationException e = assertThrows(UnsupportedOperationException.class, sim::externalMemory);
      assertEquals(true, e.getMessage().contains("has no memory port"), e.getMessage());
    }
  }

  @org.junit.jupiter.api.Test
  void configuringAgainDropsTheReadsOfAnInterruptedRun() {
    int bytes = 4;
    byte[] image = new byte[1024];
    new Random(9).nextBytes(image);
    try (Simulator sim = Simulators.start(Verilog.emit(new MemoryCopier(bytes)), SimModes.local())) {
      ExternalMemory mem = sim.externalMemory();
      mem.configure(image.length, 20, 1);
      mem.load(0, image);
      sim.reset(2);
      sim.poke("src", 0);
      sim.poke("dst", 512);
      sim.poke("count", 8);
      sim.poke("start", 1);
      sim.step(1);
      sim.poke("start", 0);
      // stopped with its first read in flight (latency 20)
      assertThrows(SimulationException.class, () -> mem.runUntilNonZero("done", 5));
      mem.configure(image.length, 2, 1);
      mem.load(0, image);
      sim.reset(2);
      sim.poke("start", 1);
      sim.step(1);
      sim.poke("start", 0);
      // read at 0, data at 2, write at 3, next read at 4: four cycles a beat, as on a fresh memory
      assertEquals(4 * 8, mem.runUntilNonZero("done", 1000));
      byte[] expected = image.clone();
      System.arraycopy(image, 0, expected, 512, 8 * bytes - 1);
      assertArrayEquals(expected, mem.dump(0, image.length));
    }
  }
}
