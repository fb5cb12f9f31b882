package org.llmnpu.sw.lower;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.llmnpu.isa.MachineParams;
import org.llmnpu.isa.dsp.DspAssembler;
import org.llmnpu.isa.dsp.DspInstruction;
import org.llmnpu.isa.dsp.DspInterpreter;
import org.llmnpu.isa.dsp.DspMath;
import org.llmnpu.isa.dsp.DspPipeline;
import org.llmnpu.isa.dsp.DspProgram;
import org.llmnpu.numerics.fp16.Fp16;
import org.llmnpu.numerics.fp16.IntFormat;
import org.llmnpu.numerics.vector.Fp16Math;

/**
 * The attention's probability codes against the token's V-scale bound ({@link ValueScaleBound},
 * {@link AttentionSoftmax#withCodes}) on the golden DSP, bit for bit against their reference: the weights, the
 * token's bound and factor computed in Java from the V scales (each FP16 step as specified, the reciprocal's Newton
 * steps as {@link DspQuantChain} states them), the SoftMax's e and 1/Σe from the SoftMax program without its
 * normalization pass, then {@code code = rint(fp16(e·u)·y)} ({@link Fp16#toInt}) and the scale {@code fp16(r·f)};
 * ragged lengths, one to three heads, 4 to 64 lanes, V scales over two decades with one slot far above the rest. The
 * weights cover later slots than the token's (a block's later tokens), the largest V scale among them: the token's
 * codes must not see it. Both forms of the SoftMax (scale folded in, as at {@code --fusion full}; a scale run first,
 * as at {@code none}) give the same codes and scales; on edge-64's DSP the group's runs take fewer cycles than the
 * per-query absmax quantization's.
 */
class ValueScaleBoundTest {
  private static final int ROWS = 512;

  @ParameterizedTest
  @CsvSource({"16,1,1,0", "16,17,2,5", "16,100,3,0", "32,129,2,40", "32,256,3,0", "64,1,3,63", "64,65,3,0",
      "64,200,3,56", "64,256,3,0", "4,37,3,3", "64,64,2,64"})
  void tokenCodesEqualTheirReference(int lanes, int len, int group, int later) {
    var dsp = new MachineParams.DspParams(lanes, ROWS, lanes == 64 ? 512 : 256, 12, 2, 1L << 32, 4);
    DspRoutines r = new DspRoutines(dsp, 1e-5f);
    int rows = r.rows(len);
    short c = Fp16.fromDouble(Math.scalb(1.0, -7) / Math.sqrt(64));
    int codes = 1 + rows + 3 * rows * group;
    int slots = len + later;
    int vScales = ROWS - 4 - r.rows(slots) - ValueScaleBound.ROWS;
    int bound = ROWS - 4 - ValueScaleBound.ROWS;
    List<AttentionSoftmax.Head> heads = new ArrayList<>();
    List<AttentionSoftmax.Head> unscaledHeads = new ArrayList<>();
    List<DspQuantizer.Vector> probabilities = new ArrayList<>();
    List<DspProgram> scaleRuns = new ArrayList<>();
    for (int i = 0; i < group; i++) {
      int base = 1 + rows + 3 * rows * i;
      heads.add(new AttentionSoftmax.Head(base, 0, vScales - r.rows(slots), c, base + rows, base + 2 * rows));
      unscaledHeads.add(AttentionSoftmax.Head.unscaled(base + rows, base + 2 * rows));
      scaleRuns.add(r.scale(base, len, 0, vScales - r.rows(slots), c, -1, base + rows));
      probabilities.add(new DspQuantizer.Vector(base + 2 * rows, len, vScales, codes + rows * i, ROWS - 2 - i));
    }
    Random rnd = new Random(7L * len + lanes + group + later);
    short[] buffer = new short[ROWS * lanes];
    for (int e = 0; e < lanes; e++) {
      buffer[e] = Fp16.fromDouble(0.01 + rnd.nextDouble());
    }
    for (int e = 0; e < slots; e++) {
      buffer[(vScales - r.rows(slots)) * lanes + e] = Fp16.fromDouble(0.001 + rnd.nextDouble() * 0.05);
      buffer[vScales * lanes + e] = Fp16.fromDouble(0.0005 + rnd.nextDouble() * 0.03);
    }
    buffer[vScales * lanes + rnd.nextInt(len)] = Fp16.fromDouble(0.3);
    if (later > 0) {
      buffer[vScales * lanes + len + rnd.nextInt(later)] = Fp16.fromDouble(2.5);
    }
    for (AttentionSoftmax.Head h : heads) {
      for (int e = 0; e < len; e++) {
        buffer[h.scores() * lanes + e] = Fp16.fromDouble(rnd.nextGaussian() * 2000);
      }
    }
    short factor = ValueScaleBound.factor(-8);
    List<DspProgram> bounded = List.of(r.valueWeights(vScales, slots), r.tokenBound(vScales, len, bound, factor));
    List<DspProgram> full = new ArrayList<>(bounded);
    full.addAll(r.probabilityRuns(heads, probabilities, bound, len));
    short[] got = run(lanes, buffer, full);
    List<DspProgram> none = new ArrayList<>(bounded);
    none.addAll(r.merged(scaleRuns));
    none.addAll(r.probabilityRuns(unscaledHeads, probabilities, bound, len));
    short[] gotNone = run(lanes, buffer, none);

    // the reference: the weights and the token's bound in Java; each head's scale and SoftMax without its
    // normalization pass (e stored, 1/Σe broadcast to the scores' first row) on the DSP; the codes and scales in Java
    short c127 = Fp16.fromFloat(127f);
    short[] u = new short[slots];
    short b = (short) 0x1C00;
    for (int j = 0; j < slots; j++) {
      u[j] = Fp16.mul(buffer[vScales * lanes + j], c127);
      assertEquals(u[j], got[vScales * lanes + j], "weight of slot " + j);
      b = j < len ? Fp16.max(b, u[j]) : b;
    }
    short y = reciprocalTimes127(b);
    short f = Fp16.mul(b, factor);
    for (int e = 0; e < lanes; e++) {
      assertEquals(y, got[bound * lanes + e], "bound y, lane " + e);
      assertEquals(f, got[(bound + 1) * lanes + e], "bound factor, lane " + e);
    }
    List<DspProgram> unnormalized = new ArrayList<>();
    for (AttentionSoftmax.Head h : heads) {
      List<DspInstruction> code = AttentionSoftmax.fused(h, len, lanes, 1e-5f).instructions();
      DspAssembler a = new DspAssembler();
      a.emitAll(code.subList(0, code.size() - 5)).setLength(lanes).store(h.scores(), code.get(code.size() - 3).rb());
      unnormalized.add(new DspProgram("unnormalized softmax", a.finish("").instructions()));
    }
    short[] expect = run(lanes, buffer, unnormalized);
    int top = 0;
    for (int i = 0; i < group; i++) {
      AttentionSoftmax.Head h = heads.get(i);
      short reciprocal = expect[h.scores() * lanes];
      for (int j = 0; j < len; j++) {
        int code = Fp16.toInt(Fp16.mul(expect[h.out() * lanes + j], u[j]), y, IntFormat.INT8);
        top = Math.max(top, code);
        int at = (codes + rows * i) * lanes + j;
        assertEquals((short) code, got[at], "code of head " + i + " slot " + j);
        assertEquals(got[at], gotNone[at], "code of head " + i + " slot " + j + " with the scale run first");
      }
      for (int e = 0; e < lanes; e++) {
        int at = (ROWS - 2 - i) * lanes + e;
        assertEquals(Fp16.mul(reciprocal, f), got[at], "scale of head " + i + " lane " + e);
        assertEquals(got[at], gotNone[at], "scale of head " + i + " lane " + e + " with the scale run first");
      }
    }
    assertTrue(top > 0, "some code is not zero");
    if (lanes == 64 && len > lanes) {
      List<DspProgram> quantizations = r.quantizeRuns(probabilities);
      List<DspProgram> separate = new ArrayList<>(r.scaledSoftmaxes(heads, len, quantizations));
      separate.addAll(quantizations);
      long before = cycles(separate, dsp);
      List<DspProgram> now = new ArrayList<>(List.of(r.tokenBound(vScales, len, bound, factor)));
      now.addAll(r.probabilityRuns(heads, probabilities, bound, len));
      long after = cycles(now, dsp);
      assertTrue(after < before, after + " cycles against the absmax quantization's " + before);
    }
  }

  private static long cycles(List<DspProgram> runs, MachineParams.DspParams dsp) {
    return DspChain.chain(runs, dsp.programDepth()).stream().mapToLong(p -> p.cycles(dsp.pipeline())).sum();
  }

  /**
   * {@code 127/b} as {@link DspQuantChain} computes it for a broadcast {@code b} ≥ 2^−8: from {@code 0.75·2^−e}
   * ({@code e = floor(log2 b)}), four steps {@code y ← y·fp16(2 − b·y)}, times 127.
   */
  private static short reciprocalTimes127(short b) {
    short y = Fp16.scalb((short) 0x3A00, -Fp16Math.exponentOf(b));
    short negative = Fp16.neg(b);
    for (int i = 0; i < 4; i++) {
      y = Fp16.mul(y, Fp16.fma(negative, y, (short) 0x4000));
    }
    return Fp16.mul(y, Fp16.fromFloat(127f));
  }

  private static short[] run(int lanes, short[] buffer, List<DspProgram> programs) {
    DspInterpreter dsp = new DspInterpreter(lanes, ROWS, DspMath.DEFAULT).pipeline(DspPipeline.FOUR_STAGE_EXECUTE);
    for (int i = 0; i < buffer.length; i++) {
      dsp.write(i, buffer[i]);
    }
    for (DspProgram p : programs) {
      dsp.run(p);
    }
    short[] out = new short[buffer.length];
    for (int i = 0; i < out.length; i++) {
      out[i] = dsp.read(i);
    }
    return out;
  }
}
