package org.llmnpu.sw.dllm;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.llmnpu.sw.eval.SampledSequences;
import org.llmnpu.sw.io.Llama2cCheckpoint;
import org.llmnpu.sw.model.Transformer;

/**
 * Block-wise diffusion decoding on stories260K (real weights, a mask token, the causal mask lifted inside a block):
 * deterministic, the commit rule, block-order commits, prefix KV reuse equal to recomputation, and each mechanism's
 * effect on the schedule.
 */
class DiffusionDecoderTest {
  private static Transformer model;
  private static int[] prompt;

  @BeforeAll
  static void load() throws Exception {
    model = new Transformer(Llama2cCheckpoint.readBundled("stories260K"));
    prompt = java.util.Arrays.copyOf(SampledSequences.sample(model, 1, 24, 5)[0], 19);
  }

  private static DllmSettings settings() {
    return new DllmSettings(16, 4, 0.9, 1, 16, true, DllmSettings.Revision.CPU, 2, 0);
  }

  @Test
  void decodingIsDeterministic() {
    DiffusionDecoder.Trace a = DiffusionDecoder.decode(model, prompt, 40, settings());
    DiffusionDecoder.Trace b = DiffusionDecoder.decode(model, prompt, 40, settings());
    assertArrayEquals(a.tokens(), b.tokens());
    assertEquals(a.steps(), b.steps());
    assertEquals(a.commits(), b.commits());
  }

  @Test
  void everyStepFollowsTheCommitRuleAndEveryTokenIsCommittedOnce() {
    DllmSettings s = settings().withSpeculativeBlocks(0);
    DiffusionDecoder.Trace t = DiffusionDecoder.decode(model, prompt, 37, s);
    Map<Integer, Integer> stepsOfBlock = new HashMap<>();
    int[] committed = new int[t.tokens().length];
    for (DiffusionDecoder.Commit c : t.commits()) {
      committed[c.position()]++;
      assertNotEquals(s.maskToken(), c.token());
    }
    for (int p = prompt.length; p < committed.length; p++) {
      assertEquals(1, committed[p], "position " + p);
    }
    int[] done = new int[t.steps().size() + 2 + 37 / s.blockSize()];
    for (DiffusionDecoder.Step st : t.steps()) {
      int b = st.block();
      int used = stepsOfBlock.getOrDefault(b, 0);
      stepsOfBlock.put(b, used + 1);
      int blockLen = Math.min(s.blockSize(), 37 - (b - 1) * s.blockSize());
      int maskedBefore = blockLen - done[b];
      int quota = (maskedBefore + (s.stepsPerBlock() - used) - 1) / (s.stepsPerBlock() - used);
      List<DiffusionDecoder.Commit> here = t.commits().stream()
          .filter(c -> c.step() == st.index() && c.block() == b).toList();
      long below = here.stream().filter(c -> c.confidence() < s.threshold()).count();
      assertTrue(here.size() >= quota, "step " + st.index() + " commits " + here.size() + " < quota " + quota);
      assertTrue(below <= quota, "step " + st.index() + " commits " + below + " below the threshold, quota " + quota);
      // the below-threshold commits are the least confident of the step's commits
      double minAbove = here.stream().filter(c -> c.confidence() >= s.threshold())
          .mapToDouble(DiffusionDecoder.Commit::confidence).min().orElse(1);
      assertTrue(here.stream().allMatch(c -> c.confidence() <= minAbove || c.confidence() >= s.threshold()));
      done[b] += here.size();
    }
    for (int steps : stepsOfBlock.values()) {
      assertTrue(steps <= s.stepsPerBlock(), "a block took " + steps + " steps");
    }
    // a low threshold commits more a step: fewer steps
    DiffusionDecoder.Trace eager = DiffusionDecoder.decode(model, prompt, 37,
        new DllmSettings(16, 4, 0.05, 0, 16, true, DllmSettings.Revision.CPU, 2, 0));
    assertTrue(eager.steps().size() < t.steps().size(), eager.steps().size() + " vs " + t.steps().size());
  }

  @Test
  void commitsAreInBlockOrderEvenWithSpeculativeBlocks() {
    DllmSettings s = new DllmSettings(8, 8, 0.3, 2, 16, true, DllmSettings.Revision.OFF, 0, 0);
    DiffusionDecoder.Trace t = DiffusionDecoder.decode(model, prompt, 48, s);
    int maxBlock = 0;
    boolean[] filled = new boolean[t.tokens().length];
    java.util.Arrays.fill(filled, 0, prompt.length, true);
    for (DiffusionDecoder.Commit c : t.commits()) {
      assertTrue(c.block() >= maxBlock, "block " + c.block() + " committed after block " + maxBlock);
      maxBlock = c.block();
      int start = prompt.length + (c.block() - 1) * s.blockSize();
      for (int p = prompt.length; p < start; p++) {
        assertTrue(filled[p], "block " + c.block() + " commits while position " + p + " is masked");
      }
      filled[c.position()] = true;
    }
    assertTrue(t.commits().stream().anyMatch(DiffusionDecoder.Commit::speculative), "no speculative commit");
    assertTrue(t.steps().stream().anyMatch(st -> st.speculativeRows() > 0));
    for (DiffusionDecoder.Step st : t.steps()) {
      assertTrue(st.npuRows() <= (st.npuRows() - st.speculativeRows() + 15) / 16 * 16, "speculation past the tile");
    }
  }

  @Test
  void prefixKvReuseEqualsRecomputationBitForBit() {
    DllmSettings s = settings();
    DiffusionDecoder.Trace t = DiffusionDecoder.decode(model, prompt, 40, s);
    BlockDenoiser cache = t.denoiser();
    int sealedEnd = cache.blockEnd(cache.block(t.tokens().length - 1) - 1);
    assertTrue(sealedEnd > prompt.length + s.blockSize());
    BlockDenoiser fresh = new BlockDenoiser(model, t.tokens().length, prompt.length, s.blockSize());
    int[] rows = new int[sealedEnd];
    for (int p = 0; p < sealedEnd; p++) {
      rows[p] = p;
      assertTrue(cache.cached(p), "position " + p + " not cached");
    }
    fresh.forward(t.tokens(), rows);
    for (int l = 0; l < model.config().layers(); l++) {
      for (int p = 0; p < sealedEnd; p++) {
        assertArrayEquals(fresh.key(l, p), cache.key(l, p), 0f, "layer " + l + " key " + p);
        assertArrayEquals(fresh.value(l, p), cache.value(l, p), 0f, "layer " + l + " value " + p);
      }
    }
  }

  @Test
  void cachingCommittedTokensShrinksTheLateStepsAndRevisionMovesRowsToTheCpu() {
    DllmSettings s = settings().withSpeculativeBlocks(0);
    DiffusionDecoder.Trace whole = DiffusionDecoder.decode(model, prompt, 32, s.withCacheCommitted(false));
    DiffusionDecoder.Trace cached = DiffusionDecoder.decode(model, prompt, 32, s.withRevision(DllmSettings.Revision.OFF));
    long wholeRows = whole.steps().stream().mapToLong(DiffusionDecoder.Step::npuRows).sum();
    long cachedRows = cached.steps().stream().mapToLong(DiffusionDecoder.Step::npuRows).sum();
    assertTrue(cachedRows < wholeRows, cachedRows + " vs " + wholeRows);
    DiffusionDecoder.Trace cpu = DiffusionDecoder.decode(model, prompt, 32, s);
    DiffusionDecoder.Trace npu = DiffusionDecoder.decode(model, prompt, 32, s.withRevision(DllmSettings.Revision.NPU));
    assertArrayEquals(cpu.tokens(), npu.tokens());
    assertTrue(cpu.steps().stream().mapToInt(DiffusionDecoder.Step::cpuRows).sum() > 0);
    assertEquals(0, npu.steps().stream().mapToInt(DiffusionDecoder.Step::cpuRows).sum());
  }

  @Test
  void badSettingsNameTheParameter() {
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> new DllmSettings(16, 17, 0.9, 1, 16, true, DllmSettings.Revision.CPU, 2, 0));
    assertTrue(e.getMessage().contains("--steps"));
    e = assertThrows(IllegalArgumentException.class,
        () -> new DllmSettings(16, 4, 1.5, 1, 16, true, DllmSettings.Revision.CPU, 2, 0));
    assertTrue(e.getMessage().contains("--threshold"));
  }
}
