package org.llmnpu.sw.lower;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.llmnpu.isa.MachineParams;
import org.llmnpu.isa.dsp.DspInstruction;
import org.llmnpu.isa.dsp.DspInterpreter;
import org.llmnpu.isa.dsp.DspKernel;
import org.llmnpu.isa.dsp.DspMath;
import org.llmnpu.isa.dsp.DspOp;
import org.llmnpu.isa.dsp.DspPipeline;
import org.llmnpu.isa.dsp.DspProgram;
import org.llmnpu.numerics.fp16.Fp16;

/**
 * The programs that let a pair of tokens' DSP work join into one resident run leave the buffer bit for bit as the
 * separate runs do, on the golden four-stage DSP with random buffers: the static quantization folded into two merged
 * RMSNorms ({@link DspQuantizeFold}), and two or three vectors of one length quantized in one run with their absmax and
 * codes passes together ({@link DspQuantizer}), on one row, two rows and stories260K's hidden 172, with and without a
 * vector operand; both shorter or faster than what they replace. Where the fold does not apply the runs are as before.
 */
class DspQuantizeFoldTest {
  private static final int ROWS = 512;

  private static DspRoutines routines(int lanes) {
    return new DspRoutines(new MachineParams.DspParams(lanes, ROWS, 256, 12, 2, 1L << 24, 4), 1e-5f);
  }

  /** Runs {@code programs} in turn on a random buffer (seed {@code seed}); the buffer after, and the cycles summed. */
  private static short[] run(int lanes, long seed, List<DspProgram> programs, long[] cycles) {
    Random rnd = new Random(seed);
    DspInterpreter dsp = new DspInterpreter(lanes, ROWS, DspMath.DEFAULT).pipeline(DspPipeline.FOUR_STAGE_EXECUTE);
    for (int i = 0; i < ROWS * lanes; i++) {
      dsp.write(i, rnd.nextInt(16) == 0 ? 0 : Fp16.fromFloat((float) (rnd.nextGaussian() * 3)));
    }
    for (DspProgram p : programs) {
      dsp.run(p);
      cycles[0] += dsp.cycles();
    }
    short[] out = new short[ROWS * lanes];
    for (int i = 0; i < out.length; i++) {
      out[i] = dsp.read(i);
    }
    return out;
  }

  /** Two RMSNorms of {@code dim} (inputs rows 0 and 2·rows, weight row 4·rows, outputs rows and 3·rows), merged. */
  private static List<DspProgram> twoRmsNorms(DspRoutines r, int dim, int rows) {
    return r.mergedKernels(List.of(
        r.kernel(DspKernel.RMSNORM, dim, new int[] {0, 4 * rows}, new int[] {rows}),
        r.kernel(DspKernel.RMSNORM, dim, new int[] {2 * rows, 4 * rows}, new int[] {3 * rows})));
  }

  @ParameterizedTest
  @ValueSource(ints = {4, 16})
  void staticCodesFoldedIntoTwoRmsNormsEqualTheSeparateRuns(int lanes) {
    DspRoutines r = routines(lanes);
    int dim = 64;
    int rows = dim / lanes;
    List<DspProgram> norms = twoRmsNorms(r, dim, rows);
    short k = Fp16.fromDouble(1 / 0.031);
    short d = Fp16.fromDouble(0.031);
    List<DspQuantizeFold.Codes> codes = List.of(new DspQuantizeFold.Codes(rows, dim, k, 5 * rows, ROWS - 2, d),
        new DspQuantizeFold.Codes(3 * rows, dim, k, 6 * rows, ROWS - 1, d));
    List<DspProgram> folded = DspQuantizeFold.runs(r, norms, codes);
    // on 16 lanes (the default NPU) the two RMSNorms merge into one straight-line program and take the codes; on 4 they
    // stay two programs (with loops) and the quantizations run after them as they are
    boolean folds = lanes == 16;
    assertEquals(folds ? 1 : norms.size() + 1, folded.size(), "folded into the RMSNorms' program");
    List<DspProgram> separate = new ArrayList<>(norms);
    codes.forEach(c -> separate.add(r.quantizeStatic(c.in(), c.len(), -1, c.k(), c.out(), c.scaleRow(), c.d())));
    for (long seed = 1; seed <= 3; seed++) {
      long[] a = new long[1];
      long[] b = new long[1];
      short[] expected = run(lanes, seed, separate, a);
      if (folds) {
        // the RMSNorms' FP16 rows (scratch, read by nothing but the codes) are not stored: as before the run
        expected = unwritten(expected, run(lanes, seed, List.of(), new long[1]), codes, lanes);
      }
      assertArrayEquals(expected, run(lanes, seed, folded, b));
      assertTrue(!folds || b[0] < a[0], "folded " + b[0] + " cycles against " + a[0]);
    }
    int words = separate.stream().mapToInt(DspProgram::size).sum();
    assertTrue(!folds || folded.get(0).size() < words - 10, folded.get(0).size() + " words against " + words);
  }

  /**
   * {@link DspQuantizeFold#fold} keeping its input ({@code keepInput}, the three-argument form): the buffer of the
   * separate runs bit for bit, the RMSNorms' FP16 rows too; without it one store a row fewer, and those rows as they
   * were.
   */
  @Test
  void foldKeepsOrLeavesTheInputRows() {
    int lanes = 16;
    DspRoutines r = routines(lanes);
    int dim = 64;
    int rows = dim / lanes;
    List<DspProgram> norms = twoRmsNorms(r, dim, rows);
    assertEquals(1, norms.size(), "one straight-line program");
    DspProgram norm = norms.get(0);
    short k = Fp16.fromDouble(9.0);
    short d = Fp16.fromDouble(0.11);
    List<DspQuantizeFold.Codes> codes = List.of(new DspQuantizeFold.Codes(rows, dim, k, 5 * rows, ROWS - 2, d),
        new DspQuantizeFold.Codes(3 * rows, dim, k, 6 * rows, ROWS - 1, d));
    List<DspProgram> separate = new ArrayList<>(norms);
    codes.forEach(c -> separate.add(r.quantizeStatic(c.in(), c.len(), -1, c.k(), c.out(), c.scaleRow(), c.d())));
    DspProgram kept = DspQuantizeFold.fold(norm, codes, lanes);
    DspProgram left = DspQuantizeFold.fold(norm, codes, lanes, false);
    assertEquals(kept.size() - 2 * rows, left.size(), "one store a row fewer");
    short[] expected = run(lanes, 7, separate, new long[1]);
    assertArrayEquals(expected, run(lanes, 7, List.of(kept), new long[1]));
    assertArrayEquals(unwritten(expected, run(lanes, 7, List.of(), new long[1]), codes, lanes),
        run(lanes, 7, List.of(left), new long[1]));
    // a producer that loads one of the input rows keeps its stores
    List<DspInstruction> code = new ArrayList<>(norm.instructions().subList(0, norm.size() - 1));
    code.add(new DspInstruction(DspOp.LD, 1, 0, 0, 0, false, 0, rows + 1));
    code.add(norm.instructions().get(norm.size() - 1));
    DspProgram reads = new DspProgram("reads", code);
    assertEquals(DspQuantizeFold.fold(reads, codes, lanes).size(), DspQuantizeFold.fold(reads, codes, lanes, false)
        .size(), "kept where the producer reads an input row");
  }

  /** {@code after} with the codes' input rows as in {@code before} (the rows a folded run leaves unwritten). */
  static short[] unwritten(short[] after, short[] before, List<DspQuantizeFold.Codes> codes, int lanes) {
    short[] out = after.clone();
    for (DspQuantizeFold.Codes c : codes) {
      int rows = (c.len() + lanes - 1) / lanes;
      System.arraycopy(before, c.in() * lanes, out, c.in() * lanes, rows * lanes);
    }
    return out;
  }

  @ParameterizedTest
  @ValueSource(ints = {4, 16})
  void vectorsOfOneLengthQuantizedTogetherEqualSeparateRuns(int lanes) {
    DspRoutines r = routines(lanes);
    for (int len : new int[] {lanes - 3, lanes, 2 * lanes - 1, 172}) {
      for (int n = 2; n <= DspQuantizer.MAX_VECTORS; n++) {
        for (boolean vec : new boolean[] {false, true}) {
          int rows = (len + lanes - 1) / lanes;
          List<DspQuantizer.Vector> vectors = new ArrayList<>();
          for (int j = 0; j < n; j++) {
            int base = 3 * rows * j;
            vectors.add(new DspQuantizer.Vector(base, len, vec ? base + rows : -1, base + 2 * rows, ROWS - 1 - j));
          }
          long[] a = new long[1];
          long[] b = new long[1];
          short[] expected = run(lanes, len + n, vectors.stream().map(v -> r.quantize(List.of(v))).toList(), a);
          assertArrayEquals(expected, run(lanes, len + n, List.of(r.quantize(vectors)), b),
              "len " + len + ", " + n + " vectors, vector operand " + vec);
          assertTrue(b[0] < a[0], "len " + len + ": " + b[0] + " cycles against " + a[0]);
        }
      }
    }
  }
}
