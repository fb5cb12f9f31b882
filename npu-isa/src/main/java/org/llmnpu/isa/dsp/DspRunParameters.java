package org.llmnpu.isa.dsp;

/**
 * What a {@code dsprun} hands its program besides the entry: four row bases and a length, so one program in the
 * program memory serves every token, head and layer (resident runs, no reload). A row instruction ({@link DspOp#LD},
 * {@link DspOp#ST}, {@link DspOp#LDS}, {@link DspOp#STS}, {@link DspOp#LDG}, {@link DspOp#STG}) whose {@code rc} field
 * is 16 + k (bit 4 set, k = {@code rc[1:0]}) addresses rows from {@code imm + base(k)} instead of {@code imm}; a
 * {@link DspOp#SETLEN} with {@code rc[4]} set sets the length to {@code imm + length} (32-bit, wrapping). With
 * {@code rc[4]} clear (every program before run parameters) nothing changes, whatever the parameters. Rows are taken
 * mod the buffer's rows, as every row.
 *
 * <p>In the command word: word 4 = base0 | base1 &lt;&lt; 16, word 5 = base2 | base3 &lt;&lt; 16, word 6 = length.
 * The DSP samples them when the run starts; they cost no cycle (the command's eight words are fetched anyway).
 *
 * @param base0 row base 0, 0..65535
 * @param base1 row base 1, 0..65535
 * @param base2 row base 2, 0..65535
 * @param base3 row base 3, 0..65535
 * @param length the length a parameterized {@code SETLEN} adds to its immediate (any 32-bit value)
 */
public record DspRunParameters(int base0, int base1, int base2, int base3, int length) {
  /** Row bases a run supplies. */
  public static final int BASES = 4;
  /** No parameters (all zero): a parameterized program then addresses its immediates' rows and lengths. */
  public static final DspRunParameters NONE = new DspRunParameters(0, 0, 0, 0, 0);
  /** The {@code rc} flag (bit 4) that makes a row instruction or a {@code SETLEN} read a run parameter. */
  public static final int RC_PARAMETER = 16;

  public DspRunParameters {
    check("base0", base0);
    check("base1", base1);
    check("base2", base2);
    check("base3", base3);
  }

  /** The parameters held by command words 4, 5 and 6. */
  public static DspRunParameters ofWords(long word4, long word5, long word6) {
    return new DspRunParameters((int) (word4 & 0xFFFF), (int) (word4 >>> 16 & 0xFFFF), (int) (word5 & 0xFFFF),
        (int) (word5 >>> 16 & 0xFFFF), (int) word6);
  }

  /** Row base {@code k} (0..3). */
  public int base(int k) {
    return switch (k) {
      case 0 -> base0;
      case 1 -> base1;
      case 2 -> base2;
      case 3 -> base3;
      default -> throw new IllegalArgumentException("row base must be 0..3, got " + k);
    };
  }

  /** Command word 4: bases 0 and 1. */
  public long word4() {
    return base0 | (long) base1 << 16;
  }

  /** Command word 5: bases 2 and 3. */
  public long word5() {
    return base2 | (long) base3 << 16;
  }

  /** Command word 6: the length (unsigned 32-bit). */
  public long word6() {
    return Integer.toUnsignedLong(length);
  }

  /** What {@code in}'s row or length immediate adds: its base or the length when {@code rc[4]} is set, else 0. */
  public int offsetOf(DspInstruction in) {
    if ((in.rc() & RC_PARAMETER) == 0) {
      return 0;
    }
    if (in.op() == DspOp.SETLEN) {
      return length;
    }
    return in.op().addressesRows() ? base(in.rc() & 3) : 0;
  }

  private static void check(String name, int v) {
    if (v < 0 || v > 0xFFFF) {
      throw new IllegalArgumentException("dsprun " + name + " must be a row in 0..65535, got " + v);
    }
  }
}
