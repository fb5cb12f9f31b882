package org.llmnpu.numerics.quant;

import java.util.Locale;

/**
 * How a weight matrix [out][in] is quantized: bit width, symmetric or asymmetric, and the
 * granularity of the scales — one scale per output channel ({@code groupSize == 0}) or one
 * per group of {@code groupSize} consecutive input elements of a channel.
 *
 * <p>Symmetric: {@code scale = max|w| / (2^(b-1) - 1)}, codes in {@code [-2^(b-1), 2^(b-1)-1]},
 * zero point 0. Asymmetric: {@code scale = (max - min) / (2^b - 1)}, integer zero point
 * {@code zp = round(-min / scale)}, codes in {@code [0, 2^b - 1]}, dequantized {@code (q - zp) * scale};
 * an integer zero point keeps an exact 0.0 exactly representable, so pruned zeros stay zero.
 */
public record QuantScheme(int bits, boolean symmetric, int groupSize) {

    public QuantScheme {
        if (bits < 2 || bits > 8) {
            throw new IllegalArgumentException("bits must be in 2..8, got " + bits);
        }
        if (groupSize < 0) {
            throw new IllegalArgumentException("groupSize must be 0 (per-channel) or >= 1, got " + groupSize);
        }
    }

    public static QuantScheme perChannel(int bits, boolean symmetric) {
        return new QuantScheme(bits, symmetric, 0);
    }

    public static QuantScheme perGroup(int bits, boolean symmetric, int groupSize) {
        if (groupSize < 1) {
            throw new IllegalArgumentException("groupSize must be >= 1 for per-group quantization, got " + groupSize);
        }
        return new QuantScheme(bits, symmetric, groupSize);
    }

    /**
     * Parses {@code int8}, {@code int4-g32}, {@code int4-g32-asym}, {@code int8-asym}: bits, an optional
     * group size (absent = per-channel) and an optional {@code -asym} (default symmetric).
     */
    public static QuantScheme parse(String text) {
        String s = text.trim().toLowerCase(Locale.ROOT);
        String[] parts = s.split("-");
        if (!parts[0].startsWith("int")) {
            throw new IllegalArgumentException("quantization must look like int8, int4-g32 or int4-g32-asym, got '" + text + "'");
        }
        try {
            int bits = Integer.parseInt(parts[0].substring(3));
            int group = 0;
            boolean symmetric = true;
            for (int i = 1; i < parts.length; i++) {
                if (parts[i].startsWith("g")) {
                    group = Integer.parseInt(parts[i].substring(1));
                    if (group < 1) {
                        throw new IllegalArgumentException("group size must be >= 1, got " + group);
                    }
                } else if (parts[i].equals("asym")) {
                    symmetric = false;
                } else if (parts[i].equals("sym")) {
                    symmetric = true;
                } else {
                    throw new IllegalArgumentException("unknown quantization suffix '" + parts[i] + "' in '" + text
                            + "' (allowed: gN, sym, asym)");
                }
            }
            return new QuantScheme(bits, symmetric, group);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("quantization must look like int8, int4-g32 or int4-g32-asym, got '" + text + "'");
        }
    }

    public int minCode() {
        return symmetric ? -(1 << (bits - 1)) : 0;
    }

    public int maxCode() {
        return symmetric ? (1 << (bits - 1)) - 1 : (1 << bits) - 1;
    }

    /** Elements sharing one scale in a row of {@code cols} elements. */
    public int effectiveGroup(int cols) {
        return groupSize == 0 ? cols : groupSize;
    }

    @Override
    public String toString() {
        return "int" + bits + (groupSize == 0 ? "" : "-g" + groupSize) + (symmetric ? "" : "-asym");
    }
}
