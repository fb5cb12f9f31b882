package org.llmnpu.verilator;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.llmnpu.hdl.emit.Verilog;
import org.llmnpu.hdl.emit.VerilogDesign;
import org.llmnpu.hdl.examples.Counter;
import org.llmnpu.hdl.sim.SimulationException;
import org.llmnpu.hdl.sim.Simulator;

/** Errors instead of hangs, the build cache, waveforms and replay files. */
class HarnessBehaviourTest {
  private static VerilogDesign counter() {
    return Verilog.emit(new Counter(new Counter.Config(10)));
  }

  @ParameterizedTest
  @EnumSource(value = SimOptions.Mode.class, names = {"LOCAL", "CONTAINER"})
  void unmetWaitNamesThePortTheCyclesAndTheLimit(SimOptions.Mode mode) {
    try (Simulator s = Simulators.start(counter(), SimModes.options(mode))) {
      s.reset(1);
      s.poke("enable", 1);
      assertEquals(3, s.runUntil("value", 3, 50));
      s.poke("enable", 0);
      var e = assertThrows(SimulationException.class, () -> s.runUntil("value", 7, 100));
      assertTrue(e.getMessage().contains("port 'value' did not become 0x7 within 100 cycles"), e.getMessage());
      assertTrue(e.getMessage().contains("now at cycle 104"), e.getMessage());
    }
  }

  @ParameterizedTest
  @EnumSource(value = SimOptions.Mode.class, names = {"LOCAL", "CONTAINER"})
  void crashedModelBecomesAnExceptionWithExitStatusAndStderr(SimOptions.Mode mode) {
    Simulator s = Simulators.start(Verilog.emit(new HarnessDesigns.Crashes()), SimModes.options(mode));
    try {
      assertEquals(1, s.peekLong("alive"));
      s.poke("go", 1);
      s.step(3);
      var e = assertThrows(SimulationException.class, () -> s.peekLong("alive"));
      assertTrue(e.getMessage().contains("exited"), e.getMessage());
      assertTrue(e.getMessage().contains("exit status"), e.getMessage());
      assertTrue(e.getMessage().contains("stopper: trigger seen"), e.getMessage());
    } finally {
      assertThrows(SimulationException.class, s::close);
    }
  }

  @Test
  void modelThatStopsAnsweringIsKilledAfterTheTimeout() throws Exception {
    SimOptions o = SimModes.options(SimOptions.Mode.LOCAL).withTimeout(Duration.ofSeconds(2));
    Simulator s = Simulators.start(counter(), o);
    s.poke("enable", 1);
    s.step(3);
    assertEquals(3, s.peekLong("value"));
    // a hung model: the process is frozen (SIGSTOP), so neither an answer nor a progress line comes
    ProcessHandle model = ProcessHandle.current().descendants()
        .filter(h -> h.info().command().map(c -> c.endsWith("/sim")).orElse(false)).findFirst().orElseThrow();
    assertEquals(0, new ProcessBuilder("kill", "-STOP", Long.toString(model.pid())).start().waitFor());
    var e = assertThrows(SimulationException.class, () -> s.runUntil("value", 7, 4_000_000_000_000L));
    assertTrue(e.getMessage().contains("no answer") && e.getMessage().contains("no progress within 2 s"),
        e.getMessage());
  }

  @Test
  void longRunIsNotMistakenForAHang() {
    // A run planned to take about 3 s, longer than the 1 s timeout: the model's progress lines (one every
    // 65,536 cycles) keep the wait alive.
    SimOptions o = SimModes.options(SimOptions.Mode.LOCAL).withTimeout(Duration.ofSeconds(1));
    try (Simulator s = Simulators.start(counter(), o)) {
      s.poke("enable", 0);
      int probe = 1 << 20;
      long t0 = System.nanoTime();
      s.step(probe);
      assertEquals(0, s.peekLong("value"));
      double cyclesPerSecond = probe / ((System.nanoTime() - t0) / 1e9);
      // The machine's speed changes under load: a run that ended within the timeout proves nothing, so it is
      // repeated four times longer (each run must end without being taken for a hang) until one outlasts it.
      long total = probe;
      int n = (int) Math.min(Integer.MAX_VALUE, Math.max(probe, 3 * cyclesPerSecond));
      double seconds = 0;
      for (int attempt = 0; attempt < 4 && seconds <= 1.5; attempt++) {
        long t1 = System.nanoTime();
        s.step(n);
        assertEquals(0, s.peekLong("value")); // step returns at once; the peek waits for the run's end
        seconds = (System.nanoTime() - t1) / 1e9;
        total += n;
        n = (int) Math.min(Integer.MAX_VALUE, 4L * n);
      }
      assertTrue(seconds > 1, "the last run took " + seconds + " s: not longer than the timeout, so nothing was shown");
      assertEquals(total, s.cycle());
    }
  }

  @ParameterizedTest
  @EnumSource(value = SimOptions.Mode.class, names = {"LOCAL", "CONTAINER"})
  void compileErrorNamesTheVerilogLineAndTheJavaLine(SimOptions.Mode mode) {
    SimOptions o = SimModes.options(mode);
    var e = assertThrows(SimulationException.class, () -> Simulators.start(Verilog.emit(new HarnessDesigns.UsesBroken()), o));
    assertTrue(e.getMessage().contains("UsesBroken.v:"), e.getMessage());
    assertTrue(e.getMessage().contains("HarnessDesigns.java:80"), e.getMessage());
  }

  @Test
  void unchangedDesignIsNotRebuilt() throws Exception {
    SimOptions o = SimModes.options(SimOptions.Mode.LOCAL);
    BuildInputs in = BuildInputs.of(counter(), SimOptions.Waves.NONE);
    Path first = LocalToolchain.build(in, o.cacheDir());
    long stamp = Files.getLastModifiedTime(first).toMillis();
    long t0 = System.nanoTime();
    Path second = LocalToolchain.build(BuildInputs.of(counter(), SimOptions.Waves.NONE), o.cacheDir());
    double ms = (System.nanoTime() - t0) / 1e6;
    assertEquals(first, second);
    assertEquals(stamp, Files.getLastModifiedTime(second).toMillis());
    System.out.printf("cached build lookup: %.1f ms%n", ms);
  }

  @ParameterizedTest
  @EnumSource(value = SimOptions.Mode.class, names = {"LOCAL", "CONTAINER"})
  void wavesAreWrittenAndComeBackToTheHost(SimOptions.Mode mode) throws Exception {
    SimOptions o = SimModes.options(mode).withWaves(SimOptions.Waves.VCD);
    Path vcd;
    try (Simulator s = Simulators.start(counter(), o)) {
      s.reset(1);
      s.poke("enable", 1);
      s.step(5);
      s.waves(false);
      s.step(100);
      s.waves(true);
      s.step(5);
      vcd = s.waveFile();
    }
    String text = Files.readString(vcd);
    assertTrue(text.contains("$var") && text.contains(" value "), "VCD header");
    long timestamps = text.lines().filter(l -> l.startsWith("#")).count();
    assertTrue(timestamps >= 20 && timestamps < 60, "dumping paused for 100 cycles: " + timestamps + " timestamps");
  }

  @Test
  void aRunWithoutWavesSharesTheWavesBuild() throws Exception {
    SimOptions o = SimModes.options(SimOptions.Mode.LOCAL);
    Path traced = LocalToolchain.build(BuildInputs.of(counter(), SimOptions.Waves.VCD), o.cacheDir());
    assertEquals(traced, LocalToolchain.build(BuildInputs.of(counter(), SimOptions.Waves.VCD_OFF), o.cacheDir()));
    assertNotEquals(traced, LocalToolchain.build(BuildInputs.of(counter(), SimOptions.Waves.NONE), o.cacheDir()));
    long[] counts = new long[2];
    int i = 0;
    for (SimOptions.Waves w : new SimOptions.Waves[] {SimOptions.Waves.NONE, SimOptions.Waves.VCD_OFF}) {
      try (Simulator s = Simulators.start(counter(), o.withWaves(w))) {
        s.reset(1);
        s.poke("enable", 1);
        s.step(37);
        counts[i++] = s.peekLong("value");
        assertNull(s.waveFile(), "no wave file with " + w);
        assertThrows(IllegalStateException.class, () -> s.waves(true));
      }
    }
    assertEquals(counts[0], counts[1]);
  }

  @Test
  void fstWavesAreWritten() throws Exception {
    SimOptions o = SimModes.options(SimOptions.Mode.LOCAL).withWaves(SimOptions.Waves.FST);
    Path fst;
    try (Simulator s = Simulators.start(counter(), o)) {
      s.reset(1);
      s.poke("enable", 1);
      s.step(50);
      fst = s.waveFile();
    }
    byte[] bytes = Files.readAllBytes(fst);
    assertTrue(fst.toString().endsWith(".fst") && bytes.length > 100, "FST file of " + bytes.length + " bytes");
  }

  @Test
  void replayFileReproducesTheRunWithoutJava() throws Exception {
    SimOptions o = SimModes.options(SimOptions.Mode.LOCAL);
    List<String> seen = new ArrayList<>();
    Path replay;
    try (Simulator s = Simulators.start(counter(), o)) {
      s.reset(2);
      s.poke("enable", 1);
      for (int i = 0; i < 25; i++) {
        s.step();
        seen.add(Long.toHexString(s.peekLong("value")));
      }
      replay = s.replayFile();
    }
    Path exe = LocalToolchain.build(BuildInputs.of(counter(), SimOptions.Waves.NONE), o.cacheDir());
    Process p = new ProcessBuilder(exe.toString()).redirectInput(replay.toFile()).start();
    List<String> out = new String(p.getInputStream().readAllBytes(), StandardCharsets.US_ASCII).lines().toList();
    assertEquals(0, p.waitFor());
    assertEquals(seen, out.subList(0, seen.size()));
    assertEquals("bye 27", out.get(out.size() - 1));
  }
}
