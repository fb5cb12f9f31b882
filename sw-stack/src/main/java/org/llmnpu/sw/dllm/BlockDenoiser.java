package org.llmnpu.sw.dllm;

import java.util.Arrays;
import org.llmnpu.sw.model.AttentionMath;
import org.llmnpu.sw.model.BlockKernels;
import org.llmnpu.sw.model.LayerWeights;
import org.llmnpu.sw.model.ModelConfig;
import org.llmnpu.sw.model.Transformer;

/**
 * The bidirectional denoiser of block-wise masked diffusion: a LLaMA-style transformer (its weights, RoPE, GQA)
 * whose causal mask is lifted inside a block. A row at position {@code p} of block {@code b} attends to every usable
 * position of blocks {@code 0..b} (block-causal: the whole prefix and its own block in both directions, never a later
 * block), so a finished block's keys and values depend only on the prefix and itself and are reused unchanged.
 *
 * <p>It holds each layer's keys and values by position. A pass ({@link #forward}) computes a set of <em>active</em>
 * rows: for each layer it first writes their keys and values into the store (refreshing them), then each active row
 * attends over the usable positions of its visible blocks; a position is usable when it is active in this pass or
 * {@linkplain #cached cached} from an earlier one. Inactive positions that are not cached (masked tokens not in the
 * pass, later blocks) are not seen. Sums run over keys in position order ({@link AttentionMath}), so a pass over the
 * same keys gives the same floats whichever pass computed them: prefix reuse equals recomputation bit for bit.
 */
public final class BlockDenoiser {
  private final Transformer model;
  private final ModelConfig c;
  private final int blockSize;
  private final int promptLen;
  private final float[][][] keys;
  private final float[][][] values;
  private final boolean[] cached;

  /**
   * @param length    the sequence's positions (prompt and generated)
   * @param promptLen the prompt's tokens, block 0 (a block of its own whatever its length)
   * @param blockSize generated tokens per block (the last block may be shorter)
   */
  public BlockDenoiser(Transformer model, int length, int promptLen, int blockSize) {
    this.model = model;
    this.c = model.config();
    if (length > c.maxSeqLen()) {
      throw new IllegalArgumentException("prompt plus generated tokens (" + length + ") exceed the model's context "
          + c.maxSeqLen());
    }
    this.blockSize = blockSize;
    this.promptLen = promptLen;
    this.keys = new float[c.layers()][length][];
    this.values = new float[c.layers()][length][];
    this.cached = new boolean[length];
  }

  /** The block of position {@code p}: 0 for the prompt, then one per {@code blockSize} generated tokens. */
  public int block(int p) {
    return p < promptLen ? 0 : 1 + (p - promptLen) / blockSize;
  }

  /** The first position past block {@code b}. */
  public int blockEnd(int b) {
    return Math.min(keys[0].length, promptLen + b * blockSize);
  }

  /** Whether position {@code p}'s keys and values are kept for later passes. */
  public boolean cached(int p) {
    return cached[p];
  }

  /** Keeps or drops position {@code p}'s keys and values (a dropped position is unseen until computed again). */
  public void setCached(int p, boolean keep) {
    cached[p] = keep;
  }

  /** Layer {@code l}'s key of position {@code p} (as last computed). */
  public float[] key(int l, int p) {
    return keys[l][p];
  }

  /** Layer {@code l}'s value of position {@code p} (as last computed). */
  public float[] value(int l, int p) {
    return values[l][p];
  }

  /**
   * One pass over the active rows {@code rows} (positions, each once) of {@code tokens}; returns their logits in the
   * order given.
   */
  public float[][] forward(int[] tokens, int[] rows) {
    int n = rows.length;
    boolean[] active = new boolean[tokens.length];
    for (int r : rows) {
      if (active[r]) {
        throw new IllegalArgumentException("position " + r + " is active twice in one pass");
      }
      active[r] = true;
    }
    float[][] x = new float[n][];
    for (int i = 0; i < n; i++) {
      x[i] = BlockKernels.embed(model.weights(), tokens[rows[i]]);
    }
    int d = c.headDim();
    for (int l = 0; l < c.layers(); l++) {
      LayerWeights w = model.weights().layers()[l];
      float[][] q = new float[n][];
      for (int i = 0; i < n; i++) {
        BlockKernels.Qkv qkv = BlockKernels.attentionInputs(c, w, x[i], rows[i]);
        q[i] = qkv.q();
        keys[l][rows[i]] = qkv.k();
        values[l][rows[i]] = qkv.v();
      }
      for (int i = 0; i < n; i++) {
        int end = blockEnd(block(rows[i]));
        float[][] k = new float[end][];
        float[][] v = new float[end][];
        int seen = 0;
        for (int p = 0; p < end; p++) {
          if (active[p] || cached[p]) {
            k[seen] = keys[l][p];
            v[seen++] = values[l][p];
          }
        }
        float[] out = new float[c.dim()];
        float[] weights = new float[Math.max(1, seen)];
        for (int h = 0; h < c.heads(); h++) {
          int g = h / c.groupSize();
          AttentionMath.attendHead(q[i], h * d, k, v, g * d, seen, d, weights, out, h * d);
        }
        x[i] = x[i].clone();
        BlockKernels.finishBlock(c, w, x[i], out);
      }
    }
    float[][] logits = new float[n][];
    for (int i = 0; i < n; i++) {
      logits[i] = BlockKernels.logits(model.weights(), x[i]);
    }
    return logits;
  }

  /** Keys visible to a row of block {@code b} that are usable now (for the cost model: the pass's context). */
  public int usableBefore(int end, int[] rows) {
    boolean[] active = new boolean[cached.length];
    for (int r : rows) {
      active[r] = true;
    }
    int seen = 0;
    for (int p = 0; p < end; p++) {
      seen += active[p] || cached[p] ? 1 : 0;
    }
    return seen;
  }

  /** Drops every cached position (for a fresh recomputation). */
  public void clear() {
    Arrays.fill(cached, false);
  }
}
