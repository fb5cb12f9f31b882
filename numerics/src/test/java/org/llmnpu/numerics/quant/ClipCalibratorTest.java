package org.llmnpu.numerics.quant;

import static org.junit.jupiter.api.Assertions.*;

import java.util.Random;
import org.junit.jupiter.api.Test;

class ClipCalibratorTest {

    @Test
    void calibrationNeverIncreasesOutputErrorOnTheSamplesAndHelpsHeavyTails() {
        Random rnd = new Random(11);
        int rows = 12;
        int cols = 64;
        float[][] w = new float[rows][cols];
        for (float[] row : w) {
            for (int c = 0; c < cols; c++) {
                double t = rnd.nextGaussian() / Math.sqrt(Math.max(1e-3, sq(rnd.nextGaussian()) + sq(rnd.nextGaussian())) / 2);
                row[c] = (float) t; // Student-t with 2 degrees of freedom: heavy tails
            }
        }
        float[][] x = new float[32][cols];
        for (float[] s : x) {
            for (int c = 0; c < cols; c++) {
                s[c] = (float) rnd.nextGaussian();
            }
        }
        QuantScheme scheme = QuantScheme.perChannel(4, true);
        QuantizedMatrix plain = WeightQuantizer.quantize(w, scheme);
        QuantizedMatrix calibrated = ClipCalibrator.calibrate(w, x, scheme);
        double plainErr = 0;
        double calErr = 0;
        for (int r = 0; r < rows; r++) {
            double p = ClipCalibrator.outputError(w[r], plain, r, x);
            double c = ClipCalibrator.outputError(w[r], calibrated, r, x);
            assertTrue(c <= p * (1 + 1e-9), "row " + r);
            plainErr += p;
            calErr += c;
        }
        assertTrue(calErr < 0.95 * plainErr, "calibrated " + calErr + " vs plain " + plainErr);
    }

    @Test
    void mismatchedActivationWidthIsRejected() {
        var e = assertThrows(IllegalArgumentException.class,
                () -> ClipCalibrator.calibrate(new float[2][8], new float[3][4], QuantScheme.perChannel(8, true)));
        assertTrue(e.getMessage().contains("activation width"));
    }

    private static double sq(double v) {
        return v * v;
    }
}
