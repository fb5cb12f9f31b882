package org.llmnpu.cosim.pim.bench;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import org.junit.jupiter.api.extension.ExtendWith;
import org.llmnpu.hdl.bench.BenchRecord;
import org.llmnpu.numerics.fp.FloatFormat;
import org.llmnpu.numerics.pim.PimAlignment;
import org.llmnpu.numerics.pim.PimInputFormat;
import org.llmnpu.sw.io.Llama2cCheckpoint;
import org.llmnpu.sw.model.BlockKernels;
import org.llmnpu.sw.model.DenseKvCache;
import org.llmnpu.sw.model.LayerWeights;
import org.llmnpu.sw.model.ModelConfig;
import org.llmnpu.sw.model.ModelWeights;
import org.llmnpu.sw.model.Ops;

/**
 * Accuracy of the PiM macro's FP8 modes on a real model: stories260K (llama2.c checkpoint) decoded
 * greedily from BOS in FP32; then the same token sequence is fed (teacher forcing) through a decoder
 * whose every projection (Q, K, V, O, gate, up, down, classifier) runs as the macro computes it
 * (golden model = the RTL bit for bit), per mode. Prints, per mode: the SNR of the alignment error
 * alone (result vs FP64 of the same FP8 operands), the logits SNR against FP32 and the top-1
 * agreement with FP32 over the positions. The reference forward is checked against the
 * sw-stack's own Transformer first.
 *
 * <p>Run: {@code mvn -q -pl cosim -am test -Dbench -Dtest=PimAccuracyBench -Dsurefire.failIfNoSpecifiedTests=false}
 * (the {@code @Test} only launches {@link #main}; system property {@code pim.checkpoint} overrides
 * the checkpoint path; default: the stories260K shipped in sw-stack). Main arguments: the
 * checkpoint path and the number of steps.
 */
@ExtendWith(BenchRecord.class)
public final class PimAccuracyBench {
  @org.junit.jupiter.api.Test
  void figures() throws Exception {
    main(new String[] {System.getProperty("pim.checkpoint", ""), System.getProperty("pim.steps", "64")});
  }

  public static void main(String[] args) throws Exception {
    String path = args.length > 0 ? args[0] : "";
    int steps = args.length > 1 ? Integer.parseInt(args[1]) : 32;
    Path file = Path.of(path.isEmpty() ? "stories260K (bundled)" : path);
    if (!path.isEmpty() && !Files.exists(file)) {
      throw new IllegalArgumentException("checkpoint not found: " + file);
    }
    ModelWeights w = path.isEmpty() ? org.llmnpu.sw.io.ModelCatalog.load("stories260K", 0) : Llama2cCheckpoint.read(file);
    ModelConfig c = w.config();
    System.out.printf(Locale.ROOT, "model %s: dim %d, hidden %d, layers %d, vocab %d; %d greedy steps from BOS%n",
        file.getFileName(), c.dim(), c.hiddenDim(), c.layers(), c.vocabSize(), steps);

    int[] tokens = new int[steps + 1];
    tokens[0] = 1;
    List<float[]> refLogits = run(w, tokens, steps, Ops::matvec, true);
    org.llmnpu.sw.model.Transformer t = new org.llmnpu.sw.model.Transformer(w);
    float[][] check = t.forwardAll(java.util.Arrays.copyOf(tokens, steps), t.newCache(steps));
    double diff = 0;
    for (int p = 0; p < steps; p++) {
      for (int v = 0; v < c.vocabSize(); v++) {
        diff = Math.max(diff, Math.abs(check[p][v] - refLogits.get(p)[v]));
      }
    }
    System.out.printf(Locale.ROOT, "reference forward vs sw-stack Transformer: max |logit diff| %.3g%n", diff);

    System.out.println("| mode | alignment SNR vs FP64 of the FP8 operands (dB) | logits SNR vs FP32 (dB) | top-1 agreement with FP32 |");
    System.out.println("|---|---|---|---|");
    record Mode(String name, FloatFormat f, PimAlignment a, int bits) {
    }
    List<Mode> modes = List.of(
        new Mode("FP8 E4M3 post-alignment (exact)", FloatFormat.FP8_E4M3, PimAlignment.POST, 0),
        new Mode("FP8 E4M3 pre-alignment, 4 bits (= significand)", FloatFormat.FP8_E4M3, PimAlignment.PRE, 4),
        new Mode("FP8 E4M3 pre-alignment, 6 bits", FloatFormat.FP8_E4M3, PimAlignment.PRE, 6),
        new Mode("FP8 E4M3 pre-alignment, 8 bits", FloatFormat.FP8_E4M3, PimAlignment.PRE, 8),
        new Mode("FP8 E4M3 pre-alignment, 12 bits", FloatFormat.FP8_E4M3, PimAlignment.PRE, 12),
        new Mode("FP8 E5M2 post-alignment (exact)", FloatFormat.FP8_E5M2, PimAlignment.POST, 0),
        new Mode("FP8 E5M2 pre-alignment, 8 bits", FloatFormat.FP8_E5M2, PimAlignment.PRE, 8));
    for (Mode m : modes) {
      PimMatvec mv = new PimMatvec(m.f, m.a, m.bits, 64);
      List<float[]> logits = run(w, tokens, steps, (mat, x) -> mv.apply(mat, x), false);
      report(m.name, mv.alignmentSnrDb(), refLogits, logits);
    }
    record InMode(String name, PimInputFormat in, PimAlignment a, int bits) {
    }
    FloatFormat e4m3 = FloatFormat.FP8_E4M3;
    List<InMode> inModes = List.of(
        new InMode("BF16 inputs × E4M3 weights, post-alignment (exact)", PimInputFormat.BF16, PimAlignment.POST, 0),
        new InMode("BF16 inputs × E4M3 weights, pre-alignment, 8 bits", PimInputFormat.BF16, PimAlignment.PRE, 8),
        new InMode("BF16 inputs × E4M3 weights, pre-alignment, 12 bits", PimInputFormat.BF16, PimAlignment.PRE, 12),
        new InMode("MXFP8 E4M3 inputs × E4M3 weights, post-alignment (exact)", PimInputFormat.mxfp8(e4m3), PimAlignment.POST, 0),
        new InMode("MXFP8 E4M3 inputs × E4M3 weights, pre-alignment, 8 bits", PimInputFormat.mxfp8(e4m3), PimAlignment.PRE, 8),
        new InMode("MXINT8 inputs × E4M3 weights, post-alignment (exact)", PimInputFormat.MXINT8, PimAlignment.POST, 0),
        new InMode("MXINT8 inputs × E4M3 weights, pre-alignment, 8 bits", PimInputFormat.MXINT8, PimAlignment.PRE, 8),
        new InMode("MXINT8 inputs × E4M3 weights, pre-alignment, 10 bits", PimInputFormat.MXINT8, PimAlignment.PRE, 10));
    for (InMode m : inModes) {
      PimMatvec mv = new PimMatvec(e4m3, m.in, m.a, m.bits, 64);
      List<float[]> logits = run(w, tokens, steps, (mat, x) -> mv.apply(mat, x), false);
      report(m.name, mv.alignmentSnrDb(), refLogits, logits);
    }
    List<float[]> int8 = run(w, tokens, steps, PimAccuracyBench::int8Matvec, false);
    report("INT8 (per-row weights, per-vector inputs; exact INT macro)", Double.NaN, refLogits, int8);
    if (!Boolean.getBoolean("pim.skipRtl")) {
      rtlOnRealData(w);
    }
  }

  /**
   * The RTL itself on real operands: layer 0's gate projection (64 → 172, ragged N) for the
   * activations of the first tokens, FP8 E4M3 codes, on a 16×16 macro in Verilator, PRE and POST.
   */
  static void rtlOnRealData(ModelWeights w) {
    ModelConfig c = w.config();
    int tokensUsed = 4;
    float[][] xs = new float[tokensUsed][];
    DenseKvCache kv = new DenseKvCache(c, tokensUsed);
    org.llmnpu.sw.model.Transformer t = new org.llmnpu.sw.model.Transformer(w);
    int[] prompt = new int[tokensUsed];
    prompt[0] = 1;
    for (int p = 0; p + 1 < tokensUsed; p++) {
      prompt[p + 1] = Ops.argmax(t.forward(prompt[p], p, kv));
    }
    for (int p = 0; p < tokensUsed; p++) {
      org.llmnpu.sw.model.LayerActivations a = org.llmnpu.sw.model.LayerActivations.capture(t,
          java.util.Arrays.copyOf(prompt, p + 1), 0);
      xs[p] = Ops.rmsNorm(a.residualMid(), w.layers()[0].ffnNorm(), c.normEps());
    }
    float[][] gate = w.layers()[0].w1();
    FloatFormat f = FloatFormat.FP8_E4M3;
    long[][] xq = new long[tokensUsed][c.dim()];
    for (int p = 0; p < tokensUsed; p++) {
      double s = pow2Scale(xs[p], f);
      for (int i = 0; i < c.dim(); i++) {
        xq[p][i] = f.encode(xs[p][i] / s, org.llmnpu.numerics.fp.Rounding.NEAREST_EVEN, org.llmnpu.numerics.fp.Overflow.SATURATE);
      }
    }
    long[][] wq = new long[c.dim()][gate.length];
    for (int o = 0; o < gate.length; o++) {
      double s = pow2Scale(gate[o], f);
      for (int i = 0; i < c.dim(); i++) {
        wq[i][o] = f.encode(gate[o][i] / s, org.llmnpu.numerics.fp.Rounding.NEAREST_EVEN, org.llmnpu.numerics.fp.Overflow.SATURATE);
      }
    }
    System.out.printf(Locale.ROOT, "%nRTL on real operands: layer 0 w1 (K=%d, N=%d), M=%d tokens, FP8 E4M3, 16x16 macro, Verilator%n",
        c.dim(), gate.length, tokensUsed);
    for (org.llmnpu.pim.PimMacroConfig.Alignment a : new org.llmnpu.pim.PimMacroConfig.Alignment[] {
        org.llmnpu.pim.PimMacroConfig.Alignment.PRE, org.llmnpu.pim.PimMacroConfig.Alignment.POST}) {
      org.llmnpu.pim.PimMacroConfig mc = new org.llmnpu.pim.PimMacroConfig(16, 16, org.llmnpu.pim.PimPrecision.FP8_E4M3, a,
          8, 1, 8, 32, 16, 0);
      long t0 = System.nanoTime();
      org.llmnpu.cosim.pim.PimCosim.Outcome o = org.llmnpu.cosim.pim.PimCosim.run(mc, xq, wq,
          org.llmnpu.verilator.SimOptions.fromEnvironment());
      System.out.printf(Locale.ROOT, "  %s: bit-exact %s, RTL cycles %d (formula %d), SNR vs FP64 of the FP8 operands %.1f dB (%.1f s)%n",
          a, o.bitExact() ? "yes" : "NO", o.rtlCycles(), o.modelCycles(), o.snrDb(), (System.nanoTime() - t0) / 1e9);
    }
  }

  private static double pow2Scale(float[] v, FloatFormat f) {
    double max = 0;
    for (float x : v) {
      max = Math.max(max, Math.abs(x));
    }
    return max == 0 ? 1 : Math.scalb(1.0, (int) Math.ceil(Math.log(max / f.maxFinite()) / Math.log(2)));
  }

  private static void report(String name, double alignSnr, List<float[]> ref, List<float[]> got) {
    double sig = 0;
    double err = 0;
    int agree = 0;
    for (int p = 0; p < ref.size(); p++) {
      for (int v = 0; v < ref.get(p).length; v++) {
        double d = got.get(p)[v] - ref.get(p)[v];
        sig += ref.get(p)[v] * (double) ref.get(p)[v];
        err += d * d;
      }
      agree += Ops.argmax(ref.get(p)) == Ops.argmax(got.get(p)) ? 1 : 0;
    }
    System.out.printf(Locale.ROOT, "| %s | %s | %.1f | %d/%d (%.1f %%) |%n", name,
        Double.isNaN(alignSnr) ? "—" : Double.isInfinite(alignSnr) ? "∞ (exact)" : String.format(Locale.ROOT, "%.1f", alignSnr),
        10 * Math.log10(sig / err), agree, ref.size(), 100.0 * agree / ref.size());
  }

  /**
   * Decodes with {@code matvec} for every projection. With {@code greedy} the next token is the
   * argmax (filling {@code tokens}); otherwise the given tokens are fed. Returns each step's logits.
   */
  static List<float[]> run(ModelWeights w, int[] tokens, int steps, BinaryOperator2 matvec, boolean greedy) {
    ModelConfig c = w.config();
    DenseKvCache kv = new DenseKvCache(c, steps);
    List<float[]> out = new ArrayList<>();
    float[] attention = new float[c.dim()];
    for (int pos = 0; pos < steps; pos++) {
      float[] x = BlockKernels.embed(w, tokens[pos]);
      for (int l = 0; l < c.layers(); l++) {
        LayerWeights lw = w.layers()[l];
        float[] xb = Ops.rmsNorm(x, lw.attnNorm(), c.normEps());
        float[] q = matvec.apply(lw.wq(), xb);
        float[] k = matvec.apply(lw.wk(), xb);
        float[] v = matvec.apply(lw.wv(), xb);
        Ops.rope(q, pos, c.headDim(), c.ropeTheta());
        Ops.rope(k, pos, c.headDim(), c.ropeTheta());
        kv.write(l, pos, k, v);
        kv.attend(l, q, pos, attention);
        float[] proj = matvec.apply(lw.wo(), attention);
        for (int i = 0; i < x.length; i++) {
          x[i] += proj[i];
        }
        float[] xf = Ops.rmsNorm(x, lw.ffnNorm(), c.normEps());
        float[] gate = matvec.apply(lw.w1(), xf);
        float[] up = matvec.apply(lw.w3(), xf);
        for (int i = 0; i < gate.length; i++) {
          gate[i] = Ops.silu(gate[i]) * up[i];
        }
        float[] down = matvec.apply(lw.w2(), gate);
        for (int i = 0; i < x.length; i++) {
          x[i] += down[i];
        }
      }
      float[] logits = matvec.apply(w.lmHead(), Ops.rmsNorm(x, w.finalNorm(), c.normEps()));
      out.add(logits);
      if (greedy && pos + 1 < tokens.length) {
        tokens[pos + 1] = Ops.argmax(logits);
      }
    }
    return out;
  }

  /** A projection {@code y = W·x}. */
  interface BinaryOperator2 {
    float[] apply(float[][] w, float[] x);
  }

  /** INT8: symmetric per-output-row weights, per-vector input, exact integer dot products. */
  static float[] int8Matvec(float[][] w, float[] x) {
    double xmax = 0;
    for (float v : x) {
      xmax = Math.max(xmax, Math.abs(v));
    }
    double xs = xmax == 0 ? 1 : xmax / 127;
    int[] xq = new int[x.length];
    for (int i = 0; i < x.length; i++) {
      xq[i] = (int) Math.max(-127, Math.min(127, Math.rint(x[i] / xs)));
    }
    float[] y = new float[w.length];
    for (int o = 0; o < w.length; o++) {
      double wmax = 0;
      for (float v : w[o]) {
        wmax = Math.max(wmax, Math.abs(v));
      }
      double ws = wmax == 0 ? 1 : wmax / 127;
      long acc = 0;
      for (int i = 0; i < x.length; i++) {
        acc += (long) Math.max(-127, Math.min(127, Math.rint(w[o][i] / ws))) * xq[i];
      }
      y[o] = (float) (acc * xs * ws);
    }
    return y;
  }
}
