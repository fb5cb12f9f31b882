package org.llmnpu.sw.lower;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.llmnpu.sw.estimate.ModelShapes;
import org.llmnpu.sw.model.ModelConfig;

class ScoreWindowsTest {
  @Test
  void llama2SevenBHeadsScoreOverTheirOwnEvensAndOddsOnly() {
    ModelConfig c = ModelShapes.of("llama-2-7b").config();
    // kvDim 4096 in chunks of maxK 256 on a 64-byte line: head g's evens in one chunk, its odds in another
    KSplit flat = KSplit.of(c.kvDim(), 256, 256);
    for (int g = 0; g < c.kvHeads(); g++) {
      List<int[]> w = ScoreWindows.of(c, flat, 64, g);
      assertEquals(2, w.size(), "head " + g);
      assertArrayEquals(new int[] {64 * g, 64}, w.get(0));
      assertArrayEquals(new int[] {2048 + 64 * g, 64}, w.get(1));
      assertEquals(2, ScoreWindows.partials(w).count());
    }
  }

  @Test
  void aRaggedHeadKeepsALineAlignedWindowStartingBeforeIt() {
    ModelConfig c = ModelConfig.stories260K(); // headDim 8, kvDim 32: one chunk
    KSplit flat = KSplit.of(c.kvDim(), 64, 64);
    for (int g = 0; g < c.kvHeads(); g++) {
      List<int[]> w = ScoreWindows.of(c, flat, 64, g);
      // from the line holding its evens (byte 0) to its last odd code
      assertEquals(1, w.size());
      assertArrayEquals(new int[] {0, 16 + 4 * g + 4}, w.get(0));
      assertTrue(!ScoreWindows.partials(w).combined());
    }
  }

  /**
   * The windows' GEMM partials are the flat chunks' partials with their zero-weight rows dropped, and every chunk
   * dropped sums to zero: the same integers into the DSP (random K rows; the query zero off its head's rows).
   */
  @ParameterizedTest
  @CsvSource({"4096, 32, 64, 256", "4096, 8, 64, 256", "576, 6, 64, 64", "288, 6, 64, 128", "64, 4, 16, 16",
      "1024, 8, 32, 96", "288, 3, 64, 64"})
  void theWindowsPartialsAreTheFlatChunksNonZeroPartials(int dim, int kvHeads, int line, int maxK) {
    int heads = kvHeads * 2;
    ModelConfig c = new ModelConfig(dim, 4 * dim, 1, heads, kvHeads, 32, 64);
    KSplit flat = KSplit.of(c.kvDim(), maxK, maxK / line * line);
    int half = c.headDim() / 2;
    int nk = c.kvDim() / 2;
    Random rnd = new Random(dim * 31L + kvHeads * 7L + line + maxK);
    byte[] key = new byte[c.kvDim()];
    rnd.nextBytes(key);
    for (int g = 0; g < kvHeads; g++) {
      byte[] q = new byte[c.kvDim()];
      for (int j = 0; j < half; j++) {
        q[g * half + j] = (byte) rnd.nextInt();
        q[nk + g * half + j] = (byte) rnd.nextInt();
      }
      List<Long> flatNonZeroChunks = new ArrayList<>();
      for (int ci = 0; ci < flat.count(); ci++) {
        long p = dot(key, q, flat.start(ci), flat.length(ci));
        boolean holdsHead = false;
        for (int k = flat.start(ci); k < flat.start(ci) + flat.length(ci); k++) {
          holdsHead |= k >= g * half && k < (g + 1) * half || k >= nk + g * half && k < nk + (g + 1) * half;
        }
        if (holdsHead) {
          flatNonZeroChunks.add(p);
        } else {
          assertEquals(0, p);
        }
      }
      List<Long> windowed = new ArrayList<>();
      int k = 0;
      for (int[] w : ScoreWindows.of(c, flat, line, g)) {
        assertEquals(0, w[0] % line, "window start on a line");
        assertTrue(w[1] <= maxK, "window within maxK");
        windowed.add(dot(key, q, w[0], w[1]));
        k += w[1];
      }
      assertEquals(flatNonZeroChunks, windowed, "kv head " + g);
      assertTrue(k <= c.kvDim());
    }
  }

  private static long dot(byte[] key, byte[] q, int from, int len) {
    long s = 0;
    for (int k = from; k < from + len; k++) {
      s += key[k] * q[k];
    }
    return s;
  }
}
