package org.llmnpu.sw.train;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.IntStream;
import org.llmnpu.sw.eval.SampledSequences;
import org.llmnpu.sw.io.TextTokenizer;
import org.llmnpu.sw.model.ModelWeights;
import org.llmnpu.sw.model.Transformer;

/**
 * The sequences recovery trains on and the FP32 model's logits on them (the distillation targets). Either sampled
 * from the FP32 model (temperature 1, BOS first, sequence i with seed {@code TRAINING_SEED + 10,000·seed + i}:
 * a range disjoint from the calibration and held-out seeds of {@link SampledSequences}), or a user's text
 * tokenized with the model's tokenizer and cut into consecutive chunks, each starting with BOS.
 *
 * @param source what the sequences are, for reports and the cache key
 */
public record TrainingSet(int[][] sequences, float[][][] teacherLogits, String source) {

    /** First seed of training sequences (calibration starts at 1,000, held-out at 2,000,000). */
    public static final long TRAINING_SEED = 3_000_000;
    /** Sampled training sets hold at most this many sequences (steps cycle through them, reshuffled each pass). */
    public static final int MAX_SAMPLED_SEQUENCES = 256;

    public TrainingSet {
        if (sequences.length == 0) {
            throw new IllegalArgumentException("the training set is empty");
        }
    }

    /** How many sequences a sampled set for {@code o} holds: one per sequence the steps read, at most 256. */
    public static int sampledCount(RecoveryOptions o) {
        return (int) Math.min(MAX_SAMPLED_SEQUENCES, (long) o.steps() * o.batch());
    }

    /** The description of a sampled set, known before sampling (it determines the sequences given the model). */
    public static String sampledSource(int count, int length, long seed) {
        return "sampled from the FP32 model: " + count + " x " + length + " tokens, seed " + (TRAINING_SEED + 10_000 * seed);
    }

    public static TrainingSet sampled(ModelWeights fp32, int count, int length, long seed) {
        Transformer model = new Transformer(fp32);
        long first = TRAINING_SEED + 10_000 * seed;
        int[][] seqs = IntStream.range(0, count).parallel()
                .mapToObj(i -> SampledSequences.sample(model, 1, length, first + i)[0]).toArray(int[][]::new);
        return new TrainingSet(seqs, teacher(model, seqs), sampledSource(count, length, seed));
    }

    /** The text of {@code file} in chunks of {@code length} tokens (BOS + {@code length − 1} text tokens). */
    public static TrainingSet fromText(ModelWeights fp32, TextTokenizer tokenizer, Path file, int length) throws java.io.IOException {
        String text = Files.readString(file, StandardCharsets.UTF_8);
        List<Integer> ids = tokenizer.encode(text, false);
        List<int[]> chunks = new ArrayList<>();
        for (int at = 0; at + length - 1 <= ids.size(); at += length - 1) {
            int[] seq = new int[length];
            seq[0] = SampledSequences.BOS;
            for (int i = 1; i < length; i++) {
                seq[i] = ids.get(at + i - 1);
            }
            chunks.add(seq);
        }
        if (chunks.isEmpty()) {
            throw new IllegalArgumentException("--train-text " + file + " has " + ids.size() + " tokens; recovery needs at least "
                    + (length - 1) + " (one sequence of --recover-seq-len tokens)");
        }
        int[][] seqs = chunks.toArray(int[][]::new);
        return new TrainingSet(seqs, teacher(new Transformer(fp32), seqs), "text " + file.getFileName() + ": " + seqs.length
                + " x " + length + " tokens");
    }

    public long tokens() {
        long n = 0;
        for (int[] s : sequences) {
            n += s.length;
        }
        return n;
    }

    private static float[][][] teacher(Transformer fp32, int[][] seqs) {
        return IntStream.range(0, seqs.length).parallel()
                .mapToObj(i -> fp32.forwardAll(seqs[i], fp32.newCache(seqs[i].length))).toArray(float[][][]::new);
    }
}
