package org.llmnpu.sw.kv;

import static org.junit.jupiter.api.Assertions.*;

import java.util.Optional;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.llmnpu.numerics.quant.Fp16Rounding;
import org.llmnpu.sw.TestModels;
import org.llmnpu.sw.model.SyntheticPrompts;
import org.llmnpu.sw.model.Transformer;

class KvQuantizationTest {

    private static float[][] rows(int n, int width, long seed) {
        Random rnd = new Random(seed);
        float[][] r = new float[n][width];
        for (float[] row : r) {
            for (int i = 0; i < width; i++) {
                row[i] = (float) (rnd.nextGaussian() * (1 + i % 3));
            }
        }
        return r;
    }

    @Test
    void perTokenStreamKeepsTheResidualWindowInFp16AndBoundsTheRest() {
        float[][] in = rows(20, 16, 1);
        QuantizedTensorStream s = new QuantizedTensorStream(16, 4, 8, 8, false);
        for (float[] r : in) {
            s.append(r);
        }
        for (int t = 0; t < 20; t++) {
            for (int i = 0; i < 16; i++) {
                if (t >= 12) {
                    assertEquals(Fp16Rounding.round(in[t][i]), s.row(t)[i], "residual token " + t);
                } else {
                    float range = rangeOf(in[t], i / 8 * 8, 8);
                    assertTrue(Math.abs(in[t][i] - s.row(t)[i]) <= range / 15 / 2 + 0.01f, "token " + t + " channel " + i);
                }
            }
        }
        long expected = 12L * (16 * 4 + 2 * 32) / 8 + 8L * 16 * 2;
        assertEquals(expected, s.bytes());
    }

    @Test
    void perChannelStreamQuantizesWholeBlocksWhenTheWindowFills() {
        float[][] in = rows(21, 8, 2);
        QuantizedTensorStream s = new QuantizedTensorStream(8, 2, 4, 8, true);
        for (float[] r : in) {
            s.append(r);
        }
        // 16 tokens quantized in two blocks of 8 (groups of 4 tokens per channel), 5 left in FP16
        for (int i = 0; i < 8; i++) {
            assertEquals(Fp16Rounding.round(in[20][i]), s.row(20)[i]);
            assertEquals(Fp16Rounding.round(in[16][i]), s.row(16)[i]);
        }
        for (int i = 0; i < 8; i++) {
            java.util.Set<Float> levels = new java.util.HashSet<>();
            for (int t = 4; t < 8; t++) {
                levels.add(s.row(t)[i]);
            }
            assertTrue(levels.size() <= 4, "a 2-bit group of channel " + i + " has at most 4 levels");
        }
        assertEquals((16L * 8 * 2 + 4L * 8 * 32) / 8 + 5L * 8 * 2, s.bytes());
    }

    @Test
    void moreBitsGiveLogitsCloserToTheFullCache() {
        Transformer t = new Transformer(TestModels.micro(4));
        KvStudy study = new KvStudy(t, SyntheticPrompts.prompt(TestModels.MICRO, 80, 1), SyntheticPrompts.prompt(TestModels.MICRO, 6, 2));
        double kl8 = study.measure(KvSetting.of(new KvQuantConfig(KvGrouping.HYBRID, 8, 8, 16), null)).klDivergence();
        double kl4 = study.measure(KvSetting.of(new KvQuantConfig(KvGrouping.HYBRID, 4, 8, 16), null)).klDivergence();
        double kl2 = study.measure(KvSetting.of(new KvQuantConfig(KvGrouping.HYBRID, 2, 8, 16), null)).klDivergence();
        assertTrue(kl8 < kl4 && kl4 < kl2, kl8 + " " + kl4 + " " + kl2);
        KvStudyResult full = study.measure(KvSetting.full());
        assertEquals(0, full.klDivergence(), 1e-12, "an uncompressed cache reproduces the reference");
        assertEquals(1.0, full.bytesVsFp16(), 1e-12);
    }

    @Test
    void quantizedCacheReadsFewerBytes() {
        Transformer t = new Transformer(TestModels.micro(4));
        KvStudy study = new KvStudy(t, SyntheticPrompts.prompt(TestModels.MICRO, 96, 1), new int[] {5});
        double r4 = study.measure(KvSetting.of(KvQuantConfig.parse("hybrid4,g8,r16"), null)).bytesVsFp16();
        double r2 = study.measure(KvSetting.of(KvQuantConfig.parse("hybrid2,g8,r16"), null)).bytesVsFp16();
        // head dimension 8 with groups of 8: the FP16 scale and minimum add 4 bits per element
        assertTrue(r2 < r4 && r4 < 0.6, r2 + " " + r4);
    }

    @Test
    void badKvParametersAreRejectedByName() {
        var e = assertThrows(IllegalArgumentException.class, () -> new KvQuantConfig(KvGrouping.HYBRID, 9, 32, 32));
        assertTrue(e.getMessage().contains("bits must be in 2..8"), e.getMessage());
        e = assertThrows(IllegalArgumentException.class, () -> new KvQuantConfig(KvGrouping.HYBRID, 1, 32, 32));
        assertTrue(e.getMessage().contains("bits"), e.getMessage());
        e = assertThrows(IllegalArgumentException.class, () -> KvQuantConfig.parse("hybrid4,g32,r48"));
        assertTrue(e.getMessage().contains("residual"), e.getMessage());
        assertEquals("pertoken2,g16,r32", KvQuantConfig.parse("pertoken2,g16,r32").toString());
    }

    @Test
    void perTokenGroupsThatDoNotDivideTheHeadLeaveAShorterLastGroup() {
        // stories260K has 8-wide heads: g32 (one group of 8) and g3 (3 + 3 + 2) must both work
        for (int g : new int[] {3, 32}) {
            QuantizedTensorStream s = new QuantizedTensorStream(8, 4, g, Math.max(g, 3), false);
            java.util.Random r = new java.util.Random(g);
            float[][] rows = new float[Math.max(g, 3) + 5][8];
            for (float[] row : rows) {
                for (int i = 0; i < 8; i++) {
                    row[i] = (float) r.nextGaussian();
                }
                s.append(row);
            }
            for (int t = 0; t < 5; t++) {
                for (int from = 0; from < 8; from += g) {
                    int n = Math.min(g, 8 - from);
                    float step = rangeOf(rows[t], from, n) / 15;
                    for (int i = from; i < from + n; i++) {
                        assertEquals(rows[t][i], s.row(t)[i], step * 0.51 + 2e-3, "g" + g + " token " + t + " channel " + i);
                    }
                }
            }
        }
        assertDoesNotThrow(() -> new CompressedKvStore(TestModels.MICRO, Optional.of(new KvQuantConfig(KvGrouping.HYBRID, 4, 3, 6))));
    }

    private static float rangeOf(float[] row, int from, int n) {
        float min = Float.POSITIVE_INFINITY;
        float max = Float.NEGATIVE_INFINITY;
        for (int i = from; i < from + n; i++) {
            min = Math.min(min, row[i]);
            max = Math.max(max, row[i]);
        }
        return max - min;
    }
}
