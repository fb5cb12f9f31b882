package org.llmnpu.sw.train;

import java.util.List;
import java.util.Random;
import java.util.stream.IntStream;
import org.llmnpu.sw.model.ModelWeights;

/**
 * Recovery fine-tuning of an N:M-pruned model ({@link RecoveryMethod} {@code lora} or {@code masked}) with AdamW on
 * a {@link TrainingSet}. The mask is every non-zero weight of the pruned projection matrices; embedding, norms and
 * LM head stay frozen. Each step draws {@code batch} sequences (a fresh shuffle of the set each pass, seeded), runs
 * them forward and back in parallel (one gradient accumulator per sequence, summed in batch order so the result
 * does not depend on thread timing) and takes one optimizer step. {@code masked} zeroes the gradient of pruned
 * weights, so they stay exactly zero; {@code lora} trains adapters through the mask and merges them at the end.
 */
public final class Recovery {

    /** What training did: steps, trained parameters, tokens processed, wall time, loss at the first and last step. */
    public record Report(RecoveryMethod method, int steps, long trainableParameters, long tokens, double seconds,
                         double firstLoss, double lastLoss, boolean cached) {

        public double tokensPerSecond() {
            return tokens / seconds;
        }

        public Report fromCache() {
            return new Report(method, steps, trainableParameters, tokens, seconds, firstLoss, lastLoss, true);
        }
    }

    /** The recovered weights (still N:M-sparse, FP32) and the training report. */
    public record Result(ModelWeights weights, Report report) {
    }

    private record Partial(TrainableWeights grads, double loss) {
    }

    private Recovery() {
    }

    public static Result train(ModelWeights pruned, TrainingSet data, RecoveryOptions o) {
        if (o.isNone()) {
            throw new IllegalArgumentException("recovery method none trains nothing");
        }
        long start = System.nanoTime();
        TrainableWeights base = TrainableWeights.of(pruned);
        boolean[][][][] masks = masks(base);
        LoraAdapters lora = o.method() == RecoveryMethod.LORA
                ? new LoraAdapters(base, o.loraTargets(), o.loraRank(), o.loraAlpha(), o.seed()) : null;
        List<double[]> trained = lora != null ? lora.rows() : base.projectionRows();
        AdamW optimizer = new AdamW(trained, o.weightDecay());
        long parameters = lora != null ? lora.parameters() : keptWeights(masks);
        Random random = new Random(o.seed());
        int[] order = IntStream.range(0, data.sequences().length).toArray();
        int cursor = order.length;
        double first = Double.NaN;
        double last = Double.NaN;
        long tokens = 0;
        for (int step = 0; step < o.steps(); step++) {
            int[] batch = new int[Math.min(o.batch(), order.length)];
            for (int i = 0; i < batch.length; i++) {
                if (cursor == order.length) {
                    shuffle(order, random);
                    cursor = 0;
                }
                batch[i] = order[cursor++];
            }
            TrainableWeights weights = lora != null ? lora.effective(base, masks) : base;
            int positions = 0;
            for (int s : batch) {
                positions += data.sequences()[s].length - 1;
                tokens += data.sequences()[s].length;
            }
            int allPositions = positions;
            List<Partial> parts = IntStream.range(0, batch.length).parallel().mapToObj(i -> {
                TrainableWeights g = weights.zerosLike();
                int s = batch[i];
                double loss = ModelBackprop.lossAndGradients(weights, data.sequences()[s], data.teacherLogits()[s], o.loss(),
                        allPositions, g, true);
                return new Partial(g, loss);
            }).toList();
            TrainableWeights grads = parts.get(0).grads();
            double loss = parts.get(0).loss();
            for (int i = 1; i < parts.size(); i++) {
                grads.add(parts.get(i).grads());
                loss += parts.get(i).loss();
            }
            if (!Double.isFinite(loss)) {
                throw new IllegalStateException("recovery diverged at step " + step + " (loss " + loss + "); lower --recover-lr ("
                        + o.learningRate() + ")");
            }
            first = step == 0 ? loss : first;
            last = loss;
            applyMask(grads, masks);
            optimizer.step(lora != null ? lora.gradients(grads, masks) : grads.projectionRows(), o.learningRateAt(step));
        }
        TrainableWeights result = lora != null ? lora.effective(base, masks) : base;
        double seconds = (System.nanoTime() - start) / 1e9;
        return new Result(result.toModelWeights(), new Report(o.method(), o.steps(), parameters, tokens, seconds, first, last, false));
    }

    /** True where a projection weight is kept (non-zero) in the pruned model. */
    static boolean[][][][] masks(TrainableWeights w) {
        boolean[][][][] out = new boolean[w.projections.length][][][];
        for (int l = 0; l < out.length; l++) {
            out[l] = new boolean[w.projections[l].length][][];
            for (int m = 0; m < out[l].length; m++) {
                double[][] mat = w.projections[l][m];
                out[l][m] = new boolean[mat.length][mat[0].length];
                for (int r = 0; r < mat.length; r++) {
                    for (int c = 0; c < mat[r].length; c++) {
                        out[l][m][r][c] = mat[r][c] != 0;
                    }
                }
            }
        }
        return out;
    }

    private static void applyMask(TrainableWeights grads, boolean[][][][] masks) {
        for (int l = 0; l < masks.length; l++) {
            for (int m = 0; m < masks[l].length; m++) {
                double[][] g = grads.projections[l][m];
                for (int r = 0; r < g.length; r++) {
                    for (int c = 0; c < g[r].length; c++) {
                        if (!masks[l][m][r][c]) {
                            g[r][c] = 0;
                        }
                    }
                }
            }
        }
    }

    private static long keptWeights(boolean[][][][] masks) {
        long n = 0;
        for (boolean[][][] layer : masks) {
            for (boolean[][] m : layer) {
                for (boolean[] row : m) {
                    for (boolean kept : row) {
                        n += kept ? 1 : 0;
                    }
                }
            }
        }
        return n;
    }

    private static void shuffle(int[] a, Random random) {
        for (int i = a.length - 1; i > 0; i--) {
            int j = random.nextInt(i + 1);
            int t = a[i];
            a[i] = a[j];
            a[j] = t;
        }
    }
}
