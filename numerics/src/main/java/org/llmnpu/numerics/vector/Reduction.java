package org.llmnpu.numerics.vector;

import java.util.function.BinaryOperator;
import org.llmnpu.numerics.fp16.Fp16;

/**
 * Reductions across a vector longer than the lanes, in the one order the hardware uses.
 *
 * <p><b>Order.</b> Lane {@code l} (0 ≤ l &lt; lanes) folds elements {@code i ≡ l (mod lanes)} in
 * increasing {@code i}, starting from the identity (+0 for sums, −infinity for max). Then a tree
 * halves the lanes: while {@code width > 1}, {@code p[j] = p[j] ⊕ p[j + width/2]} for
 * {@code j < width/2}. The result is {@code p[0]}.
 *
 * <p><b>Arithmetic.</b> Sums accumulate in IEEE binary32 (each addition rounded to nearest even,
 * exactly Java {@code float} addition); FP16 inputs widen to FP32 exactly, and FP16 squares are
 * exact in FP32 (22-bit significands). Max uses {@link Fp16#max} (IEEE maximumNumber).
 */
public final class Reduction {
    private Reduction() {
    }

    /** Sum of FP32 values in the lane/tree order, in FP32. */
    public static float sum(float[] values, VectorConfig config) {
        Float[] boxed = new Float[values.length];
        for (int i = 0; i < values.length; i++) {
            boxed[i] = values[i];
        }
        return reduce(boxed, 0.0f, (a, b) -> a + b, config);
    }

    /** Sum of FP16 values, accumulated in FP32. */
    public static float sum(short[] values, VectorConfig config) {
        float[] f = new float[values.length];
        for (int i = 0; i < f.length; i++) {
            f[i] = Fp16.toFloat(values[i]);
        }
        return sum(f, config);
    }

    /** Sum of squares of FP16 values: exact FP32 squares, accumulated in FP32. */
    public static float sumOfSquares(short[] values, VectorConfig config) {
        float[] f = new float[values.length];
        for (int i = 0; i < f.length; i++) {
            float v = Fp16.toFloat(values[i]);
            f[i] = v * v;
        }
        return sum(f, config);
    }

    /** Maximum of FP16 values; NaN elements are ignored, so an all-NaN or empty vector gives −infinity. */
    public static short max(short[] values, VectorConfig config) {
        Short[] boxed = new Short[values.length];
        for (int i = 0; i < values.length; i++) {
            boxed[i] = values[i];
        }
        return reduce(boxed, Fp16.NEGATIVE_INFINITY, Fp16::max, config);
    }

    /** The lane-then-tree reduction of the class comment, for any associative-looking operator. */
    public static <T> T reduce(T[] values, T identity, BinaryOperator<T> op, VectorConfig config) {
        int lanes = config.lanes();
        @SuppressWarnings("unchecked")
        T[] partial = (T[]) new Object[lanes];
        java.util.Arrays.fill(partial, identity);
        for (int i = 0; i < values.length; i++) {
            partial[i % lanes] = op.apply(partial[i % lanes], values[i]);
        }
        for (int width = lanes; width > 1; width /= 2) {
            for (int j = 0; j < width / 2; j++) {
                partial[j] = op.apply(partial[j], partial[j + width / 2]);
            }
        }
        return partial[0];
    }
}
