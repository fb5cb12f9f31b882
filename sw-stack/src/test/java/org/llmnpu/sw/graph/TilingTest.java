package org.llmnpu.sw.graph;

import static org.junit.jupiter.api.Assertions.*;

import org.junit.jupiter.api.Test;

class TilingTest {

    @Test
    void aGemmThatFitsIsReadExactlyOnce() {
        GemmTiling.Tile t = GemmTiling.search(64, 64, 64, 1, 1, 2, TilingConfig.ofKib(512, 16, 16));
        assertEquals(64 * 64 + 64 * 64 + 64 * 64 * 2, t.trafficBytes(), 1e-9);
        assertEquals(64, t.tm());
    }

    @Test
    void aSmallSramForcesReReadsButRespectsTheBudget() {
        TilingConfig cfg = TilingConfig.ofKib(16, 16, 16);
        GemmTiling.Tile t = GemmTiling.search(512, 512, 512, 1, 1, 2, cfg);
        double ideal = 512 * 512 * 4.0;
        assertTrue(t.trafficBytes() > ideal);
        assertTrue(2 * (t.tm() * t.tk() + t.tk() * t.tn()) + t.tm() * t.tn() * 4 <= cfg.sramBytes());
        GemmTiling.Tile big = GemmTiling.search(512, 512, 512, 1, 1, 2, TilingConfig.ofKib(256, 16, 16));
        assertTrue(big.trafficBytes() < t.trafficBytes(), "more SRAM, less traffic");
    }

    @Test
    void tiledTrafficIsNeverBelowTheIdealSearchOptimumOfExhaustiveEnumeration() {
        TilingConfig cfg = TilingConfig.ofKib(32, 16, 16);
        GemmTiling.Tile t = GemmTiling.search(96, 200, 80, 1, 0.5, 2, cfg);
        for (long tm : GemmTiling.candidates(96, 16)) {
            for (long tn : GemmTiling.candidates(80, 16)) {
                for (long tk : GemmTiling.candidates(200, 16)) {
                    if (2 * (tm * tk + tk * tn * 0.5) + tm * tn * 4.0 <= cfg.sramBytes()) {
                        double traffic = 96 * 200 * GemmTiling.ceil(80, tn) + 200 * 80 * 0.5 * GemmTiling.ceil(96, tm)
                                + 96 * 80 * 2 + 2.0 * (GemmTiling.ceil(200, tk) - 1) * 96 * 80 * 4;
                        assertTrue(t.trafficBytes() <= traffic + 1e-9);
                    }
                }
            }
        }
    }

    @Test
    void attentionBlocksFitAndLongerQueryBlocksReadKvFewerTimes() {
        TilingConfig cfg = TilingConfig.ofKib(64, 16, 16);
        AttentionTiling.Blocks b = AttentionTiling.search(512, 512, 64, 2, 2, 2, cfg);
        double once = 2 * (2 * 512 * 64 * 2.0 * 2 + 2.0 * 512 * 64 * 2);
        assertTrue(b.trafficBytes() >= once);
        AttentionTiling.Blocks big = AttentionTiling.search(512, 512, 64, 2, 2, 2, TilingConfig.ofKib(4096, 16, 16));
        assertEquals(once, big.trafficBytes(), 1e-6, "with enough SRAM K and V are read once");
    }

    @Test
    void raggedRealModelShapesTileWithCeilingCounts() {
        // stories260K: hidden 172, head dim 8; a 100-token prefill and a 300-token context divide no tile
        var c = org.llmnpu.sw.model.ModelConfig.stories260K();
        TilingConfig cfg = TilingConfig.ofKib(64, 32, 32);
        GemmTiling.Tile t = GemmTiling.search(100, 172, 64, 1, 0.5, 2, cfg);
        assertTrue(t.tm() >= 1 && t.tk() >= 1 && t.tn() >= 1);
        double lower = 100 * 172 + 172 * 64 * 0.5 + 100 * 64 * 2;
        assertTrue(t.trafficBytes() >= lower - 1e-9);
        PassReport.Report r = PassReport.run(GraphShape.prefill(c, 100, DType.INT4), GraphShape.decode(c, 300, DType.INT4), cfg,
                org.llmnpu.sw.graph.LatencyModel.mobileNpu());
        assertFalse(r.rows().isEmpty());
        for (PassReport.Row row : r.rows()) {
            assertTrue(row.totalBytes() > 0 && row.estimatedMillis() > 0, row.toString());
        }
    }

    @Test
    void impossibleSramIsReported() {
        var e = assertThrows(IllegalArgumentException.class, () -> GemmTiling.search(64, 64, 64, 1, 1, 2, new TilingConfig(1024, 64, 64)));
        assertTrue(e.getMessage().contains("SRAM"));
    }
}
