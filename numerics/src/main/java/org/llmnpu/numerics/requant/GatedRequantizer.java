package org.llmnpu.numerics.requant;

/**
 * The PPM's gated requantization (the SwiGLU gate on a GEMM's output stream): an INT32 accumulator times a signed
 * INT8 gate code, requantized to INT8 with the channel's parameters, bit exact with the RTL stages:
 * <ol>
 *   <li>{@code s = saturatingAdd(acc, bias)} and {@code l = saturatingLeftShift(s, max(shift, 0))} — as
 *       {@link Requantizer};</li>
 *   <li>{@code t = saturatingRoundingDoublingHighMul(l, multiplier)} — the requantizer's multiplier stage, INT32;</li>
 *   <li>{@code u = t · gate} — exact, 41-bit signed ({@code |t| ≤ 2^31}, gate in −128..127, so {@code |u| ≤ 2^38});</li>
 *   <li>{@code v = roundingDivideByPOT(u, max(−shift, 0) + 7)} — the requantizer's right shift widened by the gate's 7
 *       fraction bits, rounded to nearest, ties away from zero;</li>
 *   <li>{@code q = clamp(v + outputZeroPoint, format min, format max)} (activation NONE).</li>
 * </ol>
 * The gate code is read as a Q0.7 fraction ({@code gate / 128}) with zero point 0, so the channel's real multiplier
 * {@code multiplier · 2^(shift − 31)} stands for {@code 128 · accScale · gateScale / outputScale}
 * ({@link #params}). Why the gate multiplies after the Q0.31 multiplier and not the accumulator: the PPM keeps its one
 * 32×31-bit multiplier per lane and adds a 32×8-bit one and a wider final shift, instead of a 41×31-bit multiplier;
 * {@code t} carries 32 bits, so the intermediate rounding adds at most {@code |gate|/256 ≤ 1/2} LSB before the final
 * rounding (result within 1 LSB of the exact {@code acc·gate·M·2^(shift−38)}, GatedRequantizerTest holds it).
 */
public final class GatedRequantizer {
    /** Fraction bits of the gate code: the code stands for {@code gate / 2^7}. */
    public static final int GATE_FRACTION_BITS = 7;

    private GatedRequantizer() {
    }

    /** One element: {@code clamp(zp + rdivpot(srdhm(sat(acc + bias) << left, M) · gate, right + 7))}. */
    public static int requantize(int acc, int gate, int bias, RequantParams p) {
        if (gate < -128 || gate > 127) {
            throw new IllegalArgumentException("gate must be an INT8 code in [-128, 127], got " + gate);
        }
        if (p.activation() != Activation.NONE) {
            throw new IllegalArgumentException("the gated PPM has no activation clamp; activation must be NONE, got "
                    + p.activation());
        }
        int shift = p.multiplier().shift();
        int s = FixedPoint.saturatingLeftShift(FixedPoint.saturatingAdd(acc, bias), Math.max(shift, 0));
        int t = FixedPoint.saturatingRoundingDoublingHighMul(s, p.multiplier().multiplier());
        long v = FixedPoint.roundingDivideByPOT((long) t * gate, Math.max(-shift, 0) + GATE_FRACTION_BITS);
        return (int) Math.max(p.clampMin(), Math.min(p.clampMax(), v + p.outputZeroPoint()));
    }

    /**
     * The channel parameters of a gated PPM whose accumulator has scale {@code accScale}, gate codes scale
     * {@code gateScale} and output scale {@code outputScale}: the multiplier of {@code 128 · accScale · gateScale /
     * outputScale}, activation NONE.
     */
    public static RequantParams params(double accScale, double gateScale, double outputScale, int outputZeroPoint,
                                       OutputFormat format) {
        if (!(gateScale > 0)) {
            throw new IllegalArgumentException("gateScale must be > 0, got " + gateScale);
        }
        return RequantParams.of(accScale * gateScale * (1 << GATE_FRACTION_BITS), outputScale, outputZeroPoint, format,
                Activation.NONE);
    }
}
