package org.llmnpu.sw.dllm;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.TreeSet;
import org.llmnpu.sw.model.Ops;
import org.llmnpu.sw.model.Transformer;

/**
 * Block-wise masked diffusion decoding (LLaDA's semi-autoregressive sampler with llada.cpp's mechanisms) over a
 * {@link BlockDenoiser}. The prompt is block 0 (one prefill pass, then cached); the generated tokens start as masks
 * in blocks of {@code blockSize}, decoded one block after another. Each step is one denoiser pass; in it the current
 * block's masked tokens are predicted (argmax over the vocabulary without the mask token, confidence = its softmax
 * probability) and committed by the <b>commit rule</b>: every masked token whose confidence is at least
 * {@code threshold}, and at least {@code ceil(masked / stepsLeft)} of the most confident (ties to the lower
 * position), so a block takes at most {@code stepsPerBlock} steps.
 *
 * <p>Mechanisms:
 * <ul>
 *   <li><b>Prefix KV reuse</b> (always): a finished block is computed once more with its final tokens, in the next
 *       step's pass (its <em>seal</em> rows), and its keys and values are kept; later passes never recompute it.</li>
 *   <li><b>Committed-token caching</b> ({@code cacheCommitted}): a committed token is computed in the pass after its
 *       commit and then cached, so a step's rows are the masked tokens plus those just committed — the late-step
 *       workload shrinks. Off, the whole current block is computed every step.</li>
 *   <li><b>Multi-block speculative decoding</b> ({@code speculativeBlocks}): masked tokens of the next blocks fill
 *       the pass's spare rows up to the NPU's row tile. They are predicted with what their block sees (the prefix and
 *       the current block as it is); when the current block finishes in that step, the next block's speculative
 *       tokens at or above {@code threshold} commit right after it — always in block order: no token of block
 *       {@code b + 1} commits while block {@code b} has a mask.</li>
 *   <li><b>Progressive revision</b> ({@code revision}): cached committed tokens of the current block are stale (their
 *       keys and values saw masks that have since been filled); each step the {@code reviseRows} stalest (cached
 *       earliest, then least confident) are recomputed, their cache refreshed, and a token whose new prediction
 *       differs with a higher confidence than it committed with is replaced (and recomputed next step). With
 *       {@link DllmSettings.Revision#CPU} these rows are the CPU's path beside the NPU's pass (dual-path); with
 *       {@code NPU} they join the NPU's rows. The arithmetic is the same; only where it runs differs.</li>
 * </ul>
 */
public final class DiffusionDecoder {
  /** One committed token. */
  public record Commit(int position, int token, int block, int step, double confidence, boolean speculative) {
  }

  /**
   * One denoising step (pass): the cached prefix before its current block, its rows on the NPU (seal, current block,
   * speculative) and on the CPU (revision), the keys the furthest row sees, the NPU rows whose logits are read, the
   * commits made, the tokens revised.
   */
  public record Step(int index, int block, int prefix, int sealRows, int blockRows, int speculativeRows, int revisionRows,
                     boolean revisionOnCpu, int context, int logitRows, int commits, int revisions) {
    public int npuRows() {
      return sealRows + blockRows + speculativeRows + (revisionOnCpu ? 0 : revisionRows);
    }

    public int cpuRows() {
      return revisionOnCpu ? revisionRows : 0;
    }
  }

  /** The decode: final tokens, the prompt's length, the steps and the commits in order. */
  public record Trace(int[] tokens, int promptLen, List<Step> steps, List<Commit> commits, int revisions,
                      BlockDenoiser denoiser) {
    public int generated() {
      return tokens.length - promptLen;
    }
  }

  private DiffusionDecoder() {
  }

  /** Decodes {@code genLen} tokens after {@code prompt}. */
  public static Trace decode(Transformer model, int[] prompt, int genLen, DllmSettings s) {
    int vocab = model.config().vocabSize();
    if (s.maskToken() < 0 || s.maskToken() >= vocab) {
      throw new IllegalArgumentException("maskToken: must be in 0.." + (vocab - 1) + ", got " + s.maskToken());
    }
    if (prompt.length < 1 || genLen < 1) {
      throw new IllegalArgumentException("need a prompt and at least one generated token, got " + prompt.length
          + " and " + genLen);
    }
    int p0 = prompt.length;
    int len = p0 + genLen;
    BlockDenoiser den = new BlockDenoiser(model, len, p0, s.blockSize());
    int[] tokens = Arrays.copyOf(prompt, len);
    boolean[] masked = new boolean[len];
    for (int i = p0; i < len; i++) {
      tokens[i] = s.maskToken();
      masked[i] = true;
    }
    int[] all = new int[p0];
    for (int i = 0; i < p0; i++) {
      all[i] = i;
    }
    den.forward(tokens, all);
    for (int i = 0; i < p0; i++) {
      den.setCached(i, true);
    }
    int blocks = 1 + (genLen + s.blockSize() - 1) / s.blockSize();
    double[] conf = new double[len];
    int[] cachedAt = new int[len];
    List<Step> steps = new ArrayList<>();
    List<Commit> commits = new ArrayList<>();
    List<Integer> unsealed = new ArrayList<>();
    int cur = 1;
    int stepsInBlock = 0;
    int revisions = 0;
    while (cur < blocks) {
      int step = steps.size();
      int prefixLen = den.blockEnd(cur - 1);
      TreeSet<Integer> npu = new TreeSet<>();
      int seal = 0;
      for (int b : unsealed) {
        for (int p = den.blockEnd(b - 1); p < den.blockEnd(b); p++) {
          npu.add(p);
          seal++;
        }
      }
      int blockRows = 0;
      for (int p = den.blockEnd(cur - 1); p < den.blockEnd(cur); p++) {
        if (!s.cacheCommitted() || masked[p] || !den.cached(p)) {
          npu.add(p);
          blockRows++;
        }
      }
      List<Integer> revise = new ArrayList<>();
      if (s.cacheCommitted() && s.revision() != DllmSettings.Revision.OFF && s.reviseRows() > 0) {
        List<Integer> stale = new ArrayList<>();
        for (int p = den.blockEnd(cur - 1); p < den.blockEnd(cur); p++) {
          if (!masked[p] && den.cached(p) && !npu.contains(p)) {
            stale.add(p);
          }
        }
        stale.sort((a, b) -> cachedAt[a] != cachedAt[b] ? Integer.compare(cachedAt[a], cachedAt[b])
            : conf[a] != conf[b] ? Double.compare(conf[a], conf[b]) : Integer.compare(a, b));
        revise.addAll(stale.subList(0, Math.min(s.reviseRows(), stale.size())));
      }
      int onNpu = npu.size() + (s.revision() == DllmSettings.Revision.NPU ? revise.size() : 0);
      int free = (onNpu + s.tileRows() - 1) / s.tileRows() * s.tileRows() - onNpu;
      List<Integer> spec = new ArrayList<>();
      for (int b = cur + 1; b < Math.min(blocks, cur + 1 + s.speculativeBlocks()) && spec.size() < free; b++) {
        for (int p = den.blockEnd(b - 1); p < den.blockEnd(b) && spec.size() < free; p++) {
          if (masked[p]) {
            spec.add(p);
          }
        }
      }
      TreeSet<Integer> rowSet = new TreeSet<>(npu);
      rowSet.addAll(revise);
      rowSet.addAll(spec);
      int[] rows = rowSet.stream().mapToInt(Integer::intValue).toArray();
      int furthest = den.block(rows[rows.length - 1]);
      int context = den.usableBefore(den.blockEnd(furthest), rows);
      float[][] logits = den.forward(tokens, rows);
      int[] pred = new int[len];
      double[] pConf = new double[len];
      int logitRows = 0;
      for (int i = 0; i < rows.length; i++) {
        int p = rows[i];
        boolean revising = revise.contains(p);
        if (masked[p] || revising) {
          logitRows += masked[p] || s.revision() != DllmSettings.Revision.CPU ? 1 : 0;
          float[] prob = logits[i].clone();
          prob[s.maskToken()] = Float.NEGATIVE_INFINITY;
          Ops.softmax(prob, prob.length);
          pred[p] = Ops.argmax(prob);
          pConf[p] = prob[pred[p]];
        }
      }
      for (int b : unsealed) {
        for (int p = den.blockEnd(b - 1); p < den.blockEnd(b); p++) {
          den.setCached(p, true);
        }
      }
      unsealed.clear();
      if (s.cacheCommitted()) {
        for (int p : rows) {
          if (den.block(p) == cur && !masked[p]) {
            den.setCached(p, true);
            cachedAt[p] = step;
          }
        }
      }
      int revised = 0;
      for (int p : revise) {
        if (pred[p] != tokens[p] && pConf[p] > conf[p]) {
          tokens[p] = pred[p];
          conf[p] = pConf[p];
          den.setCached(p, false);
          revised++;
        }
      }
      revisions += revised;
      int made = commitBlock(den, cur, tokens, masked, pred, pConf, conf, s, stepsInBlock, step, commits, false);
      stepsInBlock++;
      int stepBlock = cur;
      while (cur < blocks && !anyMasked(den, cur, masked)) {
        unsealed.add(cur);
        cur++;
        stepsInBlock = 0;
        if (cur < blocks && specIn(den, cur, spec)) {
          made += commitBlock(den, cur, tokens, masked, pred, pConf, conf, s, -1, step, commits, true);
        }
      }
      steps.add(new Step(step, stepBlock, prefixLen, seal, blockRows, spec.size(), revise.size(),
          s.revision() == DllmSettings.Revision.CPU, context, logitRows, made, revised));
    }
    return new Trace(tokens, p0, steps, commits, revisions, den);
  }

  private static boolean anyMasked(BlockDenoiser den, int b, boolean[] masked) {
    for (int p = den.blockEnd(b - 1); p < den.blockEnd(b); p++) {
      if (masked[p]) {
        return true;
      }
    }
    return false;
  }

  private static boolean specIn(BlockDenoiser den, int b, List<Integer> spec) {
    return spec.stream().anyMatch(p -> den.block(p) == b);
  }

  /**
   * The commit rule on block {@code b}'s predicted masked tokens: those at or above the threshold and (unless
   * {@code speculative}) at least the quota of the most confident.
   */
  private static int commitBlock(BlockDenoiser den, int b, int[] tokens, boolean[] masked, int[] pred, double[] pConf,
                                 double[] conf, DllmSettings s, int stepsInBlock, int step, List<Commit> commits,
                                 boolean speculative) {
    List<Integer> cand = new ArrayList<>();
    int maskedCount = 0;
    for (int p = den.blockEnd(b - 1); p < den.blockEnd(b); p++) {
      if (masked[p]) {
        maskedCount++;
        if (!speculative || pConf[p] > 0) {
          cand.add(p);
        }
      }
    }
    cand.sort((x, y) -> pConf[x] != pConf[y] ? Double.compare(pConf[y], pConf[x]) : Integer.compare(x, y));
    int quota = speculative ? 0 : (maskedCount + Math.max(1, s.stepsPerBlock() - stepsInBlock) - 1)
        / Math.max(1, s.stepsPerBlock() - stepsInBlock);
    int made = 0;
    for (int i = 0; i < cand.size(); i++) {
      int p = cand.get(i);
      if (i >= quota && pConf[p] < s.threshold()) {
        break;
      }
      tokens[p] = pred[p];
      masked[p] = false;
      conf[p] = pConf[p];
      commits.add(new Commit(p, pred[p], b, step, pConf[p], speculative));
      made++;
    }
    return made;
  }
}
