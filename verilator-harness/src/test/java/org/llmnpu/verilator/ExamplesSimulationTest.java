package org.llmnpu.verilator;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.math.BigInteger;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.Random;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.llmnpu.hdl.emit.Verilog;
import org.llmnpu.hdl.examples.Counter;
import org.llmnpu.hdl.examples.PipelinedMultiplier;
import org.llmnpu.hdl.examples.RegisterFile;
import org.llmnpu.hdl.examples.RoundRobinArbiter;
import org.llmnpu.hdl.examples.SyncFifo;
import org.llmnpu.hdl.sim.Simulator;

/** The hw-dsl examples against Java reference models, with a local Verilator and in a container. */
class ExamplesSimulationTest {

  @ParameterizedTest
  @EnumSource(value = SimOptions.Mode.class, names = {"LOCAL", "CONTAINER"})
  void counterCountsModuloItsLimitAndPulsesWrap(SimOptions.Mode mode) {
    try (Simulator s = Simulators.start(Verilog.emit(new Counter(new Counter.Config(10))), SimModes.options(mode))) {
      s.reset(1);
      Random rnd = new Random(1);
      int expected = 0;
      for (int i = 0; i < 300; i++) {
        boolean en = rnd.nextInt(4) != 0;
        s.poke("enable", en ? 1 : 0);
        assertEquals(expected, s.peekLong("value"));
        assertEquals(en && expected == 9 ? 1 : 0, s.peekLong("wrap"));
        s.step();
        expected = en ? (expected + 1) % 10 : expected;
      }
    }
  }

  @ParameterizedTest
  @EnumSource(value = SimOptions.Mode.class, names = {"LOCAL", "CONTAINER"})
  void fifoMatchesAQueueOnRandomTraffic(SimOptions.Mode mode) {
    try (Simulator s = Simulators.start(Verilog.emit(new SyncFifo(new SyncFifo.Config(8, 8))), SimModes.options(mode))) {
      s.reset(2);
      Deque<Integer> model = new ArrayDeque<>();
      Random rnd = new Random(7);
      for (int i = 0; i < 2000; i++) {
        int data = rnd.nextInt(256);
        boolean push = rnd.nextInt(3) != 0;
        boolean pop = rnd.nextInt(3) != 0;
        s.poke("push_valid", push ? 1 : 0);
        s.poke("push_payload", data);
        s.poke("pop_ready", pop ? 1 : 0);
        assertEquals(model.size(), s.peekLong("count"), "occupancy at cycle " + i);
        assertEquals(model.size() < 8 ? 1 : 0, s.peekLong("push_ready"));
        assertEquals(model.isEmpty() ? 0 : 1, s.peekLong("pop_valid"));
        if (!model.isEmpty()) {
          assertEquals((long) model.peek(), s.peekLong("pop_payload"));
        }
        boolean popped = pop && !model.isEmpty();
        boolean pushed = push && model.size() < 8;
        if (popped) {
          model.poll();
        }
        if (pushed) {
          model.add(data);
        }
        s.step();
      }
    }
  }

  @ParameterizedTest
  @EnumSource(value = SimOptions.Mode.class, names = {"LOCAL", "CONTAINER"})
  void arbiterGrantsTheFirstRequesterAfterTheLastServed(SimOptions.Mode mode) {
    int n = 5;
    try (Simulator s = Simulators.start(Verilog.emit(new RoundRobinArbiter(new RoundRobinArbiter.Config(n))),
        SimModes.options(mode))) {
      s.reset(1);
      Random rnd = new Random(3);
      int last = n - 1;
      for (int i = 0; i < 500; i++) {
        int req = rnd.nextInt(1 << n);
        boolean accept = rnd.nextBoolean();
        s.poke("requests", req);
        s.poke("accept", accept ? 1 : 0);
        int expected = -1;
        for (int k = 1; k <= n && req != 0; k++) {
          int cand = (last + k) % n;
          if ((req >> cand & 1) == 1) {
            expected = cand;
            break;
          }
        }
        assertEquals(req != 0 ? 1 : 0, s.peekLong("valid"));
        assertEquals(expected < 0 ? 0 : 1L << expected, s.peekLong("grant"), "cycle " + i);
        if (expected >= 0) {
          assertEquals(expected, s.peekLong("grantIndex"));
          if (accept) {
            last = expected;
          }
        }
        s.step();
      }
    }
  }

  @ParameterizedTest
  @EnumSource(value = SimOptions.Mode.class, names = {"LOCAL", "CONTAINER"})
  void multiplierGivesExactSignedProductsAfterItsLatency(SimOptions.Mode mode) {
    int stages = 3;
    try (Simulator s = Simulators.start(Verilog.emit(new PipelinedMultiplier(
        new PipelinedMultiplier.Config(12, 9, stages))), SimModes.options(mode))) {
      s.reset(1);
      Random rnd = new Random(5);
      long[] expected = new long[400];
      for (int i = 0; i < expected.length; i++) {
        long a = i < 4 ? new long[] {-2048, -2048, 2047, 0}[i] : rnd.nextInt(4096) - 2048;
        long b = i < 4 ? new long[] {-256, 255, -256, 17}[i] : rnd.nextInt(512) - 256;
        expected[i] = a * b;
        s.poke("a", a);
        s.poke("b", b);
        s.poke("inValid", 1);
        s.step();
        if (i + 1 >= stages) {
          assertEquals(1, s.peekLong("outValid"));
          assertEquals(BigInteger.valueOf(expected[i + 1 - stages]), s.peekSigned("product"), "product " + i);
        }
      }
    }
  }

  @ParameterizedTest
  @EnumSource(value = SimOptions.Mode.class, names = {"LOCAL", "CONTAINER"})
  void registerFileMatchesAnArrayWithByteMasks(SimOptions.Mode mode) {
    try (Simulator s = Simulators.start(Verilog.emit(new RegisterFile(new RegisterFile.Config(32, 16, 2))),
        SimModes.options(mode))) {
      long[] words = new long[16];
      Random rnd = new Random(11);
      long[] pendingRead = {-1, -1};
      for (int i = 0; i < 600; i++) {
        for (int port = 0; port < 2; port++) {
          if (pendingRead[port] >= 0) {
            assertEquals(pendingRead[port], s.peekLong("readData_" + port), "read port " + port + " cycle " + i);
          }
        }
        int wa = rnd.nextInt(16);
        long wd = rnd.nextLong() & 0xFFFF_FFFFL;
        int mask = rnd.nextInt(16);
        boolean we = rnd.nextBoolean();
        int[] ra = {rnd.nextInt(16), rnd.nextInt(16)};
        s.poke("writeEnable", we ? 1 : 0);
        s.poke("writeAddress", wa);
        s.poke("writeData", wd);
        s.poke("writeMask", mask);
        for (int port = 0; port < 2; port++) {
          s.poke("readAddress_" + port, ra[port]);
          pendingRead[port] = words[ra[port]];
        }
        s.step();
        if (we) {
          for (int lane = 0; lane < 4; lane++) {
            if ((mask >> lane & 1) == 1) {
              long m = 0xFFL << (8 * lane);
              words[wa] = (words[wa] & ~m) | (wd & m);
            }
          }
        }
      }
    }
  }

  @ParameterizedTest
  @EnumSource(value = SimOptions.Mode.class, names = {"LOCAL", "CONTAINER"})
  void portsWiderThan64BitsRoundTrip(SimOptions.Mode mode) {
    try (Simulator s = Simulators.start(Verilog.emit(new WideAdder()), SimModes.options(mode))) {
      Random rnd = new Random(9);
      for (int i = 0; i < 50; i++) {
        BigInteger a = new BigInteger(100, rnd);
        BigInteger b = i == 0 ? BigInteger.ONE.shiftLeft(100).subtract(BigInteger.ONE) : new BigInteger(100, rnd);
        if (i == 0) {
          a = b;
        }
        s.poke("a", a);
        s.poke("b", b);
        s.step();
        assertEquals(a.add(b), s.peek("sum"));
      }
      assertTrue(s.cycle() == 50);
    }
  }
}
