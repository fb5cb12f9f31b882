package org.llmnpu.rtl.npu;

/**
 * The NPU's post-processing module: requantization of INT32 results to INT8 codes, always built ({@code rows/4}
 * lanes, {@link NpuConfig#ppm()}), and optionally the PPU after it.
 *
 * @param ppu {@code ppu}: the programmable C-LUT nonlinearity after requantization
 */
public record NpuPpmConfig(boolean ppu) {
}
