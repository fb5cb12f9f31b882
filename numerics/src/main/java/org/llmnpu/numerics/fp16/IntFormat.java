package org.llmnpu.numerics.fp16;

/** Signed two's-complement integer formats that FP16 converts to and from, with their saturation range. */
public enum IntFormat {
    INT8(-128, 127),
    INT16(-32768, 32767),
    INT32(Integer.MIN_VALUE, Integer.MAX_VALUE);

    private final int min;
    private final int max;

    IntFormat(int min, int max) {
        this.min = min;
        this.max = max;
    }

    /** Most negative representable value. */
    public int min() {
        return min;
    }

    /** Most positive representable value. */
    public int max() {
        return max;
    }

    /** Clamps a (possibly wider) integer into this format's range. */
    public int saturate(long value) {
        return (int) Math.max(min, Math.min(max, value));
    }
}
