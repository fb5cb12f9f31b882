package org.llmnpu.rtl.ppm;

import static org.llmnpu.hdl.Hw.bitsToHold;
import static org.llmnpu.hdl.Hw.log2Ceil;

import java.util.List;

/**
 * Parameters of the {@link Ppm}: lanes, output width, activation and the PPU table shape.
 * The table shape matches {@code org.llmnpu.numerics.ppu.PpuFormat}, so any table of that
 * format loads into the C-LUT.
 *
 * @param cols lanes (output channels handled per cycle), 1..64 [8]
 * @param outBits output code width, 8 or 4 [8]; {@code ppu} needs 8 (the PPU reads and writes INT8 codes)
 * @param activation NONE, RELU, RELU6 or PPU [PPU]
 * @param segments PPU segments, 1..64 [16] (ignored unless activation is PPU)
 * @param degree PPU polynomial degree, 0..4 [2] (ignored unless PPU)
 * @param coeffBits PPU signed coefficient width, 8..24 [16] (ignored unless PPU)
 * @param requantStages register stages of the requantizer, 6, 7 or 8 [8]: the 32×31 multiply is
 *     split into 2, 4 or 8 registered partial products of 16-, 8- or 4-bit multiplier slices,
 *     summed pairwise one tree level per stage (see {@link RequantUnit}); 8 meets the NPU's target
 *     clock ({@code org.llmnpu.rtl.TargetClock}) at 180 nm, fewer stages cost less area
 * @param hornerStages register stages per PPU Horner step, 3, 4 or 5 [5] (ignored unless PPU):
 *     3 = product, rounding shift, coefficient add; 4 also splits the rounding shift into a floor
 *     shift and a rounding increment (and so the output shift); 5 also splits the product into two
 *     partial products and their sum (see {@link PpuUnit}); 5 meets the target clock
 */
public record PpmConfig(int cols, int outBits, Activation activation, int segments, int degree, int coeffBits,
    int requantStages, int hornerStages) {

  /** What the PPM applies after requantization. */
  public enum Activation {
    /** Clamp to the output format's range. */
    NONE,
    /** Clamp below at the channel's zero point. */
    RELU,
    /** Clamp below at the zero point and above at the channel's six code. */
    RELU6,
    /** Requantize to INT8 (range clamp only), then evaluate the programmable PPU table. */
    PPU
  }

  /** Allowed {@link #requantStages()}; the last is the default. */
  public static final List<Integer> REQUANT_STAGE_CHOICES = List.of(6, 7, 8);

  /** Allowed {@link #hornerStages()}; the last is the default. */
  public static final List<Integer> HORNER_STAGE_CHOICES = List.of(3, 4, 5);

  /** Default {@link #requantStages()}: the depth that meets the NPU's target clock. */
  public static final int DEFAULT_REQUANT_STAGES = 8;

  /** Default {@link #hornerStages()}: the depth that meets the NPU's target clock. */
  public static final int DEFAULT_HORNER_STAGES = 5;

  /** Width of a shift amount in the datapath: 0..31. */
  public static final int SHIFT_BITS = 5;

  /** Width of the per-channel multiplier register: a Q0.31 value in [0, 2^31 − 1]. */
  public static final int MULTIPLIER_BITS = 31;

  /** Width of the per-channel shift register: −31..31 (positive = left; −32 is not used), as {@code QuantizedMultiplier}. */
  public static final int CHANNEL_SHIFT_BITS = 6;

  /** The configuration with the default stage depths ({@link #DEFAULT_REQUANT_STAGES}, {@link #DEFAULT_HORNER_STAGES}). */
  public PpmConfig(int cols, int outBits, Activation activation, int segments, int degree, int coeffBits) {
    this(cols, outBits, activation, segments, degree, coeffBits, DEFAULT_REQUANT_STAGES, DEFAULT_HORNER_STAGES);
  }

  public PpmConfig {
    if (cols < 1 || cols > 64) {
      throw new IllegalArgumentException("cols must be in 1..64, got " + cols);
    }
    if (outBits != 8 && outBits != 4) {
      throw new IllegalArgumentException("outBits must be 8 or 4, got " + outBits);
    }
    if (activation == null) {
      throw new IllegalArgumentException("activation must be one of none, relu, relu6, ppu, got null");
    }
    if (activation == Activation.PPU && outBits != 8) {
      throw new IllegalArgumentException("outBits must be 8 with activation ppu (the PPU reads and writes INT8 codes), got "
          + outBits);
    }
    if (segments < 1 || segments > 64) {
      throw new IllegalArgumentException("segments must be in 1..64, got " + segments);
    }
    if (degree < 0 || degree > 4) {
      throw new IllegalArgumentException("degree must be in 0..4, got " + degree);
    }
    if (coeffBits < 8 || coeffBits > 24) {
      throw new IllegalArgumentException("coeffBits must be in 8..24, got " + coeffBits);
    }
    if (!REQUANT_STAGE_CHOICES.contains(requantStages)) {
      throw new IllegalArgumentException("requantStages must be one of 6, 7, 8, got " + requantStages);
    }
    if (!HORNER_STAGE_CHOICES.contains(hornerStages)) {
      throw new IllegalArgumentException("hornerStages must be one of 3, 4, 5, got " + hornerStages);
    }
    if (activation == Activation.PPU && segments == 1 && degree == 0) {
      throw new IllegalArgumentException("segments must be >= 2 when degree is 0 (one constant segment ignores its input), got "
          + segments);
    }
  }

  /** The NPU-SPEC defaults with the given lanes, output width and activation (16 segments, degree 2, 16-bit coefficients). */
  public static PpmConfig of(int cols, int outBits, Activation activation) {
    return new PpmConfig(cols, outBits, activation, 16, 2, 16);
  }

  /** True when the PPU and its C-LUT are built. */
  public boolean hasPpu() {
    return activation == Activation.PPU;
  }

  /** The same configuration with other stage depths. */
  public PpmConfig withStages(int requantStages, int hornerStages) {
    return new PpmConfig(cols, outBits, activation, segments, degree, coeffBits, requantStages, hornerStages);
  }

  /**
   * Cycles from an element's {@code inValid} to its {@code outValid}:
   * {@code requantStages} without the PPU, {@code requantStages + ppuStages()} with it. At the
   * default stages: 8 without the PPU, 8 + 2 + 5·2 + 3 = 23 with the default degree-2 PPU.
   */
  public int latency() {
    return requantStages + (hasPpu() ? ppuStages() : 0);
  }

  /**
   * Cycles of the PPU: segment search, offset and coefficient select, {@code hornerStages} per
   * Horner step, then the output stages ({@link #outputStages()}):
   * {@code 2 + hornerStages·degree + outputStages()}.
   */
  public int ppuStages() {
    return 2 + hornerStages * degree + outputStages();
  }

  /** Output stages of the PPU: rounding shift and clamp (2), or floor shift, rounding increment and clamp (3) when {@code hornerStages ≥ 4}. */
  public int outputStages() {
    return hornerStages >= 4 ? 3 : 2;
  }

  /** Width of {@code cfgLane}. */
  public int laneBits() {
    return Math.max(1, log2Ceil(cols));
  }

  /** Width of a segment index. */
  public int segmentBits() {
    return Math.max(1, bitsToHold(segments - 1));
  }

  // C-LUT address map: boundaries, then coefficients segment-major, then fracBits.

  /** Address of boundary {@code i} (0..segments−2): an INT8 code in the low 8 bits of {@code lutData}. */
  public int lutAddressOfBoundary(int i) {
    if (i < 0 || i > segments - 2) {
      throw new IllegalArgumentException("boundary index must be in 0.." + (segments - 2) + ", got " + i);
    }
    return i;
  }

  /** Address of the coefficient of t^k in segment s: a signed {@code coeffBits} value in {@code lutData}. */
  public int lutAddressOfCoefficient(int segment, int k) {
    if (segment < 0 || segment >= segments || k < 0 || k > degree) {
      throw new IllegalArgumentException("coefficient (" + segment + ", " + k + ") outside " + segments
          + " segments, degree " + degree);
    }
    return segments - 1 + segment * (degree + 1) + k;
  }

  /** Address of fracBits[k] (0..degree): an unsigned value 0..30 in the low 5 bits of {@code lutData}. */
  public int lutAddressOfFracBits(int k) {
    if (k < 0 || k > degree) {
      throw new IllegalArgumentException("fracBits index must be in 0.." + degree + ", got " + k);
    }
    return segments - 1 + segments * (degree + 1) + k;
  }

  /** Number of C-LUT entries. */
  public int lutEntries() {
    return segments - 1 + (segments + 1) * (degree + 1);
  }

  /** Width of {@code lutAddress}. */
  public int lutAddressBits() {
    return Math.max(1, log2Ceil(lutEntries()));
  }

  /**
   * A stable module name encoding the parameters, e.g. {@code Ppm_c8_o8_ppu_s16_d2_w16} at the
   * default stages, {@code Ppm_c8_o8_ppu_s16_d2_w16_r7_h3} otherwise.
   */
  public String moduleName() {
    String base = "Ppm_c" + cols + "_o" + outBits + "_" + activation.name().toLowerCase();
    String name = hasPpu() ? base + "_s" + segments + "_d" + degree + "_w" + coeffBits : base;
    boolean defaultStages = requantStages == DEFAULT_REQUANT_STAGES
        && (!hasPpu() || hornerStages == DEFAULT_HORNER_STAGES);
    return defaultStages ? name : name + "_r" + requantStages + (hasPpu() ? "_h" + hornerStages : "");
  }
}
