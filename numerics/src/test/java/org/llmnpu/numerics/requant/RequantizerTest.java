package org.llmnpu.numerics.requant;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Random;
import org.junit.jupiter.api.Test;

/** The PPM requantization pipeline: bias, scale, zero point, clamp and quantized activations. */
class RequantizerTest {

    @Test
    void requantizedValueIsTheRoundedRealValueWithinOneLsbBeforeClamping() {
        Random rnd = new Random(8);
        for (int i = 0; i < 20_000; i++) {
            double accScale = 1e-4 * (1 + rnd.nextDouble());
            double outScale = 0.02 * (1 + rnd.nextDouble());
            int zp = rnd.nextInt(41) - 20;
            RequantParams p = RequantParams.of(accScale, outScale, zp, OutputFormat.INT8, Activation.NONE);
            int acc = rnd.nextInt(40_000) - 20_000;
            int bias = rnd.nextInt(2000) - 1000;
            double real = (acc + (double) bias) * accScale / outScale + zp;
            double clamped = Math.max(-128, Math.min(127, real));
            assertEquals(clamped, Requantizer.requantize(acc, bias, p), 1.0);
        }
    }

    @Test
    void biasAddSaturatesAtInt32() {
        RequantParams unity = new RequantParams(new QuantizedMultiplier(1 << 30, -20), 0, OutputFormat.INT8,
                Activation.NONE, 0);
        // saturated sum 2^31-1 times 2^-21 = 1024 -> clamps to 127; a wrapped sum would be negative.
        assertEquals(127, Requantizer.requantize(Integer.MAX_VALUE, 5, unity));
        assertEquals(-128, Requantizer.requantize(Integer.MIN_VALUE, -5, unity));
    }

    @Test
    void outputClampsToInt8AndInt4Ranges() {
        RequantParams int8 = new RequantParams(new QuantizedMultiplier(1 << 30, 1), 3, OutputFormat.INT8, Activation.NONE, 0);
        assertEquals(127, Requantizer.requantize(1000, 0, int8));
        assertEquals(-128, Requantizer.requantize(-1000, 0, int8));
        assertEquals(13, Requantizer.requantize(10, 0, int8));
        RequantParams int4 = new RequantParams(new QuantizedMultiplier(1 << 30, 1), 0, OutputFormat.INT4, Activation.NONE, 0);
        assertEquals(7, Requantizer.requantize(100, 0, int4));
        assertEquals(-8, Requantizer.requantize(-100, 0, int4));
        assertEquals(-5, Requantizer.requantize(-5, 0, int4));
    }

    @Test
    void reluAndRelu6ClampAtTheZeroPointAndAtTheCodeOfSix() {
        // output scale 0.05, zero point -10: real 0 is code -10 and real 6 is code 110.
        RequantParams relu = RequantParams.of(0.05, 0.05, -10, OutputFormat.INT8, Activation.RELU);
        RequantParams relu6 = RequantParams.of(0.05, 0.05, -10, OutputFormat.INT8, Activation.RELU6);
        assertEquals(110, relu6.sixCode());
        assertEquals(-10, Requantizer.requantize(-50, 0, relu));
        assertEquals(-10, Requantizer.requantize(-50, 0, relu6));
        assertEquals(127, Requantizer.requantize(500, 0, relu));
        assertEquals(110, Requantizer.requantize(500, 0, relu6));
        assertEquals(40, Requantizer.requantize(50, 0, relu6));
    }

    @Test
    void matrixFormAppliesPerChannelParameters() {
        RequantParams a = new RequantParams(new QuantizedMultiplier(1 << 30, 1), 0, OutputFormat.INT8, Activation.NONE, 0);
        RequantParams b = new RequantParams(new QuantizedMultiplier(1 << 30, 0), 1, OutputFormat.INT8, Activation.NONE, 0);
        int[][] out = Requantizer.requantize(new int[][] {{4, 4}, {-6, 7}}, new int[] {0, 2}, new RequantParams[] {a, b});
        assertArrayEquals(new int[][] {{4, 4}, {-6, 6}}, out);
    }

    @Test
    void parametersAreValidatedWithTheirNames() {
        var e = assertThrows(IllegalArgumentException.class,
                () -> new RequantParams(new QuantizedMultiplier(1 << 30, 0), 9, OutputFormat.INT4, Activation.NONE, 0));
        assertTrue(e.getMessage().startsWith("outputZeroPoint"));
        e = assertThrows(IllegalArgumentException.class, () -> new QuantizedMultiplier(5, 0));
        assertTrue(e.getMessage().startsWith("multiplier"));
        e = assertThrows(IllegalArgumentException.class, () -> new QuantizedMultiplier(1 << 30, 32));
        assertTrue(e.getMessage().startsWith("shift must be in [-31, 31]"), e.getMessage());
        e = assertThrows(IllegalArgumentException.class, () -> new QuantizedMultiplier(1 << 30, -32));
        assertTrue(e.getMessage().startsWith("shift must be in [-31, 31]"), e.getMessage());
    }
}
