package org.llmnpu.sw.lower;

import java.util.ArrayList;
import java.util.List;
import org.llmnpu.sw.model.ModelConfig;

/**
 * The GEMMs of one inference phase of a LLaMA-style decoder, from the model's shape: per layer
 * the Q, K, V projections (grouped-query widths), per query head the attention scores
 * {@code Q·Kᵀ} (K = head dim, N = context) and values {@code P·V} (K = context, N = head dim), the
 * output projection and the SwiGLU gate, up and down projections; then the classifier for the
 * last token only. Prefill runs M = prompt tokens over a context of the prompt (the full score
 * square: causal masking saves no GEMM work on this NPU); a decode step runs M = 1 over the
 * context so far. Norms, RoPE, SoftMax and activations are not GEMMs and are not listed.
 */
public final class DecoderGemms {
  /**
   * One GEMM {@code Y[M×N] = X[M×K]·W[K×N]}.
   *
   * @param name    e.g. {@code "L0 w1"}
   * @param kind    the layer-independent name (e.g. {@code "w1"}, {@code "scores"})
   * @param layer   layer index, −1 for the classifier
   */
  public record Gemm(String name, String kind, int layer, int m, int k, int n) {
    public long macs() {
      return (long) m * k * n;
    }
  }

  private DecoderGemms() {
  }

  /** The GEMMs of {@code tokens} tokens attending over {@code context} positions. */
  public static List<Gemm> phase(ModelConfig c, int tokens, int context) {
    if (tokens < 1 || context < tokens) {
      throw new IllegalArgumentException("tokens must be >= 1 and context >= tokens, got " + tokens + " and " + context);
    }
    List<Gemm> out = new ArrayList<>();
    int hd = c.headDim();
    for (int l = 0; l < c.layers(); l++) {
      out.add(new Gemm("L" + l + " wq", "wq", l, tokens, c.dim(), c.dim()));
      out.add(new Gemm("L" + l + " wk", "wk", l, tokens, c.dim(), c.kvDim()));
      out.add(new Gemm("L" + l + " wv", "wv", l, tokens, c.dim(), c.kvDim()));
      for (int h = 0; h < c.heads(); h++) {
        out.add(new Gemm("L" + l + " h" + h + " scores", "scores", l, tokens, hd, context));
        out.add(new Gemm("L" + l + " h" + h + " values", "values", l, tokens, context, hd));
      }
      out.add(new Gemm("L" + l + " wo", "wo", l, tokens, c.dim(), c.dim()));
      out.add(new Gemm("L" + l + " w1", "w1", l, tokens, c.dim(), c.hiddenDim()));
      out.add(new Gemm("L" + l + " w3", "w3", l, tokens, c.dim(), c.hiddenDim()));
      out.add(new Gemm("L" + l + " w2", "w2", l, tokens, c.hiddenDim(), c.dim()));
    }
    out.add(new Gemm("classifier", "classifier", -1, 1, c.dim(), c.vocabSize()));
    return out;
  }

  /** One GEMM of each kind (layer 0, head 0, and the classifier), for the roofline. */
  public static List<Gemm> distinct(List<Gemm> phase) {
    List<Gemm> out = new ArrayList<>();
    java.util.Set<String> seen = new java.util.HashSet<>();
    for (Gemm g : phase) {
      if (seen.add(g.kind())) {
        out.add(g);
      }
    }
    return out;
  }
}
