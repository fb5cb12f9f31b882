package org.llmnpu.sw.eval;

import java.util.Arrays;
import org.llmnpu.sw.model.Transformer;

/**
 * Teacher-forced comparison of a model against the FP32 reference: both read the same token
 * sequence, and the logits at positions {@code [from, tokens.length)} are compared with
 * {@link LogitComparison}.
 */
public final class AccuracyEvaluation {

    private AccuracyEvaluation() {
    }

    public static LogitComparison evaluate(Transformer reference, Transformer test, int[] tokens, int from) {
        if (from < 0 || from >= tokens.length) {
            throw new IllegalArgumentException("from must be in 0.." + (tokens.length - 1) + ", got " + from);
        }
        float[][] ref = reference.forwardAll(tokens, reference.newCache(tokens.length));
        float[][] got = test.forwardAll(tokens, test.newCache(tokens.length));
        return LogitComparison.compare(Arrays.copyOfRange(ref, from, ref.length), Arrays.copyOfRange(got, from, got.length));
    }
}
