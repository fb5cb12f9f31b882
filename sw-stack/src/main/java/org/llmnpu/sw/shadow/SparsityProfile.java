package org.llmnpu.sw.shadow;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import org.llmnpu.sw.model.ModelConfig;
import org.llmnpu.sw.model.Transformer;

/**
 * Per-head sparsity from offline profiling (ShadowNPU: important heads keep more tokens): for each layer and query
 * head, the share of the context it keeps — the mean, over the profiled queries (positions ≥ {@link #FIRST_QUERY}
 * of held-out sequences), of {@code k/(pos+1)} where {@code k} is the fewest tokens holding {@code massShare} of
 * the query's FP32 attention mass. At run time a head keeps {@code min(n, max(minKeep, ⌈ratio · n⌉))} of
 * {@code n} tokens. The same run records the median of the heads' own INT8 scales of Q and of K (the centres of
 * the estimation graphs' scale buckets, {@link ScaleBuckets}). Stored as a small JSON file.
 */
public record SparsityProfile(double massShare, int minKeep, double qScaleMedian, double kScaleMedian,
                              double[][] keepRatio) {
  /** Queries before this position are not profiled (their few keys say little about a head). */
  public static final int FIRST_QUERY = 16;

  public SparsityProfile {
    if (!(massShare > 0 && massShare <= 1)) {
      throw new IllegalArgumentException("attention mass share must be in (0, 1], got " + massShare);
    }
    if (!(qScaleMedian > 0) || !(kScaleMedian > 0)) {
      throw new IllegalArgumentException("the profiled scale medians must be positive, got " + qScaleMedian + " and "
          + kScaleMedian);
    }
    if (minKeep < 1) {
      throw new IllegalArgumentException("minKeep must be >= 1 token, got " + minKeep);
    }
  }

  /** Tokens head {@code h} of {@code layer} keeps out of {@code n}. */
  public int keep(int layer, int h, int n) {
    int k = (int) Math.ceil(keepRatio[layer][h] * n - 1e-9);
    return Math.min(n, Math.max(minKeep, k));
  }

  /** The mean keep ratio over all heads. */
  public double meanKeepRatio() {
    return Arrays.stream(keepRatio).flatMapToDouble(Arrays::stream).average().orElse(1);
  }

  /** Profiles {@code sequences} on the FP32 model. */
  public static SparsityProfile profile(Transformer model, int[][] sequences, double massShare, int minKeep) {
    ModelConfig c = model.config();
    double[][] sum = new double[c.layers()][c.heads()];
    long[] count = new long[1];
    List<Double> qs = new ArrayList<>();
    List<Double> ks = new ArrayList<>();
    for (int[] seq : sequences) {
      ShadowPrefill.Options o = ShadowPrefill.Options.dense().observing((layer, h, pos, w) -> {
        if (pos < FIRST_QUERY) {
          return;
        }
        float[] sorted = Arrays.copyOf(w, pos + 1);
        Arrays.sort(sorted);
        double mass = 0;
        int k = 0;
        while (k <= pos && mass < massShare - 1e-7) {
          mass += sorted[pos - k];
          k++;
        }
        sum[layer][h] += k / (double) (pos + 1);
        if (layer == 0 && h == 0) {
          count[0]++;
        }
      });
      ShadowPrefill.Result r = ShadowPrefill.run(model, seq, o);
      for (int l = 0; l < c.layers(); l++) {
        for (float v : r.qScales()[l]) {
          qs.add((double) v);
        }
        for (float v : r.kScales()[l]) {
          ks.add((double) v);
        }
      }
    }
    if (count[0] == 0) {
      throw new IllegalArgumentException("profiling needs sequences longer than " + FIRST_QUERY + " tokens");
    }
    double[][] ratio = new double[c.layers()][c.heads()];
    for (int l = 0; l < c.layers(); l++) {
      for (int h = 0; h < c.heads(); h++) {
        ratio[l][h] = sum[l][h] / count[0];
      }
    }
    return new SparsityProfile(massShare, minKeep, median(qs), median(ks), ratio);
  }

  private static double median(List<Double> v) {
    List<Double> s = new ArrayList<>(v);
    Collections.sort(s);
    int n = s.size();
    return n % 2 == 1 ? s.get(n / 2) : (s.get(n / 2 - 1) + s.get(n / 2)) / 2;
  }

  /** Writes the profile as JSON (atomically: a temporary file moved over {@code file}). */
  public void write(Path file) throws IOException {
    Path dir = file.toAbsolutePath().getParent();
    Files.createDirectories(dir);
    Path tmp = Files.createTempFile(dir, ".profile", ".tmp");
    new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT).writeValue(tmp.toFile(), this);
    Files.move(tmp, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
  }

  /** Reads a profile written by {@link #write}; a missing field or a head count other than the model's is refused. */
  public static SparsityProfile read(Path file, ModelConfig c) throws IOException {
    SparsityProfile p = new ObjectMapper().readValue(file.toFile(), SparsityProfile.class);
    if (p.keepRatio() == null || p.keepRatio().length != c.layers()
        || Arrays.stream(p.keepRatio()).anyMatch(r -> r == null || r.length != c.heads())) {
      throw new IllegalArgumentException(file + ": keepRatio must be " + c.layers() + " layers x " + c.heads() + " heads");
    }
    return p;
  }
}
