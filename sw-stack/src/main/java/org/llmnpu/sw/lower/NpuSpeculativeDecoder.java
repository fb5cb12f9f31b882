package org.llmnpu.sw.lower;

import java.util.ArrayList;
import java.util.List;
import org.llmnpu.isa.Counter;
import org.llmnpu.sw.model.LayerWeights;
import org.llmnpu.sw.model.ModelConfig;
import org.llmnpu.sw.model.ModelWeights;
import org.llmnpu.sw.model.Ops;

/**
 * Greedy speculative decoding with both models as NPU programs: the draft proposes γ tokens with
 * γ decode programs; the target scores the last accepted token and the γ proposals in one
 * program of γ + 1 tokens (static shapes: a block with every token's logits); proposals are
 * accepted while they equal the target's argmax, then the target's own token follows. Rejected
 * slots are forgotten by {@link NpuDecoder#rewind} (no copy). The tokens equal target-only greedy
 * decoding on the NPU, because a token's computation does not depend on how many tokens share its
 * program.
 */
public final class NpuSpeculativeDecoder {
  /**
   * The outcome.
   *
   * @param tokens        generated tokens (the first from the prefill)
   * @param targetPasses  verification programs run
   * @param draftSteps    draft decode programs run
   * @param drafted       tokens the draft proposed
   * @param accepted      proposals the target accepted (its argmax equal to the proposal)
   * @param draftCycles   model cycles of the draft's decode programs
   * @param targetCycles  model cycles of the target's verification programs
   * @param prefillCycles model cycles of both prefills
   */
  public record Result(int[] tokens, int targetPasses, int draftSteps, long drafted, long accepted, long draftCycles,
                       long targetCycles, long prefillCycles) {
    /** Decode cycles per generated token after the first. */
    public double cyclesPerToken() {
      return (draftCycles + targetCycles) / (double) Math.max(1, tokens.length - 1);
    }

    /** Accepted proposals / proposals. */
    public double acceptanceRate() {
      return accepted / (double) Math.max(1, drafted);
    }

    /** Tokens per target pass. */
    public double tokensPerPass() {
      return (tokens.length - 1) / (double) Math.max(1, targetPasses);
    }
  }

  private NpuSpeculativeDecoder() {
  }

  /** The first {@code layers} layers of {@code w} with its embedding, final norm and LM head. */
  public static ModelWeights truncate(ModelWeights w, int layers) {
    ModelConfig c = w.config();
    if (layers < 1 || layers > c.layers()) {
      throw new IllegalArgumentException("draft layers must be in 1.." + c.layers() + ", got " + layers);
    }
    ModelConfig d = new ModelConfig(c.dim(), c.hiddenDim(), layers, c.heads(), c.kvHeads(), c.vocabSize(),
        c.maxSeqLen(), c.ropeTheta(), c.normEps());
    return new ModelWeights(d, w.tokenEmbedding(), java.util.Arrays.copyOf(w.layers(), layers, LayerWeights[].class),
        w.finalNorm(), w.lmHead());
  }

  /** Sees every program the session runs, in order. */
  @FunctionalInterface
  public interface StepListener {
    /** {@code step} was run by the target (verification, prefill) when {@code target}, else by the draft. */
    void ran(boolean target, NpuDecoder.Step step);
  }

  /** Generates {@code maxNew} tokens after {@code prompt}; both decoders start empty. */
  public static Result generate(NpuDecoder target, NpuDecoder draft, int[] prompt, int maxNew, int gamma) {
    return generate(target, draft, prompt, maxNew, gamma, (t, s) -> { });
  }

  /** As {@link #generate(NpuDecoder, NpuDecoder, int[], int, int)}, telling {@code listener} of every step. */
  public static Result generate(NpuDecoder target, NpuDecoder draft, int[] prompt, int maxNew, int gamma,
                                StepListener listener) {
    if (gamma < 1) {
      throw new IllegalArgumentException("gamma must be >= 1, got " + gamma);
    }
    NpuDecoder.Step tp = target.prefill(prompt, false);
    listener.ran(true, tp);
    NpuDecoder.Step dp = draft.prefill(prompt, false);
    listener.ran(false, dp);
    long prefill = tp.counter(Counter.CYCLES) + dp.counter(Counter.CYCLES);
    List<Integer> out = new ArrayList<>();
    int next = Ops.argmax(tp.logits()[0]);
    out.add(next);
    long draftCycles = 0;
    long targetCycles = 0;
    int passes = 0;
    int draftSteps = 0;
    long drafted = 0;
    long acceptedTotal = 0;
    int pending = -1;
    while (out.size() < maxNew) {
      int base = target.length();
      if (pending >= 0) {
        NpuDecoder.Step d = draft.decode(pending);
        listener.ran(false, d);
        draftCycles += d.counter(Counter.CYCLES);
        draftSteps++;
        pending = -1;
      }
      int g = Math.min(gamma, maxNew - out.size());
      int[] proposal = new int[g];
      int tok = next;
      for (int i = 0; i < g; i++) {
        NpuDecoder.Step d = draft.decode(tok);
        listener.ran(false, d);
        draftCycles += d.counter(Counter.CYCLES);
        draftSteps++;
        tok = Ops.argmax(d.logits()[0]);
        proposal[i] = tok;
      }
      int[] fed = new int[g + 1];
      fed[0] = next;
      System.arraycopy(proposal, 0, fed, 1, g);
      NpuDecoder.Step v = target.verify(fed);
      listener.ran(true, v);
      drafted += g;
      targetCycles += v.counter(Counter.CYCLES);
      passes++;
      int accepted = 0;
      while (accepted < g && Ops.argmax(v.logits()[accepted]) == proposal[accepted]) {
        accepted++;
      }
      acceptedTotal += accepted;
      for (int i = 0; i < accepted && out.size() < maxNew; i++) {
        out.add(proposal[i]);
      }
      int bonus = Ops.argmax(v.logits()[accepted]);
      if (out.size() < maxNew) {
        out.add(bonus);
      }
      target.rewind(base + 1 + accepted);
      // The draft holds next and proposals 1..g-1; the last proposal's slot is missing when all were accepted.
      draft.rewind(base + 1 + Math.min(accepted, g - 1));
      if (accepted == g) {
        pending = proposal[g - 1];
      }
      next = bonus;
    }
    int[] tokens = out.stream().mapToInt(Integer::intValue).toArray();
    return new Result(tokens, passes, draftSteps, drafted, acceptedTotal, draftCycles, targetCycles, prefill);
  }
}
