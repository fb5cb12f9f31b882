package org.llmnpu.rtl.npu;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Random;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.llmnpu.hdl.emit.Verilog;
import org.llmnpu.hdl.sim.Simulator;
import org.llmnpu.isa.Counter;
import org.llmnpu.isa.ErrorCause;
import org.llmnpu.isa.IsaSimulator;
import org.llmnpu.isa.MachineParams;
import org.llmnpu.isa.Program;
import org.llmnpu.verilator.SimModes;
import org.llmnpu.verilator.Simulators;

/**
 * The {@link NpuDriver} on the tiny NPU's Verilator model: a program's memory image, status and every counter
 * equal the golden ISA simulator's and its cycle model's; a run that outlasts its limit is a hang named with the
 * limit and the counters; misuse is refused with the parameter named.
 */
class NpuDriverTest {
  private static final NpuConfig TINY = NpuConfig.tiny();
  private static final MachineParams MP = TINY.machine();
  private static Simulator sim;
  private static NpuDriver npu;

  @BeforeAll
  static void startModel() {
    // the traced build with no wave file: the model reports' energy calibration, the NPU report's co-simulation and
    // the demo flow run on this NPU, so a cold build compiles the tiny NPU once (untraced it was a second build)
    sim = Simulators.start(Verilog.emit(new Npu(TINY)),
        SimModes.local().withWaves(org.llmnpu.verilator.SimOptions.Waves.VCD_OFF));
    npu = new NpuDriver(sim, TINY);
  }

  @AfterAll
  static void stopModel() {
    if (sim != null) {
      sim.close();
    }
  }

  /** X (5×10) and W (10×7) loaded with row strides that leave gaps, a GEMM, Y (INT32) stored, halt. */
  private static byte[] gemmImage(long seed) {
    byte[] image = new byte[(int) MP.extMemBytes()];
    Random r = new Random(seed);
    byte[] data = new byte[0x2000];
    r.nextBytes(data);
    System.arraycopy(data, 0, image, 0x1000, data.length);
    Program p = Program.builder()
        .load(0x1000, 12, 0, 12, 10, 5)
        .load(0x2000, 8, 64, 8, 7, 10)
        .gemm(5, 10, 7, 0, 12, 64, 8, 256, 28)
        .store(0x8000, 32, 256, 28, 28, 5)
        .halt().build();
    System.arraycopy(p.bytes(), 0, image, 0, p.bytes().length);
    return image;
  }

  private static void assertEqualsGolden(byte[] image, NpuDriver.Run run) {
    IsaSimulator.Result golden = IsaSimulator.run(MP, TINY.engineTiming(), image, 0);
    assertEquals(golden.error(), run.error(), "error cause");
    assertEquals(golden.errorCommand(), run.errorCommand(), "failing command");
    assertArrayEquals(golden.memory(), run.memory(), "memory image after the run");
    for (Counter c : Counter.values()) {
      assertEquals(golden.counter(c), run.counter(c), "counter " + c.key());
    }
    assertTrue(run.cyclesToFinished() >= run.counter(Counter.CYCLES),
        "finished follows the end of the program: " + run.cyclesToFinished() + " >= " + run.counter(Counter.CYCLES));
  }

  @Test
  void gemmProgramEqualsTheGoldenSimulatorAndItsCycleModel() {
    byte[] image = gemmImage(7);
    NpuDriver.Run run = npu.run(image, 0, 100_000);
    assertEquals(ErrorCause.NONE, run.error());
    assertEqualsGolden(image, run);
    assertTrue(run.counter(Counter.MACS) == 5L * 10 * 7, "the GEMM ran: " + run.counters());
  }

  @Test
  void everyRunStartsFromResetSoARepeatIsIdentical() {
    byte[] image = gemmImage(11);
    NpuDriver.Run first = npu.run(image, 0, 100_000);
    NpuDriver.Run again = npu.run(image, 0, 100_000);
    assertArrayEquals(first.memory(), again.memory());
    assertEquals(first.counters(), again.counters());
    assertEquals(first.cyclesToFinished(), again.cyclesToFinished());
  }

  @Test
  void aProgramAtAnotherAddressThatFailsReportsTheGoldenErrorAndCommand() {
    byte[] image = new byte[(int) MP.extMemBytes()];
    Program p = Program.builder().fence().load(MP.extMemBytes() - 8, 16, 0, 16, 16, 1).halt().build();
    System.arraycopy(p.bytes(), 0, image, 0x400, p.bytes().length);
    IsaSimulator.Result golden = IsaSimulator.run(MP, TINY.engineTiming(), image, 0x400);
    NpuDriver.Run run = npu.run(image, 0x400, 100_000);
    assertEquals(ErrorCause.EXT_ADDRESS, run.error());
    assertEquals(1, run.errorCommand());
    assertEquals(golden.error(), run.error());
    assertArrayEquals(golden.memory(), run.memory());
    for (Counter c : Counter.values()) {
      assertEquals(golden.counter(c), run.counter(c), "counter " + c.key());
    }
  }

  @Test
  void aRunPastItsLimitIsAHangNamingTheLimitAndTheCounters() {
    byte[] image = gemmImage(3);
    long total = IsaSimulator.run(MP, TINY.engineTiming(), image, 0).counter(Counter.CYCLES);
    long limit = total / 2;
    NpuDriver.HangException e = assertThrows(NpuDriver.HangException.class, () -> npu.run(image, 0, limit));
    assertTrue(e.getMessage().contains(String.format("maxCycles = %,d", limit)), e.getMessage());
    assertTrue(e.getMessage().contains("watchdogCycles = " + MP.watchdogCycles()), e.getMessage());
    long counted = e.counters().get(Counter.CYCLES);
    assertTrue(counted >= limit && counted <= limit + 1, "the cycle counter stopped with the wait: " + counted);
    assertTrue(e.counters().get(Counter.COMMANDS) >= 1 && e.counters().get(Counter.COMMANDS) < 5,
        "some but not all commands decoded: " + e.counters());
    // reads of the hung run may be in flight: starting again needs a fresh memory after the reset
    npu.reset();
    IllegalStateException stale = assertThrows(IllegalStateException.class, () -> npu.start(0));
    assertTrue(stale.getMessage().contains("configureMemory() or loadImage() after reset()"), stale.getMessage());
    // run() does that: the model is usable again and equals the golden run
    assertEqualsGolden(image, npu.run(image, 0, 100_000));
  }

  @Test
  void startingAgainWithoutResetIsRefused() {
    npu.run(gemmImage(5), 0, 100_000);
    IllegalStateException e = assertThrows(IllegalStateException.class, () -> npu.start(0));
    assertTrue(e.getMessage().contains("reset()"), e.getMessage());
  }

  @Test
  void badArgumentsNameTheParameterAndTheAllowedValues() {
    IllegalArgumentException size = assertThrows(IllegalArgumentException.class,
        () -> npu.run(new byte[1000], 0, 100));
    assertTrue(size.getMessage().contains("extMemBytes = " + MP.extMemBytes()), size.getMessage());
    npu.reset();
    IllegalArgumentException address = assertThrows(IllegalArgumentException.class, () -> npu.start(1L << 32));
    assertTrue(address.getMessage().contains("programAddress must be in 0..0xffffffff"), address.getMessage());
    IllegalArgumentException limit = assertThrows(IllegalArgumentException.class, () -> npu.awaitFinished(0));
    assertTrue(limit.getMessage().contains("maxCycles must be >= 1"), limit.getMessage());
  }
}
