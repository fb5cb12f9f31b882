package org.llmnpu.sw.shadow;

import java.util.ArrayList;
import java.util.List;
import org.llmnpu.sw.model.AttentionMath;
import org.llmnpu.sw.model.BlockKernels;
import org.llmnpu.sw.model.LayerWeights;
import org.llmnpu.sw.model.ModelConfig;
import org.llmnpu.sw.model.Transformer;

/**
 * A prompt's prefill, layer by layer (every token's Q, K, V of a layer, then its causal attention, then the rest of
 * the block), with one of three attentions:
 * <ul>
 *   <li>{@link Mode#DENSE}: FP32 attention over every earlier token (the reference's {@code AttentionMath});</li>
 *   <li>{@link Mode#SHADOW}: ShadowNPU — Q and K of each head quantized to INT8 at its bucket's scale, the INT32
 *       scores {@code Q·Kᵀ} from the {@link Scorer} (the NPU program), per query the top-{@code k} keys by score
 *       ({@code k} from the {@link SparsityProfile}; ties to the earlier token), then FP32 attention (FP32 scores,
 *       softmax, values) over those keys only;</li>
 *   <li>{@link Mode#INT8_FULL}: the whole attention in INT8 as an integer NPU would run it — the same INT32
 *       scores dequantized, softmax in FP32, the probabilities quantized to INT8 per row ({@code max/127}) and
 *       multiplied with the values' INT8 codes (per KV head, own scale), dequantized.</li>
 * </ul>
 * In SHADOW mode it also measures the recall of the true top-{@code k} (by FP32 score, same {@code k}) by the
 * INT8 estimate, over the queries where {@code k} is below the query's context.
 */
public final class ShadowPrefill {
  /** Which attention. */
  public enum Mode { DENSE, INT8_FULL, SHADOW }

  /** Sees each query's FP32 attention probabilities (DENSE mode). */
  @FunctionalInterface
  public interface Observer {
    void attention(int layer, int head, int pos, float[] weights);
  }

  /** How to run: mode, the Q and K scale buckets, the profile (SHADOW), the scorer and the shape buckets. */
  public record Options(Mode mode, ScaleBuckets qBuckets, ScaleBuckets kBuckets, SparsityProfile profile,
                        Scorer scorer, ShapeBuckets shapes, Observer observer) {
    public static Options dense() {
      return new Options(Mode.DENSE, ScaleBuckets.dynamic(), ScaleBuckets.dynamic(), null, Scorer.REFERENCE, null, null);
    }

    public Options observing(Observer o) {
      return new Options(mode, qBuckets, kBuckets, profile, scorer, shapes, o);
    }
  }

  /** Logits of every position; recall hits and total over sparse queries; each head's own Q and K scales. */
  public record Result(float[][] logits, long recallHits, long recallTotal, float[][] qScales, float[][] kScales) {
    public double recall() {
      return recallTotal == 0 ? 1.0 : recallHits / (double) recallTotal;
    }
  }

  private ShadowPrefill() {
  }

  public static Result run(Transformer model, int[] tokens, Options o) {
    ModelConfig c = model.config();
    int n = tokens.length;
    int d = c.headDim();
    float[][] x = new float[n][];
    for (int t = 0; t < n; t++) {
      x[t] = BlockKernels.embed(model.weights(), tokens[t]);
    }
    float[][] qScales = new float[c.layers()][c.heads()];
    float[][] kScales = new float[c.layers()][c.kvHeads()];
    long[] recall = new long[2];
    for (int l = 0; l < c.layers(); l++) {
      LayerWeights w = model.weights().layers()[l];
      float[][] q = new float[n][];
      float[][] k = new float[n][];
      float[][] v = new float[n][];
      for (int t = 0; t < n; t++) {
        BlockKernels.Qkv qkv = BlockKernels.attentionInputs(c, w, x[t], t);
        q[t] = qkv.q();
        k[t] = qkv.k();
        v[t] = qkv.v();
      }
      for (int h = 0; h < c.heads(); h++) {
        qScales[l][h] = HeadQuantizer.ownScale(q, h * d, d);
      }
      for (int g = 0; g < c.kvHeads(); g++) {
        kScales[l][g] = HeadQuantizer.ownScale(k, g * d, d);
      }
      float[][] out = new float[n][c.dim()];
      if (o.mode() == Mode.DENSE) {
        dense(c, l, q, k, v, out, o.observer());
      } else {
        int[][][] scores = estimate(c, l, q, k, qScales[l], kScales[l], o);
        float[] vScales = new float[c.kvHeads()];
        for (int g = 0; g < c.kvHeads(); g++) {
          vScales[g] = HeadQuantizer.ownScale(v, g * d, d);
        }
        for (int h = 0; h < c.heads(); h++) {
          int g = h / c.groupSize();
          float sq = o.qBuckets().scaleFor(qScales[l][h]);
          float sk = o.kBuckets().scaleFor(kScales[l][g]);
          for (int pos = 0; pos < n; pos++) {
            if (o.mode() == Mode.SHADOW) {
              int keep = o.profile().keep(l, h, pos + 1);
              SparseAttention.attend(q[pos], h * d, k, v, g * d, d, pos + 1, scores[h][pos], keep, out[pos], recall);
            } else {
              SparseAttention.int8Full(v, g, d, pos + 1, scores[h][pos], sq * sk, vScales[g], out[pos], h * d);
            }
          }
        }
      }
      for (int t = 0; t < n; t++) {
        BlockKernels.finishBlock(c, w, x[t], out[t]);
      }
    }
    float[][] logits = new float[n][];
    for (int t = 0; t < n; t++) {
      logits[t] = BlockKernels.logits(model.weights(), x[t]);
    }
    return new Result(logits, recall[0], recall[1], qScales, kScales);
  }

  private static void dense(ModelConfig c, int l, float[][] q, float[][] k, float[][] v, float[][] out, Observer obs) {
    int d = c.headDim();
    float[] weights = new float[q.length];
    for (int pos = 0; pos < q.length; pos++) {
      for (int h = 0; h < c.heads(); h++) {
        int g = h / c.groupSize();
        AttentionMath.attendHead(q[pos], h * d, k, v, g * d, pos + 1, d, weights, out[pos], h * d);
        if (obs != null) {
          obs.attention(l, h, pos, weights);
        }
      }
    }
  }

  /**
   * INT32 scores {@code [head][query][key]} of one layer: per KV head one task, its heads' query codes stacked
   * (each head's rows padded to the shape bucket), the key codes padded with zero keys.
   */
  private static int[][][] estimate(ModelConfig c, int l, float[][] q, float[][] k, float[] qs, float[] ks, Options o) {
    int n = q.length;
    int d = c.headDim();
    int padded = o.shapes() == null ? n : o.shapes().bucket(n);
    List<byte[][]> qTasks = new ArrayList<>();
    List<byte[][]> kTasks = new ArrayList<>();
    for (int g = 0; g < c.kvHeads(); g++) {
      byte[][] kc = java.util.Arrays.copyOf(HeadQuantizer.quantize(k, g * d, d, o.kBuckets().scaleFor(ks[g])), padded);
      byte[][] qc = new byte[c.groupSize() * padded][];
      for (int j = 0; j < c.groupSize(); j++) {
        int h = g * c.groupSize() + j;
        byte[][] codes = HeadQuantizer.quantize(q, h * d, d, o.qBuckets().scaleFor(qs[h]));
        for (int r = 0; r < padded; r++) {
          qc[j * padded + r] = r < n ? codes[r] : new byte[d];
        }
      }
      for (int r = n; r < padded; r++) {
        kc[r] = new byte[d];
      }
      qTasks.add(qc);
      kTasks.add(kc);
    }
    List<int[][]> s = o.scorer().scores(l, qTasks, kTasks);
    int[][][] out = new int[c.heads()][n][];
    for (int h = 0; h < c.heads(); h++) {
      int g = h / c.groupSize();
      int j = h % c.groupSize();
      for (int r = 0; r < n; r++) {
        out[h][r] = s.get(g)[j * padded + r];
      }
    }
    return out;
  }
}
