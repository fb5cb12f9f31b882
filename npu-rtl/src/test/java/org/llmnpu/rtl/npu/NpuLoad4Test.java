package org.llmnpu.rtl.npu;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.math.BigInteger;
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
 * The {@link NpuLoad4} unit alone in Verilator: fed a {@code load4}'s beats as the DMA delivers them (one beat every
 * other cycle, the row's last beat short), its scratchpad writes (the first line with the beat, the second the
 * cycle after, masked) build exactly the scratchpad of the golden {@link IsaSimulator} for that command.
 */
class NpuLoad4Test {

  @ParameterizedTest(name = "rows {0}, rowBytes {1}")
  @CsvSource({"8, 13", "3, 8", "2, 1", "4, 31", "1, 64"})
  void writesOfTheUnpackedBeatsEqualTheGoldenLoad4(int rows, int rowBytes) {
    ToolsForTests.require("verilator");
    NpuConfig c = NpuConfig.small();
    MachineParams p = c.machine();
    int line = p.lineBytes();
    byte[] memory = new byte[(int) p.extMemBytes()];
    new Random(rows * 100L + rowBytes).nextBytes(memory);
    long ext = 0x1000;
    int extStride = ((rowBytes + line - 1) / line + 1) * line;
    int spad = 64;
    int spadStride = 2 * line * ((2 * rowBytes + 2 * line - 1) / (2 * line)) + 2 * line;
    Program program = Program.builder().load4(ext, extStride, spad, spadStride, rowBytes, rows).halt().build();
    long programAddress = 0x80000;
    byte[] code = program.bytes();
    System.arraycopy(code, 0, memory, (int) programAddress, code.length);
    IsaSimulator.Result golden = IsaSimulator.run(p, memory, programAddress);
    assertEquals(ErrorCause.NONE, golden.error());

    byte[] scratchpad = new byte[p.spadBytes()];
    int beats = (rowBytes + line - 1) / line;
    try (Simulator sim = SimModes.startLocal(new NpuLoad4(c))) {
      sim.reset(1);
      sim.poke("remainder", rowBytes % line);
      for (int r = 0; r < rows; r++) {
        for (int b = 0; b < beats; b++) {
          int from = (int) ext + r * extStride + b * line;
          sim.poke("data", lineValue(memory, from, line));
          sim.poke("rowEnd", b == beats - 1 ? 1 : 0);
          sim.poke("line", (spad + r * spadStride + 2 * b * line) / line);
          sim.poke("beat", 1);
          assertEquals(1, sim.peekLong("first_valid"));
          write(sim, "first", (spad + r * spadStride + 2 * b * line) / line, scratchpad, line);
          sim.step();
          sim.poke("beat", 0);
          if (sim.peekLong("second_valid") == 1) {
            write(sim, "second", sim.peekLong("second_line"), scratchpad, line);
          }
          sim.step();
          assertEquals(0, sim.peekLong("second_valid"), "one second line per beat");
        }
      }
    }
    assertArrayEquals(golden.scratchpad(), scratchpad, () -> "first difference at byte "
        + Arrays.mismatch(golden.scratchpad(), scratchpad));
  }

  /** The little-endian value of {@code line} memory bytes from {@code from}. */
  private static BigInteger lineValue(byte[] memory, int from, int line) {
    byte[] big = new byte[line + 1];
    for (int i = 0; i < line; i++) {
      big[line - i] = memory[from + i];
    }
    return new BigInteger(big);
  }

  /** Applies the write request {@code port} to scratchpad line {@code lineIndex} of the model. */
  private static void write(Simulator sim, String port, long lineIndex, byte[] scratchpad, int line) {
    BigInteger data = sim.peek(port + "_data");
    BigInteger mask = sim.peek(port + "_mask");
    for (int i = 0; i < line; i++) {
      if (mask.testBit(i)) {
        scratchpad[(int) lineIndex * line + i] = data.shiftRight(8 * i).byteValue();
      }
    }
  }
}
