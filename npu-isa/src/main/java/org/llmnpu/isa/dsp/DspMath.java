package org.llmnpu.isa.dsp;

/**
 * Constants and tables of the DSP's function evaluation, as FP16 codes: the values of
 * {@code org.llmnpu.numerics.vector.Fp16Math} and {@code Activations}, restated here because RTL
 * generators do not depend on the numerics module at run time (a test checks that they are
 * equal). Tables are loaded into the DSP by the host; constants are program immediates.
 */
public record DspMath(int log2e, int ln2Hi, int ln2Lo, int geluC2, int geluC3, DspTable exp, DspTable reciprocal,
    DspTable rsqrt) {

  public static final DspTable EXP = new DspTable(
      new int[] {0xB800, 0xB600, 0xB400, 0xB000, 0x0000, 0x3000, 0x3400, 0x3600},
      new int[][] {{0x38DA, 0x38D8, 0x352B}, {0x3980, 0x397D, 0x35DB}, {0x3A3B, 0x3A39, 0x36A2}, {0x3B0F, 0x3B0D, 0x3784},
          {0x3C00, 0x3BFD, 0x3842}, {0x3C88, 0x3C87, 0x38D3}, {0x3D23, 0x3D21, 0x3978}, {0x3DD2, 0x3DD0, 0x3A32}});
  public static final DspTable RECIPROCAL = new DspTable(
      new int[] {0x3C00, 0x3C80, 0x3D00, 0x3D80, 0x3E00, 0x3E80, 0x3F00, 0x3F80},
      new int[][] {{0x3C00, 0xBBF1, 0x3AB0}, {0x3B1C, 0xBA49, 0x38CA}, {0x3A66, 0xB918, 0x3717}, {0x39D1, 0xB837, 0x3565},
          {0x3955, 0xB716, 0x3433}, {0x38EC, 0xB60B, 0x32AA}, {0x3892, 0xB536, 0x3161}, {0x3844, 0xB48A, 0x3067}});
  public static final DspTable RSQRT = new DspTable(
      new int[] {0x3C00, 0x3D00, 0x3E00, 0x3F00, 0x4000, 0x4080, 0x4100, 0x4180, 0x4200, 0x4280, 0x4300, 0x4380},
      new int[][] {{0x3C00, 0xB7DE, 0x3480}, {0x3B28, 0xB5A9, 0x3170}, {0x3A88, 0xB452, 0x2F27}, {0x3A0C, 0xB2DF, 0x2CFF},
          {0x39A8, 0xB1A1, 0x2B4E}, {0x3955, 0xB0B9, 0x2988}, {0x390F, 0xB009, 0x284E}, {0x38D3, 0xAF00, 0x26DB},
          {0x389E, 0xAE25, 0x2591}, {0x3870, 0xAD74, 0x2497}, {0x3847, 0xACE1, 0x23AE}, {0x3822, 0xAC66, 0x2280}});

  /** The numerics module's constants and tables. */
  public static final DspMath DEFAULT = new DspMath(0x3DC5, 0x3980, 0x1DC8, 0x3E62, 0x29B9, EXP, RECIPROCAL, RSQRT);

  /** Table slot used by {@link DspOp#TSEG}/{@link DspOp#TCOEF}: 0 exp, 1 reciprocal, 2 rsqrt. */
  public DspTable table(int slot) {
    return switch (slot) {
      case 0 -> exp;
      case 1 -> reciprocal;
      case 2 -> rsqrt;
      default -> throw new IllegalArgumentException("table slot must be 0 (exp), 1 (reciprocal) or 2 (rsqrt), got " + slot);
    };
  }
}
