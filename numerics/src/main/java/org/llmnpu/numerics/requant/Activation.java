package org.llmnpu.numerics.requant;

/**
 * Activations the PPM applies in the quantized domain, as a narrowing of the clamp range
 * (TFLite's fused-activation convention): RELU clamps below at the output zero point, RELU6
 * additionally above at the code of real 6. The programmable PPU is applied after the requantizer
 * by {@code org.llmnpu.numerics.ppu}, so it is not one of these.
 */
public enum Activation {
    NONE,
    RELU,
    RELU6
}
