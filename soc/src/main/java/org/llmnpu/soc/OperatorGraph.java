package org.llmnpu.soc;

import java.util.ArrayList;
import java.util.List;
import org.llmnpu.sw.model.ModelConfig;

/**
 * The operators of a prefill or decode step as a llama.cpp-style runtime calls them, one call per operator and
 * layer: per layer the attention norm, the Q, K and V products each after a dynamic quantization of its input, RoPE
 * on Q and K, attention, the O product, the residual add, the FFN norm, gate and up products, SwiGLU, the down
 * product and the second add; per step the final norm and the LM head of the last token.
 */
public final class OperatorGraph {
  private OperatorGraph() {
  }

  /** The phases of inference. */
  public enum Stage {
    PREFILL, DECODE;

    public String key() {
      return name().toLowerCase(java.util.Locale.ROOT);
    }
  }

  /**
   * The operators of {@code stage}: a prefill of {@code promptLen} tokens, or the decode step at position
   * {@code promptLen}.
   */
  public static List<Operator> of(ModelConfig c, Stage stage, int promptLen) {
    return step(c, stage == Stage.PREFILL ? promptLen : 1, stage == Stage.PREFILL ? 0 : promptLen);
  }

  /** A step of {@code m} tokens after {@code pos0} stored ones (a speculative verification: γ + 1 tokens). */
  public static List<Operator> step(ModelConfig c, int m, long pos0) {
    // keys seen, summed over the rows: row i sees pos0 + i + 1 keys
    long ctx = m * pos0 + (long) m * (m + 1) / 2;
    int l = c.layers();
    int dim = c.dim();
    int kv = c.kvDim();
    int hid = c.hiddenDim();
    List<Operator> ops = new ArrayList<>();
    ops.add(new Operator("attn_norm", Operator.Kind.NORM, m, dim, dim, 0, l));
    ops.add(new Operator("quant_x", Operator.Kind.QUANT, m, dim, dim, 0, l));
    ops.add(new Operator("wq", Operator.Kind.MATMUL, m, dim, dim, 0, l));
    ops.add(new Operator("wk", Operator.Kind.MATMUL, m, dim, kv, 0, l));
    ops.add(new Operator("wv", Operator.Kind.MATMUL, m, dim, kv, 0, l));
    ops.add(new Operator("rope", Operator.Kind.ROPE, m, dim + kv, dim + kv, 0, l));
    ops.add(new Operator("attention", Operator.Kind.ATTENTION, m, dim, dim, ctx, l));
    ops.add(new Operator("quant_attn", Operator.Kind.QUANT, m, dim, dim, 0, l));
    ops.add(new Operator("wo", Operator.Kind.MATMUL, m, dim, dim, 0, l));
    ops.add(new Operator("add_attn", Operator.Kind.ADD, m, dim, dim, 0, l));
    ops.add(new Operator("ffn_norm", Operator.Kind.NORM, m, dim, dim, 0, l));
    ops.add(new Operator("quant_ffn", Operator.Kind.QUANT, m, dim, dim, 0, l));
    ops.add(new Operator("w1_gate", Operator.Kind.MATMUL, m, dim, hid, 0, l));
    ops.add(new Operator("w3_up", Operator.Kind.MATMUL, m, dim, hid, 0, l));
    ops.add(new Operator("swiglu", Operator.Kind.ACTIVATION, m, hid, hid, 0, l));
    ops.add(new Operator("quant_h", Operator.Kind.QUANT, m, hid, hid, 0, l));
    ops.add(new Operator("w2_down", Operator.Kind.MATMUL, m, hid, dim, 0, l));
    ops.add(new Operator("add_ffn", Operator.Kind.ADD, m, dim, dim, 0, l));
    ops.add(new Operator("final_norm", Operator.Kind.NORM, 1, dim, dim, 0, 1));
    ops.add(new Operator("lm_head", Operator.Kind.MATMUL, 1, dim, c.vocabSize(), 0, 1));
    return ops;
  }
}
