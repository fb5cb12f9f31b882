package org.llmnpu.sw.io.hf;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Random;
import org.junit.jupiter.api.Test;
import org.llmnpu.sw.model.Ops;

/** Rotate-half RoPE on Hugging Face rows equals the interleaved RoPE (llama2.c, the NPU's) on the permuted rows. */
class RopeLayoutTest {

    @Test
    void rotateHalfOnHfOrderEqualsInterleavedOnPermutedOrder() {
        Random rnd = new Random(3);
        for (int headDim : new int[] {2, 8, 16, 64}) {
            int heads = 3;
            for (int pos : new int[] {0, 1, 7, 100, 4095}) {
                float[] hf = new float[heads * headDim];
                for (int i = 0; i < hf.length; i++) {
                    hf[i] = (float) rnd.nextGaussian();
                }
                float[] interleaved = permute(hf, heads, headDim);
                RopeLayout.ropeRotateHalf(hf, pos, headDim, 10000f);
                Ops.rope(interleaved, pos, headDim, 10000f);
                assertArrayEquals(permute(hf, heads, headDim), interleaved, 1e-6f, "headDim " + headDim + ", pos " + pos);
            }
        }
    }

    @Test
    void withoutThePermutationTheConventionsDisagree() {
        float[] v = new float[8];
        for (int i = 0; i < v.length; i++) {
            v[i] = i + 1;
        }
        float[] a = v.clone();
        float[] b = v.clone();
        RopeLayout.ropeRotateHalf(a, 5, 8, 10000f);
        Ops.rope(b, 5, 8, 10000f);
        double diff = 0;
        for (int i = 0; i < v.length; i++) {
            diff = Math.max(diff, Math.abs(a[i] - b[i]));
        }
        assertTrue(diff > 0.5, "the two layouts must differ on unpermuted rows, max diff " + diff);
    }

    @Test
    void thePermutationsAreInverseAndMoveRowsWithoutCopying() {
        float[][] w = new float[2 * 6][];
        for (int r = 0; r < w.length; r++) {
            w[r] = new float[] {r};
        }
        float[][] there = RopeLayout.interleavedToRotateHalf(w, 2, 6);
        float[][] back = RopeLayout.rotateHalfToInterleaved(there, 2, 6);
        for (int r = 0; r < w.length; r++) {
            assertSame(w[r], back[r]);
        }
        // head 0, d = 6: interleaved rows 0..5 = (x0,y0,x1,y1,x2,y2) -> rotate-half (x0,x1,x2,y0,y1,y2)
        assertArrayEquals(new float[] {0, 2, 4, 1, 3, 5}, new float[] {there[0][0], there[1][0], there[2][0], there[3][0],
            there[4][0], there[5][0]});
    }

    private static float[] permute(float[] hf, int heads, int headDim) {
        float[][] rows = new float[hf.length][];
        for (int i = 0; i < hf.length; i++) {
            rows[i] = new float[] {hf[i]};
        }
        float[][] p = RopeLayout.rotateHalfToInterleaved(rows, heads, headDim);
        float[] out = new float[hf.length];
        for (int i = 0; i < out.length; i++) {
            out[i] = p[i][0];
        }
        return out;
    }
}
