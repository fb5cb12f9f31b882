package org.llmnpu.rtl.npu;

/**
 * The NPU's post-processing module: requantization of INT32 results to INT8 codes, always built ({@code rows/4}
 * lanes, or {@code rows} with {@code wide}; {@link NpuConfig#ppm()}), and optionally the PPU after it and the gate operand.
 *
 * @param ppu  {@code ppu}: the programmable C-LUT nonlinearity after requantization
 * @param gate {@code ppmGate}: the gated requantizer lanes ({@code LinePpm(…, gated)}) and the drain's gate read, so
 *             that {@code gemm ppm=1 gate=1} runs ({@code MachineParams.ppmGate}); the gated lane is built beside the
 *             PPU, so it needs {@code ppu}
 * @param wide {@code ppmWide}: {@code rows} lanes instead of {@code rows/4} ({@code MachineParams.ppmWide}): the
 *             fused drain of a {@code gemm ppm=1} feeds a whole N tile of a row a cycle ({@link NpuBackEnd})
 */
public record NpuPpmConfig(boolean ppu, boolean gate, boolean wide) {

  public NpuPpmConfig {
    if (gate && !ppu) {
      throw new IllegalArgumentException("ppmGate=true needs ppu=true (the gated PPM lane is built beside the PPU);"
          + " allowed: ppmGate=false, or ppmGate=true with ppu=true");
    }
  }

  /** The PPM of {@code rows/4} lanes. */
  public NpuPpmConfig(boolean ppu, boolean gate) {
    this(ppu, gate, false);
  }

  /** The PPM without the gate operand. */
  public NpuPpmConfig(boolean ppu) {
    this(ppu, false);
  }
}
