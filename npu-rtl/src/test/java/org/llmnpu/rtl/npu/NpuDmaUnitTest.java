package org.llmnpu.rtl.npu;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.math.BigInteger;
import java.util.ArrayDeque;
import java.util.Arrays;
import java.util.Random;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.llmnpu.hdl.ToolsForTests;
import org.llmnpu.hdl.sim.Simulator;
import org.llmnpu.isa.ErrorCause;
import org.llmnpu.isa.IsaSimulator;
import org.llmnpu.isa.MachineParams;
import org.llmnpu.isa.Program;
import org.llmnpu.verilator.SimModes;

/**
 * The {@link NpuDmaUnit} alone in Verilator, driven as the controller drives it for a {@code load} and a
 * {@code store} (dispatch: both walks begin, the shape is set; then a walk step per accepted request or per
 * response) against a memory that accepts requests at random and answers reads one cycle later: the scratchpad
 * writes of the load (at the scratchpad walk's line, with its beat mask) and the memory writes of the store (its
 * address, data and strobe) build exactly the scratchpad and memory of the golden {@link IsaSimulator}; the DMA
 * issues {@code rows·ceil(rowBytes/line)} beats and keeps the port from the fetcher until its last one is accepted.
 */
class NpuDmaUnitTest {
  private static final long EXT = 0x1040;
  private static final int SPAD = 96;

  @ParameterizedTest(name = "{0}: rows {1}, rowBytes {2}")
  @CsvSource({"load, 3, 13", "load, 1, 64", "load, 5, 4", "store, 3, 13", "store, 2, 33", "store, 4, 16"})
  void beatsOfTheUnitEqualTheGoldenTransfer(String op, int rows, int rowBytes) {
    ToolsForTests.require("verilator");
    NpuConfig c = NpuConfig.small();
    MachineParams p = c.machine();
    int line = p.lineBytes();
    boolean load = op.equals("load");
    Random random = new Random(rows * 1000L + rowBytes + (load ? 1 : 0));
    byte[] memory = new byte[(int) p.extMemBytes()];
    random.nextBytes(memory);
    int beats = (rowBytes + line - 1) / line;
    long extStride = (beats + 1L) * line;
    long spadStride = (beats + 2L) * line;
    Program.Builder b = Program.builder();
    if (!load) {
      b.load(EXT + 0x4000, extStride, SPAD, spadStride, rowBytes, rows);
    }
    Program program = (load ? b.load(EXT, extStride, SPAD, spadStride, rowBytes, rows)
        : b.store(EXT, extStride, SPAD, spadStride, rowBytes, rows)).halt().build();
    long programAddress = 0x80000;
    System.arraycopy(program.bytes(), 0, memory, (int) programAddress, program.bytes().length);
    IsaSimulator.Result golden = IsaSimulator.run(p, memory.clone(), programAddress);
    assertEquals(ErrorCause.NONE, golden.error());
    // the store's scratchpad is the golden's (its first load filled it)
    byte[] scratchpad = load ? new byte[p.spadBytes()] : golden.scratchpad().clone();
    byte[] ext = memory.clone();

    int accepted = 0;
    int written = 0;
    try (Simulator sim = SimModes.startLocal(new NpuDmaUnit(c))) {
      sim.reset(1);
      // dispatch (one cycle): both walks begin, the shape is set (and then held)
      sim.poke("extBegin", 1);
      sim.poke("extBase", EXT);
      sim.poke("spadBegin", 1);
      sim.poke("spadBase", SPAD);
      sim.poke("rowsNext", rows);
      sim.poke("beatsNext", beats);
      sim.poke("remainderNext", rowBytes % line);
      sim.poke("extStrideNext", extStride);
      sim.poke("extStepNext", line);
      sim.poke("spadStrideNext", spadStride);
      sim.poke("spadStepNext", line);
      sim.poke("fetchRequest_payload", 0x20);
      sim.step(1);
      sim.poke("extBegin", 0);
      sim.poke("spadBegin", 0);
      sim.poke("wants", 1);
      sim.poke("requests", 1);
      sim.poke("write", load ? 0 : 1);
      ArrayDeque<Long> reads = new ArrayDeque<>();
      Long answer = null;
      boolean done = false;
      for (int cycle = 0; !done; cycle++) {
        assertTrue(cycle < 1000, "the transfer ends");
        boolean ready = random.nextInt(3) != 0;
        sim.poke("mem_req_ready", ready ? 1 : 0);
        boolean dmaPhase = accepted < rows * beats;
        assertEquals(dmaPhase ? 1 : 0, sim.peekLong("fetchWaits"), "the DMA keeps the port until its last beat");
        sim.poke("fetchRequest_valid", dmaPhase ? 0 : 1);
        int spadLine = (int) sim.peekLong("spadLine");
        sim.poke("writeData", lineValue(scratchpad, spadLine * line, line));
        boolean fire = sim.peekLong("fire") == 1;
        assertEquals(dmaPhase && ready, fire, "cycle " + cycle + ": a request per cycle the memory takes it");
        if (!dmaPhase) {
          assertEquals(0x20, sim.peekLong("mem_req_addr"), "the fetcher's request once the DMA is done");
        }
        boolean extAdvance = fire;
        boolean spadAdvance = false;
        if (fire) {
          accepted++;
          long address = sim.peekLong("mem_req_addr");
          if (load) {
            reads.add(address);
          } else {
            spadAdvance = true;
            apply(ext, (int) address, sim.peek("mem_req_wdata"), sim.peek("mem_req_wstrb"), line);
            done = sim.peekLong("extLast") == 1;
          }
        }
        if (load && answer != null) {
          apply(scratchpad, spadLine * line, lineValue(memory, answer.intValue(), line), sim.peek("beatMask"), line);
          written++;
          spadAdvance = true;
          done = sim.peekLong("spadLast") == 1;
        }
        sim.poke("extAdvance", extAdvance ? 1 : 0);
        sim.poke("spadAdvance", spadAdvance ? 1 : 0);
        sim.step(1);
        answer = reads.poll();
      }
    }
    assertEquals(rows * beats, accepted, "beats issued");
    if (load) {
      assertEquals(rows * beats, written, "responses written");
      assertArrayEquals(golden.scratchpad(), scratchpad, () -> "first difference at scratchpad byte "
          + Arrays.mismatch(golden.scratchpad(), scratchpad));
    } else {
      assertArrayEquals(golden.memory(), ext, () -> "first difference at memory byte "
          + Arrays.mismatch(golden.memory(), ext));
    }
  }

  /** The little-endian value of {@code line} bytes from {@code from}. */
  private static BigInteger lineValue(byte[] bytes, int from, int line) {
    byte[] big = new byte[line + 1];
    for (int i = 0; i < line; i++) {
      big[line - i] = bytes[from + i];
    }
    return new BigInteger(big);
  }

  /** Writes the bytes of {@code data} whose {@code mask} bit is set to {@code bytes} from {@code from}. */
  private static void apply(byte[] bytes, int from, BigInteger data, BigInteger mask, int line) {
    for (int i = 0; i < line; i++) {
      if (mask.testBit(i)) {
        bytes[from + i] = data.shiftRight(8 * i).byteValue();
      }
    }
  }
}
