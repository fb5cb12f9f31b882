package org.llmnpu.rtl.dsp;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.llmnpu.hdl.sim.Simulator;
import org.llmnpu.isa.dsp.DspInterpreter;
import org.llmnpu.isa.dsp.DspMath;
import org.llmnpu.isa.dsp.DspOp;
import org.llmnpu.isa.dsp.DspPermutations;
import org.llmnpu.isa.dsp.DspProgram;

/**
 * Transposes and row gathers ({@link DspPermutations}) equal a plain Java transpose / gather, in
 * the interpreter (1, 4, 8 and 16 lanes, several shapes) and on the {@code vector-dsp} RTL built
 * with {@code permute} (8 lanes, one and two execute stages), with the documented cycle counts;
 * without {@code permute} the permutation opcodes are NOPs on both.
 */
class VectorDspPermuteTest {
  private static final int ROWS = 256;

  /** Matrix of r×c random FP16 codes, flat row-major. */
  private static short[] matrix(int r, int c, long seed) {
    Random rnd = new Random(seed);
    short[] m = new short[r * c];
    for (int i = 0; i < m.length; i++) {
      m[i] = (short) rnd.nextInt(0x10000);
    }
    return m;
  }

  private static short[] transposed(short[] m, int r, int c) {
    short[] t = new short[m.length];
    for (int i = 0; i < r; i++) {
      for (int j = 0; j < c; j++) {
        t[j * r + i] = m[i * c + j];
      }
    }
    return t;
  }

  /** Runs {@code p} on the interpreter with {@code data} at element 0; returns {@code n} elements from element {@code at}. */
  private static short[] interpret(DspProgram p, int lanes, short[] data, int at, int n) {
    DspInterpreter dsp = new DspInterpreter(lanes, ROWS, DspMath.DEFAULT).permute(true);
    for (int i = 0; i < data.length; i++) {
      dsp.write(i, data[i]);
    }
    dsp.run(p);
    assertEquals(p.cycles(), dsp.cycles(), "cycles of " + p.name());
    short[] out = new short[n];
    for (int i = 0; i < n; i++) {
      out[i] = dsp.read(at + i);
    }
    return out;
  }

  @Test
  void transposesAndGathersInTheInterpreter() {
    for (int lanes : new int[] {1, 4, 8, 16}) {
      for (int[] rc : new int[][] {{lanes, lanes}, {2 * lanes, lanes}, {lanes, 4 * lanes}, {4 * lanes, 2 * lanes}}) {
        int r = rc[0];
        int c = rc[1];
        short[] m = matrix(r, c, 31L * r + c + lanes);
        int dst = r * c / lanes;
        DspProgram p = DspPermutations.transpose(r, c, lanes, 0, dst);
        assertEquals(DspPermutations.transposeCycles(r, c, lanes), p.cycles(), p.name());
        assertArrayEquals(transposed(m, r, c), interpret(p, lanes, m, dst * lanes, r * c), p.name());
      }
      int c = 2 * lanes;
      int r = 12;
      short[] data = new short[r * c + 5 * lanes];
      System.arraycopy(matrix(r, c, lanes), 0, data, 0, r * c);
      int indexRow = r * c / lanes;
      int[] index = {3, 0, 11, 3, 7};
      for (int k = 0; k < index.length; k++) {
        data[indexRow * lanes + k] = (short) index[k];
      }
      int dst = indexRow + 5;
      DspProgram p = DspPermutations.gatherRows(index.length, c, lanes, indexRow, 0, dst);
      assertArrayEquals(gathered(data, index, c), interpret(p, lanes, data, dst * lanes, index.length * c), p.name());
    }
  }

  private static short[] gathered(short[] m, int[] index, int c) {
    short[] out = new short[index.length * c];
    for (int k = 0; k < index.length; k++) {
      System.arraycopy(m, index[k] * c, out, k * c, c);
    }
    return out;
  }

  private static void assertArrayEquals(short[] want, short[] got, String what) {
    org.junit.jupiter.api.Assertions.assertArrayEquals(want, got, what);
  }

  @ParameterizedTest(name = "{0} execute stage(s)")
  @CsvSource({"1", "2"})
  void theRtlTransposesAndGathersLikeTheGolden(int executeStages) {
    int lanes = 8;
    VectorDsp.Config config = VectorDspTest.eightLanes(executeStages, true);
    try (Simulator sim = VectorDspTest.start(config)) {
      VectorDspDriver driver = new VectorDspDriver(sim, config, DspMath.DEFAULT);
      for (int[] rc : new int[][] {{8, 8}, {16, 32}, {32, 16}}) {
        int r = rc[0];
        int c = rc[1];
        short[] m = matrix(r, c, 7L * r + c);
        int dst = r * c / lanes;
        DspProgram p = DspPermutations.transpose(r, c, lanes, 0, dst);
        assertArrayEquals(transposed(m, r, c), runRtl(sim, driver, p, m, dst * lanes, r * c), p.name());
      }
      int c = 16;
      short[] data = new short[20 * c + lanes];
      System.arraycopy(matrix(20, c, 3), 0, data, 0, 20 * c);
      int indexRow = 20 * c / lanes;
      int[] index = {19, 2, 2, 0, 13, 7};
      for (int k = 0; k < index.length; k++) {
        data[indexRow * lanes + k] = (short) index[k];
      }
      int dst = indexRow + 1;
      DspProgram p = DspPermutations.gatherRows(index.length, c, lanes, indexRow, 0, dst);
      assertArrayEquals(gathered(data, index, c), runRtl(sim, driver, p, data, dst * lanes, index.length * c),
          p.name());
    }
  }

  private static short[] runRtl(Simulator sim, VectorDspDriver driver, DspProgram p, short[] data, int at, int n) {
    for (int i = 0; i < data.length; i++) {
      driver.writeElement(i, data[i]);
    }
    sim.poke("buf_we", 0);
    driver.loadProgram(p);
    assertEquals(p.cycles(), driver.execute(p.cycles()), "RTL cycles of " + p.name());
    short[] out = new short[n];
    for (int i = 0; i < n; i++) {
      sim.poke("buf_addr", at + i);
      out[i] = (short) sim.peekLong("buf_rdata");
    }
    return out;
  }

  @Test
  void withoutPermuteThePermutationOpcodesAreNops() {
    DspProgram p = DspPermutations.transpose(8, 8, 8, 0, 8);
    DspInterpreter dsp = new DspInterpreter(8, ROWS, DspMath.DEFAULT);
    dsp.write(3, (short) 0x1234);
    dsp.run(p);
    assertEquals(0, dsp.read(8 * 8 + 3 * 8));
    assertThrows(IllegalArgumentException.class, () -> DspPermutations.transpose(12, 8, 8, 0, 0));
    assertEquals(true, DspOp.LDG.permutes() && !DspOp.LDG.roundsLate());
  }
}
