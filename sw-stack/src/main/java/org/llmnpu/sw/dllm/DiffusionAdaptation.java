package org.llmnpu.sw.dllm;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Properties;
import java.util.Random;
import java.util.stream.IntStream;
import org.llmnpu.sw.eval.SampledSequences;
import org.llmnpu.sw.io.Llama2cCheckpoint;
import org.llmnpu.sw.io.ModelCatalog;
import org.llmnpu.sw.model.ModelWeights;
import org.llmnpu.sw.model.Transformer;
import org.llmnpu.sw.train.AdamW;
import org.llmnpu.sw.train.ModelBackprop;
import org.llmnpu.sw.train.TrainableWeights;
import org.llmnpu.sw.train.TrainingLoss;
import org.llmnpu.sw.train.TrainingSet;

/**
 * Adapts an autoregressive model to block-wise masked diffusion by continued training (LLaDA's masked-token
 * objective, trained under the block-causal mask {@link BlockDenoiser} decodes with), and the shipped result for
 * stories260K ({@link #trained}).
 *
 * <p><b>Recipe.</b> Each example is one sequence of the model's own text (sampled as recovery training samples it,
 * {@link TrainingSet#sampled}): a prompt of {@code 1..maxPrompt} tokens (block 0), then blocks of {@code blockSize}.
 * One generated block b is the target: the blocks before it stay clean, later ones are cut off, and each of its tokens
 * is replaced by the mask token (0) with probability {@code t ~ U(0, 1]} (at least one). Loss: LLaDA's masked-token
 * cross-entropy {@code Σ_masked −log p(x_i | x_t)} with the logits of position i predicting token i (no shift),
 * weighted by {@code 1 / (masked tokens)} instead of LLaDA's {@code 1 / (t·|block|)}: the same weight in expectation
 * (about {@code t·|block|} tokens are masked) but bounded. With 1/t, a batch of 8 now and then holds a t near 0 whose
 * gradient is hundreds of times the others; AdamW's second moment keeps it for ~1,000 steps and the updates stall
 * (measured: 240 steps at lr 3e-3 moved the held-out loss only from 10.32 to 9.07 nats). Averaged over the batch. Attention is block-causal from the first step (row i sees blocks 0..block(i)), so the
 * forward and backward run exactly the mask the denoiser uses; there is no annealing. Full fine-tuning (embedding,
 * norms, projections) with AdamW, constant learning rate, no weight decay, fixed seed: same inputs, same weights.
 *
 * <p><b>Quality.</b> Held-out sequences sampled at {@link SampledSequences#EVALUATION_SEED} (disjoint from the
 * training seeds), {@code examples} fixed noisings each; masked-token cross-entropy (nats, unweighted mean over
 * masked tokens) and top-1 accuracy (argmax without the mask token, as the decoder predicts).
 */
public final class DiffusionAdaptation {
  /** The shipped adapted checkpoint (class path, beside stories260K) and its figures file. */
  public static final String CHECKPOINT = "stories260K-mdm";

  /** The training recipe. */
  public record Recipe(int steps, int batch, double learningRate, int blockSize, int maxPrompt, int length,
                       int trainSequences, int heldOutSequences, int examplesPerSequence, long seed) {
    /** What produced the shipped checkpoint. */
    public static final Recipe DEFAULT = new Recipe(200, 8, 5e-3, 32, 16, 112, 128, 24, 4, 38);

    public Recipe {
      if (steps < 0 || batch < 1 || !(learningRate > 0) || blockSize < 1 || maxPrompt < 1 || length <= maxPrompt
          || trainSequences < 1 || heldOutSequences < 1 || examplesPerSequence < 1) {
        throw new IllegalArgumentException("recipe: steps >= 0, batch >= 1, learningRate > 0, blockSize >= 1, "
            + "1 <= maxPrompt < length, sequences and examples >= 1; got " + this);
      }
    }

    public Recipe withSteps(int n) {
      return new Recipe(n, batch, learningRate, blockSize, maxPrompt, length, trainSequences, heldOutSequences,
          examplesPerSequence, seed);
    }
  }

  /** One noised sequence: the input (masked), the clean tokens, the attention's prefix ends, the masked rows. */
  public record Example(int[] input, int[] clean, int[] visibleEnd, boolean[] masked, double t, int blockTokens) {
    /** How many tokens are masked (at least one). */
    public int maskedCount() {
      int n = 0;
      for (boolean m : masked) {
        n += m ? 1 : 0;
      }
      return n;
    }
  }

  /** Held-out masked-token cross-entropy (nats a token) and top-1 accuracy over {@code tokens} masked tokens. */
  public record Quality(double loss, double accuracy, long tokens) {
  }

  /** The adapted weights, held-out quality before and after, the training loss at the first and last step. */
  public record Result(ModelWeights weights, Quality before, Quality after, double firstLoss, double lastLoss,
                       double seconds) {
  }

  private DiffusionAdaptation() {
  }

  /** Prefix ends of the block-causal mask: a row of block b sees every position before block b's end. */
  public static int[] blockCausalEnds(int length, int promptLen, int blockSize) {
    int[] ends = new int[length];
    for (int p = 0; p < length; p++) {
      int b = p < promptLen ? 0 : 1 + (p - promptLen) / blockSize;
      ends[p] = Math.min(length, promptLen + b * blockSize);
    }
    return ends;
  }

  /** Noises {@code seq} for one example (see the recipe). */
  public static Example example(int[] seq, Random r, int blockSize, int maxPrompt, int maskToken) {
    int prompt = 1 + r.nextInt(Math.min(maxPrompt, seq.length - 1));
    int blocks = (seq.length - prompt + blockSize - 1) / blockSize;
    int b = 1 + r.nextInt(blocks);
    int start = prompt + (b - 1) * blockSize;
    int end = Math.min(seq.length, start + blockSize);
    double t = 1 - r.nextDouble();
    int[] clean = java.util.Arrays.copyOf(seq, end);
    int[] input = clean.clone();
    boolean[] masked = new boolean[end];
    int count = 0;
    for (int p = start; p < end; p++) {
      if (r.nextDouble() < t) {
        masked[p] = true;
        count++;
      }
    }
    if (count == 0) {
      masked[start + r.nextInt(end - start)] = true;
    }
    for (int p = start; p < end; p++) {
      input[p] = masked[p] ? maskToken : input[p];
    }
    return new Example(input, clean, blockCausalEnds(end, prompt, blockSize), masked, t, end - start);
  }

  /** Trains {@code ar} by the recipe and measures held-out quality before and after. */
  public static Result train(ModelWeights ar, Recipe r) {
    long start = System.nanoTime();
    Transformer model = new Transformer(ar);
    int[][] train = TrainingSet.sampled(ar, r.trainSequences(), r.length(), r.seed()).sequences();
    List<Example> heldOut = heldOut(model, r);
    TrainableWeights w = TrainableWeights.of(ar);
    Quality before = evaluate(w, heldOut);
    AdamW opt = new AdamW(w.rows(), 0);
    Random random = new Random(r.seed());
    double first = Double.NaN;
    double last = Double.NaN;
    for (int step = 0; step < r.steps(); step++) {
      Example[] batch = new Example[r.batch()];
      for (int i = 0; i < batch.length; i++) {
        batch[i] = example(train[random.nextInt(train.length)], random, r.blockSize(), r.maxPrompt(), 0);
      }
      TrainableWeights[] grads = new TrainableWeights[batch.length];
      double[] losses = new double[batch.length];
      IntStream.range(0, batch.length).parallel().forEach(i -> {
        grads[i] = w.zerosLike();
        Example e = batch[i];
        double scale = 1.0 / ((double) e.maskedCount() * batch.length);
        losses[i] = ModelBackprop.lossAndGradients(w, e.input(), e.visibleEnd(),
            (logits, d) -> maskedCrossEntropy(logits, e, scale, d), grads[i], false);
      });
      double loss = 0;
      for (int i = 0; i < batch.length; i++) {
        loss += losses[i];
        if (i > 0) {
          grads[0].add(grads[i]);
        }
      }
      if (!Double.isFinite(loss)) {
        throw new IllegalStateException("diffusion adaptation diverged at step " + step + " (loss " + loss
            + "); lower learningRate (" + r.learningRate() + ")");
      }
      first = step == 0 ? loss : first;
      last = loss;
      opt.step(grads[0].rows(), r.learningRate());
    }
    ModelWeights out = w.toModelWeights();
    return new Result(out, before, evaluate(TrainableWeights.of(out), heldOut), first, last,
        (System.nanoTime() - start) / 1e9);
  }

  /** The fixed held-out examples of a recipe (sampled at the evaluation seed, noised with {@code seed + 1}). */
  public static List<Example> heldOut(Transformer model, Recipe r) {
    int[][] seqs = SampledSequences.sample(model, r.heldOutSequences(), r.length(), SampledSequences.EVALUATION_SEED);
    Random random = new Random(r.seed() + 1);
    List<Example> out = new ArrayList<>();
    for (int[] s : seqs) {
      for (int k = 0; k < r.examplesPerSequence(); k++) {
        out.add(example(s, random, r.blockSize(), r.maxPrompt(), 0));
      }
    }
    return out;
  }

  /** Masked-token cross-entropy and accuracy of {@code w} on {@code examples} (block-causal forward passes). */
  public static Quality evaluate(TrainableWeights w, List<Example> examples) {
    double[][] parts = examples.parallelStream().map(e -> {
      double[][] logits = ModelBackprop.logits(w, e.input(), e.visibleEnd());
      double loss = 0;
      double hits = 0;
      double n = 0;
      for (int p = 0; p < logits.length; p++) {
        if (e.masked()[p]) {
          loss -= TrainingLoss.logSoftmax(logits[p])[e.clean()[p]];
          int best = 1;
          for (int v = 1; v < logits[p].length; v++) {
            best = logits[p][v] > logits[p][best] ? v : best;
          }
          hits += best == e.clean()[p] ? 1 : 0;
          n++;
        }
      }
      return new double[] {loss, hits, n};
    }).toArray(double[][]::new);
    double loss = 0;
    double hits = 0;
    double n = 0;
    for (double[] x : parts) {
      loss += x[0];
      hits += x[1];
      n += x[2];
    }
    return new Quality(loss / n, hits / n, (long) n);
  }

  /** {@code scale · Σ_masked −log p}, its gradient written into {@code d}. */
  static double maskedCrossEntropy(double[][] logits, Example e, double scale, double[][] d) {
    double loss = 0;
    for (int p = 0; p < logits.length; p++) {
      if (!e.masked()[p]) {
        continue;
      }
      double[] logP = TrainingLoss.logSoftmax(logits[p]);
      int target = e.clean()[p];
      loss -= logP[target];
      for (int v = 0; v < logP.length; v++) {
        d[p][v] = scale * (Math.exp(logP[v]) - (v == target ? 1 : 0));
      }
    }
    return scale * loss;
  }

  /** The shipped adapted stories260K (MIT, as stories260K). */
  public static ModelWeights trained() throws IOException {
    return Llama2cCheckpoint.readBundled(CHECKPOINT);
  }

  /** The shipped checkpoint's recipe and held-out figures ({@code stories260K-mdm.properties}). */
  public static Properties trainedFigures() throws IOException {
    Properties p = new Properties();
    try (InputStream in = DiffusionAdaptation.class.getResourceAsStream(Llama2cCheckpoint.BUNDLED_DIR + CHECKPOINT
        + ".properties")) {
      if (in == null) {
        throw new IOException("no bundled " + CHECKPOINT + ".properties");
      }
      p.load(in);
    }
    return p;
  }

  /**
   * Produces the shipped checkpoint: {@code main OUT_DIR} trains stories260K by {@link Recipe#DEFAULT} and writes
   * {@code OUT_DIR/stories260K-mdm.bin} and {@code .properties} (atomically).
   */
  public static void main(String[] args) throws IOException {
    if (args.length != 1) {
      System.err.println("usage: DiffusionAdaptation OUT_DIR");
      System.exit(2);
    }
    Path dir = Path.of(args[0]);
    Recipe r = Recipe.DEFAULT;
    Result res = train(ModelCatalog.load("stories260K", 42), r);
    Path bin = dir.resolve(CHECKPOINT + ".bin");
    Path tmp = dir.resolve(CHECKPOINT + ".bin.tmp");
    Llama2cCheckpoint.write(res.weights(), tmp);
    Files.move(tmp, bin, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
    String figures = String.format(Locale.ROOT, "# %s: stories260K (MIT, Andrej Karpathy) adapted to block-wise masked "
        + "diffusion by org.llmnpu.sw.dllm.DiffusionAdaptation (Recipe.DEFAULT)%nrecipe=%s%nheldOut.examples=%d%n"
        + "heldOut.maskedTokens=%d%nbefore.loss=%.4f%nbefore.accuracy=%.4f%nafter.loss=%.4f%nafter.accuracy=%.4f%n"
        + "train.firstLoss=%.4f%ntrain.lastLoss=%.4f%n", CHECKPOINT, recipeText(r),
        r.heldOutSequences() * r.examplesPerSequence(), res.after().tokens(), res.before().loss(),
        res.before().accuracy(), res.after().loss(), res.after().accuracy(), res.firstLoss(), res.lastLoss());
    Path props = dir.resolve(CHECKPOINT + ".properties");
    Path ptmp = dir.resolve(CHECKPOINT + ".properties.tmp");
    Files.writeString(ptmp, figures);
    Files.move(ptmp, props, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
    System.out.print(figures);
    System.out.printf(Locale.ROOT, "trained in %.1f s%n", res.seconds());
  }

  /** The recipe in one line (for the figures file and reports). */
  public static String recipeText(Recipe r) {
    return String.format(Locale.ROOT, "LLaDA masked-token CE (weight 1/masked tokens, not 1/t), t~U(0,1], one target block a sequence, "
        + "block-causal attention (blocks of %d, prompt 1..%d), no logit shift, mask token 0; full fine-tune, AdamW "
        + "lr %.0e, %d steps x %d sequences of %d sampled tokens (%d sequences, seed %d)", r.blockSize(), r.maxPrompt(),
        r.learningRate(), r.steps(), r.batch(), r.length(), r.trainSequences(), r.seed());
  }
}
