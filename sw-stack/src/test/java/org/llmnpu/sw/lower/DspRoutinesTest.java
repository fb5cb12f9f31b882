package org.llmnpu.sw.lower;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.function.Function;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.llmnpu.isa.MachineParams;
import org.llmnpu.isa.dsp.DspInterpreter;
import org.llmnpu.isa.dsp.DspKernel;
import org.llmnpu.isa.dsp.DspMath;
import org.llmnpu.isa.dsp.DspPipeline;
import org.llmnpu.isa.dsp.DspProgram;
import org.llmnpu.numerics.fp16.Fp16;

/**
 * The decoder's DSP routines compiled for a four-stage DSP (rows interleaved, Q/K/V-style quantization of
 * several vectors in one run) leave the whole buffer bit for bit as the plain one-stage programs do, on the
 * small NPU's 4 lanes and the default 16, with ragged lengths (stories260K's hidden 172); and they stall less.
 * Merged one-row runs ({@link DspMerge}; SoftMax kernels compacted to few registers first) equal the separate runs.
 */
class DspRoutinesTest {
  private static final int ROWS = 512;

  private static DspRoutines routines(int lanes, int stages) {
    return new DspRoutines(new MachineParams.DspParams(lanes, ROWS, 256, 12, 2, 1L << 24, stages), 1e-5f);
  }

  /** A buffer of random FP16 values, padding lanes included (a few zeros and negative values). */
  private static short[] randomBuffer(int lanes, long seed) {
    Random rnd = new Random(seed);
    short[] b = new short[ROWS * lanes];
    for (int i = 0; i < b.length; i++) {
      b[i] = rnd.nextInt(16) == 0 ? 0 : Fp16.fromFloat((float) (rnd.nextGaussian() * 3));
    }
    return b;
  }

  /** Runs the programs in turn on {@code buffer}; returns the buffer after, and {cycles, issued} summed. */
  private static short[] run(int lanes, short[] buffer, List<DspProgram> programs, long[] counts) {
    DspInterpreter dsp = new DspInterpreter(lanes, ROWS, DspMath.DEFAULT).pipeline(DspPipeline.FOUR_STAGE_EXECUTE);
    for (int i = 0; i < buffer.length; i++) {
      dsp.write(i, buffer[i]);
    }
    for (DspProgram p : programs) {
      dsp.run(p);
      counts[0] += dsp.cycles();
      counts[1] += dsp.issued();
    }
    short[] out = new short[buffer.length];
    for (int i = 0; i < out.length; i++) {
      out[i] = dsp.read(i);
    }
    return out;
  }

  /** Same buffer after the four-stage routines as after the plain ones; returns {plain stalls, pipelined stalls}. */
  private static long[] compare(int lanes, Function<DspRoutines, List<DspProgram>> plain,
      Function<DspRoutines, List<DspProgram>> pipelined) {
    short[] buffer = randomBuffer(lanes, 17 + lanes);
    long[] p = new long[2];
    long[] q = new long[2];
    short[] expected = run(lanes, buffer, plain.apply(routines(lanes, 1)), p);
    short[] actual = run(lanes, buffer, pipelined.apply(routines(lanes, 4)), q);
    assertArrayEquals(expected, actual);
    return new long[] {p[0] - p[1], q[0] - q[1]};
  }

  @ParameterizedTest
  @ValueSource(ints = {4, 16})
  void quantizingThreeVectorsInOneRunEqualsThreeRuns(int lanes) {
    int[] lens = {172, 33, 3};
    int[] vecs = {-1, 1, -1};
    List<DspQuantizer.Vector> vectors = new ArrayList<>();
    int row = 0;
    for (int i = 0; i < lens.length; i++) {
      int rows = (lens[i] + lanes - 1) / lanes;
      int vec = vecs[i] < 0 ? -1 : row + rows;
      vectors.add(new DspQuantizer.Vector(row, lens[i], vec, row + 2 * rows, ROWS - 1 - i));
      row += 3 * rows;
    }
    long[] stalls = compare(lanes, r -> vectors.stream().map(v -> r.quantize(List.of(v))).toList(),
        r -> List.of(r.quantize(vectors)));
    assertTrue(2 * stalls[1] < stalls[0], "stalls " + stalls[1] + " against " + stalls[0] + " plain");
  }

  /**
   * RMSNorm's sum of squares software-pipelined ({@link org.llmnpu.isa.dsp.DspKernels.Options#rotateSumOfSquares()})
   * leaves the buffer bit for bit as the plain kernel does, over whole rows (rotated) and ragged ones (as it is), and
   * takes at least 5 cycles a row fewer on the four-stage DSP; the lowering's RMSNorm ({@link DspRoutines#kernel}) is
   * the rotated one.
   */
  @ParameterizedTest
  @ValueSource(ints = {4, 16, 64})
  void rmsNormSumOfSquaresRotatedEqualsThePlainKernel(int lanes) {
    MachineParams.DspParams dsp = new MachineParams.DspParams(lanes, ROWS, 256, 12, 2, 1L << 24, 4);
    for (int len : new int[] {2 * lanes, 3 * lanes, 64 * lanes, 172}) {
      int rows = (len + lanes - 1) / lanes;
      DspProgram plain = org.llmnpu.isa.dsp.DspKernels.compile(DspKernel.RMSNORM, len, lanes, 1e-5f, DspMath.DEFAULT,
          dsp.kernelOptions());
      DspProgram rotated = org.llmnpu.isa.dsp.DspKernels.compile(DspKernel.RMSNORM, len, lanes, 1e-5f,
          DspMath.DEFAULT, dsp.kernelOptions().withSumOfSquaresRotated(true));
      short[] buffer = randomBuffer(lanes, 3 + len);
      long[] before = new long[2];
      long[] after = new long[2];
      assertArrayEquals(run(lanes, buffer, List.of(plain), before), run(lanes, buffer, List.of(rotated), after),
          "len " + len);
      boolean whole = len % lanes == 0 && rows >= 3;
      assertTrue(whole ? before[0] - after[0] >= 5L * (rows - 2) : rotated.equals(plain),
          "len " + len + ": " + after[0] + " cycles against " + before[0]);
      DspProgram lowered = routines(lanes, 4).kernel(DspKernel.RMSNORM, len, new int[] {0, rows}, new int[] {2 * rows});
      assertTrue(lowered.name().contains("(sum of squares rotated)") == whole, lowered.name());
    }
  }

  /**
   * A token's attention outputs dequantized and quantized in one run ({@link HeadOutputCodes}) give the separate runs'
   * dequantized rows, codes and scale bit for bit (heads of one and two rows, 4 to 64 lanes), in fewer cycles.
   */
  @ParameterizedTest
  @ValueSource(ints = {4, 16, 64})
  void outputCodesEqualScalesThenQuantization(int lanes) {
    for (int[] shape : new int[][] {{8, 1}, {32, 2}, {3, 2}}) {
      int heads = shape[0];
      int perHead = shape[1];
      int rows = heads * perHead;
      DspRoutines r = new DspRoutines(new MachineParams.DspParams(lanes, ROWS, 512, 12, 2, 1L << 24, 4), 1e-5f);
      short c = (short) 0x1C00;
      int scales = 3 * rows;
      List<DspProgram> separate = new ArrayList<>();
      for (int h = 0; h < heads; h++) {
        separate.add(r.scale(h * perHead, perHead * lanes, scales + h, -1, c, -1, rows + h * perHead));
      }
      separate.add(r.quantize(rows, rows * lanes, -1, 2 * rows, ROWS - 1));
      DspProgram fused = r.outputCodes(0, heads, perHead, scales, c, rows, 2 * rows, ROWS - 1);
      short[] buffer = randomBuffer(lanes, 23 + lanes + heads);
      long[] before = new long[2];
      long[] after = new long[2];
      short[] expected = run(lanes, buffer, separate, before);
      short[] actual = run(lanes, buffer, List.of(fused), after);
      for (int at : new int[] {rows * lanes, 2 * rows * lanes}) {
        assertArrayEquals(java.util.Arrays.copyOfRange(expected, at, at + rows * lanes),
            java.util.Arrays.copyOfRange(actual, at, at + rows * lanes), heads + "x" + perHead + " rows at " + at);
      }
      assertArrayEquals(java.util.Arrays.copyOfRange(expected, (ROWS - 1) * lanes, ROWS * lanes),
          java.util.Arrays.copyOfRange(actual, (ROWS - 1) * lanes, ROWS * lanes), "scale row");
      assertTrue(after[0] < before[0], heads + "x" + perHead + ": " + after[0] + " cycles against " + before[0]);
    }
  }

  /**
   * The SwiGLU product computed in the quantization's absmax pass ({@link DspQuantizer.Product}) gives the codes and
   * scales of the separate runs it replaces (up's scale, SiLU's scale, the quantization of their product), for one
   * token and two in one run, ragged lengths too; in fewer cycles.
   */
  @ParameterizedTest
  @ValueSource(ints = {4, 16, 64})
  void productQuantizationEqualsScalesThenQuantization(int lanes) {
    short c = (short) 0x2E66;
    for (int len : new int[] {3, 20, 172}) {
      int rows = (len + lanes - 1) / lanes;
      int vec = 10 * rows;
      for (int n = 1; n <= 2; n++) {
        List<DspProgram> separate = new ArrayList<>();
        List<DspQuantizer.Vector> old = new ArrayList<>();
        List<DspQuantizer.Vector> products = new ArrayList<>();
        DspRoutines r = routines(lanes, 4);
        for (int i = 0; i < n; i++) {
          int gate = 5 * rows * i;
          int acc = gate + rows;
          int up = gate + 2 * rows;
          int sw = gate + 3 * rows;
          int out = gate + 4 * rows;
          separate.add(r.scale(acc, len, ROWS - 1 - i, vec, null, -1, up));
          separate.add(r.scale(gate, len, -1, -1, c, -1, sw));
          old.add(new DspQuantizer.Vector(sw, len, up, out, ROWS - 4 - i));
          products.add(new DspQuantizer.Vector(up, len, -1, out, ROWS - 4 - i,
              new DspQuantizer.Product(gate, c, acc, ROWS - 1 - i, vec)));
        }
        separate.addAll(r.quantizeRuns(old));
        short[] buffer = randomBuffer(lanes, 5 + len + n);
        long[] before = new long[2];
        long[] after = new long[2];
        short[] expected = run(lanes, buffer, separate, before);
        short[] actual = run(lanes, buffer, r.quantizeRuns(products), after);
        for (int i = 0; i < n; i++) {
          int out = (5 * rows * i + 4 * rows) * lanes;
          assertArrayEquals(java.util.Arrays.copyOfRange(expected, out, out + len),
              java.util.Arrays.copyOfRange(actual, out, out + len), "codes, len " + len + ", vector " + i);
          int scale = (ROWS - 4 - i) * lanes;
          assertArrayEquals(java.util.Arrays.copyOfRange(expected, scale, scale + lanes),
              java.util.Arrays.copyOfRange(actual, scale, scale + lanes), "scale, len " + len + ", vector " + i);
        }
        assertTrue(after[0] < before[0], "len " + len + " x" + n + ": " + after[0] + " cycles against " + before[0]);
      }
    }
  }

  @ParameterizedTest
  @ValueSource(ints = {4, 16})
  void scaleAndSumPartialsInterleavedEqualPlain(int lanes) {
    for (int len : new int[] {1, 3, 20, 172}) {
      int rows = (len + lanes - 1) / lanes;
      Function<DspRoutines, List<DspProgram>> scale = r -> List.of(
          r.scale(0, len, 4 * rows, rows, (short) 0x3C66, 2 * rows, 3 * rows),
          r.scale(0, len, -1, -1, (short) 0x2E00, -1, 3 * rows));
      long[] s = compare(lanes, scale, scale);
      Function<DspRoutines, List<DspProgram>> sums = r -> List.of(r.sumPartials(0, 3, rows, len, 3 * rows, 7 * rows),
          r.sumPartials(0, 2, rows, len, -1, 8 * rows));
      long[] p = compare(lanes, sums, sums);
      if (rows >= 4) {
        assertTrue(4 * s[1] < s[0] && 4 * p[1] < p[0], "len " + len + ": stalls " + s[1] + " / " + p[1]
            + " against " + s[0] + " / " + p[0] + " plain");
      }
    }
  }

  @ParameterizedTest
  @ValueSource(ints = {4, 16})
  void mergedOneRowScalesEqualSeparateRuns(int lanes) {
    Function<DspRoutines, List<DspProgram>> scales = r -> List.of(
        r.scale(0, lanes, 10, -1, (short) 0x2E00, -1, 20), r.scale(1, lanes, 11, -1, (short) 0x2E00, -1, 21),
        r.scale(2, lanes - 1, 12, -1, (short) 0x2E00, -1, 22));
    compare(lanes, scales, r -> r.merged(scales.apply(r)));
    assertTrue(routines(lanes, 4).merged(scales.apply(routines(lanes, 4))).size() == 2, "a different length does not merge");
    Function<DspRoutines, List<DspProgram>> same = r -> List.of(
        r.scale(0, lanes, 10, -1, (short) 0x2E00, -1, 20), r.scale(1, lanes, 11, -1, (short) 0x2E00, -1, 21),
        r.scale(2, lanes, 12, -1, (short) 0x2E00, -1, 22));
    assertTrue(routines(lanes, 4).merged(same.apply(routines(lanes, 4))).size() == 1);
    long[] stalls = compare(lanes, same, r -> r.merged(same.apply(r)));
    assertTrue(2 * stalls[1] < stalls[0], "stalls " + stalls[1] + " against " + stalls[0] + " separate");
  }

  @ParameterizedTest
  @ValueSource(ints = {4, 16})
  void mergedOneRowSoftmaxesEqualSeparateRuns(int lanes) {
    for (int len : new int[] {1, lanes - 1, lanes}) {
      Function<DspRoutines, List<DspProgram>> softmaxes = r -> List.of(
          r.kernel(DspKernel.SOFTMAX, len, new int[] {0}, new int[] {10}),
          r.kernel(DspKernel.SOFTMAX, len, new int[] {1}, new int[] {11}),
          r.kernel(DspKernel.SOFTMAX, len, new int[] {2}, new int[] {12}));
      assertTrue(routines(lanes, 4).mergedKernels(softmaxes.apply(routines(lanes, 4))).size() == 1);
      long[] stalls = compare(lanes, softmaxes, r -> r.mergedKernels(softmaxes.apply(r)));
      assertTrue(2 * stalls[1] < stalls[0], "len " + len + ": stalls " + stalls[1] + " against " + stalls[0]);
    }
  }
  /**
   * SoftMax over more than one row (decode's scores over 17 slots): loops unrolled ({@link DspMerge#unrolled}, the
   * last row's mask by a {@code SETLEN} of what is left) so that copies merge; the merged runs leave the buffer as the
   * separate ones, with fewer stalls, and an unrolled program alone equals its loop.
   */
  @ParameterizedTest
  @ValueSource(ints = {4, 16})
  void mergedMultiRowSoftmaxesEqualSeparateRuns(int lanes) {
    for (int len : new int[] {lanes + 1, 2 * lanes, 2 * lanes + 3}) {
      int rows = (len + lanes - 1) / lanes;
      Function<DspRoutines, List<DspProgram>> softmaxes = r -> List.of(
          r.kernel(DspKernel.SOFTMAX, len, new int[] {0}, new int[] {100}),
          r.kernel(DspKernel.SOFTMAX, len, new int[] {rows}, new int[] {100 + rows}),
          r.kernel(DspKernel.SOFTMAX, len, new int[] {2 * rows}, new int[] {100 + 2 * rows}));
      List<DspProgram> runs = routines(lanes, 4).mergedKernels(softmaxes.apply(routines(lanes, 4)));
      long[] stalls = compare(lanes, softmaxes, r -> r.mergedKernels(softmaxes.apply(r)));
      if (rows == 2) {
        // three rows' copies exceed the registers or the program memory: those run as compiled
        assertTrue(runs.size() < 3, "len " + len + ": " + runs.size() + " runs");
        assertTrue(stalls[1] < stalls[0], "len " + len + ": stalls " + stalls[1] + " against " + stalls[0]);
      }
      compare(lanes, softmaxes, r -> softmaxes.apply(r).stream()
          .map(q -> new DspProgram(q.name(), DspMerge.unrolled(q.instructions(), lanes))).toList());
    }
  }

  /**
   * The static quantization of the fused lowering ({@link DspRoutines#quantizeStatic}): codes
   * {@code saturate(rint(fp16(x·v)·k))} (some saturating) in the output rows' first 172 lanes, padding untouched, the
   * scale broadcast over its row; the pipelined program leaves the buffer as the plain one.
   */
  @ParameterizedTest
  @ValueSource(ints = {4, 16})
  void staticQuantizationGivesTheRoundedSaturatedCodes(int lanes) {
    short k = Fp16.fromDouble(19.5);
    short d = Fp16.fromDouble(0.05);
    int len = 172;
    int vec = 100;
    int out = 200;
    int scaleRow = 300;
    Function<DspRoutines, List<DspProgram>> q = r -> List.of(r.quantizeStatic(0, len, vec, k, out, scaleRow, d));
    compare(lanes, q, q);
    short[] before = randomBuffer(lanes, 5);
    short[] after = run(lanes, before, q.apply(routines(lanes, 4)), new long[2]);
    int saturated = 0;
    for (int i = 0; i < ROWS * lanes; i++) {
      short expected = before[i];
      if (i >= out * lanes && i < out * lanes + len) {
        int j = i - out * lanes;
        short product = Fp16.fromDouble(Fp16.toDouble(before[j]) * Fp16.toDouble(before[vec * lanes + j]));
        int code = Fp16.toInt(product, k, org.llmnpu.numerics.fp16.IntFormat.INT8);
        saturated += Math.abs(code) == 127 || code == -128 ? 1 : 0;
        expected = (short) code;
      } else if (i >= scaleRow * lanes && i < (scaleRow + 1) * lanes) {
        expected = d;
      }
      assertTrue(expected == after[i], "element " + i + ": " + after[i] + " expected " + expected);
    }
    assertTrue(saturated > 0 && saturated < len, "some codes saturate: " + saturated);
  }
}
