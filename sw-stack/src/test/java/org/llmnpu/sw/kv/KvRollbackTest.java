package org.llmnpu.sw.kv;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Optional;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.llmnpu.sw.TestModels;
import org.llmnpu.sw.model.ModelConfig;

/** Speculative rollback of a compressed KV cache: exact, and refused beyond what can be undone. */
class KvRollbackTest {
    private static final ModelConfig C = TestModels.MICRO;

    private static float[] vector(Random rnd) {
        float[] v = new float[C.kvHeads() * C.headDim()];
        for (int i = 0; i < v.length; i++) {
            v[i] = (float) rnd.nextGaussian();
        }
        return v;
    }

    private static float[] attend(CompressedKvStore s, float[] q, int pos) {
        float[] out = new float[C.heads() * C.headDim()];
        s.attend(0, q, pos, out);
        return out;
    }

    @org.junit.jupiter.params.ParameterizedTest
    @org.junit.jupiter.params.provider.ValueSource(strings = {"pertoken4,g8,r8", "hybrid2,g4,r8", "perchannel8,g8,r8"})
    void rollingBackEqualsNeverHavingWrittenTheTokens(String kv) {
        Optional<KvQuantConfig> quant = Optional.of(KvQuantConfig.parse(kv));
        CompressedKvStore rolled = new CompressedKvStore(C, quant);
        CompressedKvStore reference = new CompressedKvStore(C, quant);
        Random rnd = new Random(5);
        for (int pos = 0; pos < 20; pos++) {
            float[] k = vector(rnd);
            float[] v = vector(rnd);
            for (int l = 0; l < C.layers(); l++) {
                rolled.write(l, pos, k, v);
                if (pos < 16) {
                    reference.write(l, pos, k, v);
                }
            }
        }
        rolled.truncate(16);
        assertEquals(16, rolled.length());
        float[] q = new float[C.heads() * C.headDim()];
        for (int i = 0; i < q.length; i++) {
            q[i] = (float) rnd.nextGaussian();
        }
        assertArrayEquals(attend(reference, q, 15), attend(rolled, q, 15));
        assertEquals(reference.bytesPerDecodeStep(), rolled.bytesPerDecodeStep());
    }

    @Test
    void rollingBackPrefillOrMoreThanRememberedIsRefused() {
        CompressedKvStore s = new CompressedKvStore(C, Optional.of(KvQuantConfig.parse("pertoken4,g8,r8")));
        Random rnd = new Random(6);
        int n = QuantizedTensorStream.UNDO_DEPTH + 10;
        for (int pos = 0; pos < n; pos++) {
            float[] k = vector(rnd);
            float[] v = vector(rnd);
            for (int l = 0; l < C.layers(); l++) {
                s.write(l, pos, k, v);
            }
        }
        var e = assertThrows(IllegalArgumentException.class, () -> s.truncate(5));
        assertTrue(e.getMessage().contains("at most " + QuantizedTensorStream.UNDO_DEPTH), e.getMessage());
        assertEquals(n, s.length());
        s.truncate(n - 4);
        assertEquals(n - 4, s.length());
    }
}
