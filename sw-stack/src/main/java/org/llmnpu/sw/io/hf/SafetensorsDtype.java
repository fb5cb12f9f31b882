package org.llmnpu.sw.io.hf;

import java.nio.ByteBuffer;
import org.llmnpu.numerics.fp16.Fp16;

/**
 * The element types of a safetensors file that the toolkit converts to FP32: {@code F32} (IEEE binary32),
 * {@code F16} (IEEE binary16, converted exactly by {@link Fp16#toFloat}) and {@code BF16} (the upper 16 bits of
 * a binary32, converted exactly by a shift). Every value of these types is exactly representable in FP32, so
 * the conversion loses nothing; FP32 → F16/BF16 (only for writing test files) rounds to nearest even.
 */
public enum SafetensorsDtype {
    F32(4), F16(2), BF16(2);

    private final int bytes;

    SafetensorsDtype(int bytes) {
        this.bytes = bytes;
    }

    /** Bytes per element. */
    public int bytes() {
        return bytes;
    }

    /** The dtype named {@code name} in a header, or null if it is not one the toolkit reads. */
    static SafetensorsDtype parse(String name) {
        for (SafetensorsDtype d : values()) {
            if (d.name().equals(name)) {
                return d;
            }
        }
        return null;
    }

    /** Converts 16-bit elements ({@code F16} or {@code BF16}) to FP32, exactly. */
    void convert(short[] raw, float[] out) {
        for (int i = 0; i < raw.length; i++) {
            out[i] = this == BF16 ? Float.intBitsToFloat((raw[i] & 0xFFFF) << 16) : Fp16.toFloat(raw[i]);
        }
    }

    /** Writes {@code x} as this type (little-endian). */
    void put(ByteBuffer b, float x) {
        switch (this) {
            case F32 -> b.putFloat(x);
            case F16 -> b.putShort(Fp16.fromFloat(x));
            case BF16 -> b.putShort(toBf16(x));
        }
    }

    private static short toBf16(float x) {
        int bits = Float.floatToRawIntBits(x);
        if (Float.isNaN(x)) {
            return (short) ((bits >>> 16) | 0x40);
        }
        int rounding = 0x7FFF + ((bits >>> 16) & 1);
        return (short) ((bits + rounding) >>> 16);
    }
}
