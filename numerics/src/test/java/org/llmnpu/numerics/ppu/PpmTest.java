package org.llmnpu.numerics.ppu;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Random;
import org.junit.jupiter.api.Test;
import org.llmnpu.numerics.gemm.TiledGemm;
import org.llmnpu.numerics.gemm.TiledGemmConfig;
import org.llmnpu.numerics.requant.Activation;
import org.llmnpu.numerics.requant.OutputFormat;
import org.llmnpu.numerics.requant.RequantParams;
import org.llmnpu.numerics.requant.Requantizer;

/** The whole GEMM-engine golden path: Y = ppu(requant(X·W + b)). */
class PpmTest {

    @Test
    void gemmThenRequantThenGeluTracksTheRealValuedLayerWithinTwoLsbs() {
        Random rnd = new Random(91);
        int m = 12;
        int k = 96;
        int n = 10;
        byte[][] x = new byte[m][k];
        byte[][] w = new byte[k][n];
        for (byte[] r : x) {
            rnd.nextBytes(r);
        }
        for (byte[] r : w) {
            rnd.nextBytes(r);
        }
        double xScale = 0.02;
        double wScale = 0.004;
        PpuTable gelu = PpuFitter.fit(PpuFunction.GELU, PpuFormat.DEFAULT);
        QuantSpec geluIn = PpuFunction.GELU.input();
        RequantParams[] params = new RequantParams[n];
        int[] bias = new int[n];
        for (int j = 0; j < n; j++) {
            params[j] = RequantParams.of(xScale * wScale, geluIn.scale(), geluIn.zeroPoint(), OutputFormat.INT8, Activation.NONE);
            bias[j] = rnd.nextInt(2001) - 1000;
        }
        int[][] acc = TiledGemm.run(TiledGemmConfig.defaults(2), x, w).y();
        int[][] y = Ppm.process(acc, bias, params, gelu);
        for (int i = 0; i < m; i++) {
            for (int j = 0; j < n; j++) {
                assertEquals(PpuEvaluator.evaluate(gelu, Requantizer.requantize(acc[i][j], bias[j], params[j])), y[i][j]);
                double real = (acc[i][j] + (double) bias[j]) * xScale * wScale;
                double clipped = Math.max(geluIn.toReal(-128), Math.min(geluIn.toReal(127), real));
                double ideal = PpuFunction.GELU.output().toCode(PpuFunction.GELU.reference().applyAsDouble(clipped));
                ideal = Math.max(-128, Math.min(127, ideal));
                assertTrue(Math.abs(y[i][j] - ideal) <= 2.5, "y=" + y[i][j] + " ideal=" + ideal);
            }
        }
    }

    @Test
    void withoutATableThePpmIsTheRequantizer() {
        RequantParams p = RequantParams.of(0.01, 0.05, 3, OutputFormat.INT8, Activation.RELU);
        for (int acc = -2000; acc <= 2000; acc += 37) {
            assertEquals(Requantizer.requantize(acc, 5, p), Ppm.process(acc, 5, p, null));
        }
    }
}
