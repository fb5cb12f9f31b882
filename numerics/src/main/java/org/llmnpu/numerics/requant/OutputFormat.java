package org.llmnpu.numerics.requant;

/** Integer output of the PPM requantizer and its clamp range. */
public enum OutputFormat {
    INT8(-128, 127),
    INT4(-8, 7);

    private final int min;
    private final int max;

    OutputFormat(int min, int max) {
        this.min = min;
        this.max = max;
    }

    public int min() {
        return min;
    }

    public int max() {
        return max;
    }
}
