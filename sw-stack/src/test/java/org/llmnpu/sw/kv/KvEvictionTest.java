package org.llmnpu.sw.kv;

import static org.junit.jupiter.api.Assertions.*;

import java.util.Arrays;
import org.junit.jupiter.api.Test;
import org.llmnpu.sw.TestModels;
import org.llmnpu.sw.model.ModelConfig;
import org.llmnpu.sw.model.SyntheticPrompts;
import org.llmnpu.sw.model.Transformer;

class KvEvictionTest {

    private static final ModelConfig C = TestModels.MICRO;
    private final KvStudy study = new KvStudy(new Transformer(TestModels.micro(9)), SyntheticPrompts.prompt(C, 120, 3),
            SyntheticPrompts.prompt(C, 4, 4));

    @Test
    void evictionKeepsExactlyTheLayerBudgetAndAlwaysTheWindow() {
        for (BudgetSchedule schedule : BudgetSchedule.values()) {
            EvictionConfig e = new EvictionConfig(16, 5, false, 48, schedule);
            int[] budgets = schedule.budgets(C.layers(), 48, 16);
            int[][][] kept = study.keptPositions(e);
            for (int l = 0; l < C.layers(); l++) {
                for (int h = 0; h < C.kvHeads(); h++) {
                    int[] k = kept[l][h];
                    assertEquals(Math.min(120, budgets[l]), k.length, schedule + " layer " + l);
                    for (int w = 104; w < 120; w++) {
                        assertTrue(Arrays.binarySearch(k, w) >= 0, "window position " + w + " must be kept");
                    }
                    assertEquals(k.length, Arrays.stream(k).distinct().count());
                }
            }
        }
    }

    @Test
    void votesFindTheAttentionSink() {
        int[][][] kept = study.keptPositions(new EvictionConfig(16, 1, false, 24, BudgetSchedule.UNIFORM));
        int withSink = 0;
        for (int[][] layer : kept) {
            for (int[] head : layer) {
                withSink += head[0] == 0 ? 1 : 0;
            }
        }
        assertTrue(withSink >= C.layers() * C.kvHeads() / 2, "heads keeping BOS: " + withSink);
    }

    @Test
    void evictedCacheReadsFewerBytesAndBiggerBudgetsAreMoreAccurate() {
        KvStudyResult small = study.measure(KvSetting.of(null, new EvictionConfig(16, 5, false, 24, BudgetSchedule.UNIFORM)));
        KvStudyResult large = study.measure(KvSetting.of(null, new EvictionConfig(16, 5, false, 96, BudgetSchedule.UNIFORM)));
        assertEquals(24, small.meanKeptTokens(), 1e-9);
        assertTrue(small.kvBytesPerDecodeToken() < large.kvBytesPerDecodeToken());
        assertTrue(large.klDivergence() < small.klDivergence(), large.klDivergence() + " vs " + small.klDivergence());
    }

    @Test
    void schedulesShareTheAverageAndFollowTheirShapes() {
        int layers = 4;
        for (BudgetSchedule s : BudgetSchedule.values()) {
            assertEquals(4 * 256, Arrays.stream(s.budgets(layers, 256, 32)).sum(), 2, s.name());
        }
        int[] pyramid = BudgetSchedule.PYRAMID.budgets(layers, 256, 32);
        assertEquals(32 + 2 * 224 - 224 / 20.0, pyramid[0], 1);
        assertEquals(32 + 224 / 20.0, pyramid[3], 1);
        assertArrayEquals(new int[] {32 + 336, 32 + 336, 32 + 112, 32 + 112}, BudgetSchedule.HEAD_HEAVY.budgets(layers, 256, 32));
        assertArrayEquals(new int[] {32 + 112, 32 + 112, 32 + 336, 32 + 336}, BudgetSchedule.TAIL_HEAVY.budgets(layers, 256, 32));
    }

    @Test
    void averagePoolingCountsPaddingAndMaxPoolingTakesTheNeighbourhoodMaximum() {
        double[] x = {0, 3, 0, 0, 6};
        assertArrayEquals(new double[] {1, 1, 1, 2, 2}, SnapKvEviction.pool(x, 3, false), 1e-12);
        assertArrayEquals(new double[] {3, 3, 3, 6, 6}, SnapKvEviction.pool(x, 3, true), 1e-12);
    }

    @Test
    void budgetBelowTheWindowIsRejected() {
        var e = assertThrows(IllegalArgumentException.class, () -> EvictionConfig.parse("snapkv,w32,budget16"));
        assertTrue(e.getMessage().contains("budget 16 must exceed the window 32"), e.getMessage());
        assertThrows(IllegalArgumentException.class, () -> EvictionConfig.parse("snapkv,w32,budget64,k4"));
        assertEquals(BudgetSchedule.PYRAMID, EvictionConfig.parse("snapkv,w32,budget256,pyramid").schedule());
    }
}
