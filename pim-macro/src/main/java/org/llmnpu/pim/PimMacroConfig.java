package org.llmnpu.pim;

import static org.llmnpu.hdl.Hw.log2Ceil;

/**
 * Parameters of the PiM macro ({@link PimMacro}).
 *
 * @param rows weight rows = K per row group (bitcell words), 1..256
 * @param cols columns = N per pass (one adder tree and one psum bank each), 1..256
 * @param precision INT8, INT4, FP8_E4M3 or FP8_E5M2
 * @param alignment FP modes: PRE or POST; INT modes: ignored (reported as POST-free "none")
 * @param inBits INT modes: input bits (signed), 1..8; FP modes: ignored (set from the format)
 * @param bitsPerCycle input bits applied per cycle (k): 1 = bit-serial, up to the serial width
 *                     (= bit-parallel); cycles per MVM = ceil(serial bits / k)
 * @param alignBits PRE: magnitude bits per aligned element, mantissa + 1 .. 16; otherwise ignored
 * @param accWidth INT modes: periphery psum width 2..32 (saturating, sticky overflow); FP modes:
 *                 ignored, the exact width {@link #accWidth()} is used
 * @param mTile psum entries per column in the periphery bank (input vectors folded per weight tile), 2..1024
 * @param icAccumDepth row groups folded in the periphery before a psum write-back (0 = all); used by
 *                     the command sequence ({@link PimMacroDriver}, {@link PimCycleModel}), not the datapath
 * @param weightBanks 1, or 2 = double-buffered bitcells: the next weight tile is written into the
 *                    shadow bank while the active one computes, and the first vector of a tile swaps them
 */
public record PimMacroConfig(int rows, int cols, PimPrecision precision, Alignment alignment, int inBits,
                             int bitsPerCycle, int alignBits, int accWidth, int mTile, int icAccumDepth,
                             int weightBanks) {

  /** Where FP exponents are aligned; {@link #NONE} for INT modes. */
  public enum Alignment { NONE, PRE, POST }

  /** {@code icAccumDepth} value meaning every row group is folded locally. */
  public static final int ALL_ROW_GROUPS = 0;
  /** Headroom of the FP accumulator above one row group's largest contribution (as numerics). */
  public static final int FP_HEADROOM_BITS = 8;

  public PimMacroConfig {
    require(rows >= 1 && rows <= 256, "rows must be in 1..256, got " + rows);
    require(cols >= 1 && cols <= 256, "cols must be in 1..256, got " + cols);
    require(precision != null, "precision must be one of " + PimPrecision.cliNames());
    if (precision.isFp()) {
      require(alignment == Alignment.PRE || alignment == Alignment.POST,
          "alignment must be pre or post for " + precision.cliName() + ", got " + alignment);
      inBits = 8;
      if (alignment == Alignment.PRE) {
        require(alignBits >= precision.mantissaBits + 1 && alignBits <= 16, "alignBits must be in "
            + (precision.mantissaBits + 1) + "..16 for " + precision.cliName() + ", got " + alignBits);
      } else {
        alignBits = precision.mantissaBits + 1;
      }
    } else {
      alignment = Alignment.NONE;
      require(inBits >= 1 && inBits <= 8, "inBits must be in 1..8, got " + inBits);
      require(accWidth >= 2 && accWidth <= 32, "accWidth must be in 2..32, got " + accWidth);
      alignBits = 0;
    }
    int serial = serialBits(precision, alignment, inBits, alignBits);
    require(bitsPerCycle >= 1 && bitsPerCycle <= serial,
        "bitsPerCycle must be in 1.." + serial + " (the serial input width), got " + bitsPerCycle);
    require(mTile >= 2 && mTile <= 1024, "mTile must be in 2..1024, got " + mTile);
    require(icAccumDepth >= 0 && icAccumDepth <= 65536,
        "icAccumDepth must be in 0..65536 (0 = all row groups), got " + icAccumDepth);
    if (precision.isFp()) {
      accWidth = fpAccWidth(precision, alignment, alignBits, rows);
    }
    require(weightBanks == 1 || weightBanks == 2, "weightBanks must be 1 or 2, got " + weightBanks);
  }

  /** A single-bank macro (weights written between tiles, no double buffering). */
  public PimMacroConfig(int rows, int cols, PimPrecision precision, Alignment alignment, int inBits,
                        int bitsPerCycle, int alignBits, int accWidth, int mTile, int icAccumDepth) {
    this(rows, cols, precision, alignment, inBits, bitsPerCycle, alignBits, accWidth, mTile, icAccumDepth, 1);
  }

  /** This configuration with {@code banks} weight banks. */
  public PimMacroConfig withWeightBanks(int banks) {
    return new PimMacroConfig(rows, cols, precision, alignment, inBits, bitsPerCycle, alignBits, accWidth, mTile,
        icAccumDepth, banks);
  }

  public boolean doubleBuffered() {
    return weightBanks == 2;
  }

  /** INT8 weights, INT8 inputs bit-serial, 64×64, 32-bit psums, mTile 16, all groups folded. */
  public static PimMacroConfig int8(int rows, int cols) {
    return new PimMacroConfig(rows, cols, PimPrecision.INT8, Alignment.NONE, 8, 1, 0, 32, 16, ALL_ROW_GROUPS);
  }

  static void require(boolean ok, String message) {
    if (!ok) {
      throw new IllegalArgumentException(message);
    }
  }

  private static int serialBits(PimPrecision p, Alignment a, int inBits, int alignBits) {
    if (!p.isFp()) {
      return inBits;
    }
    return a == Alignment.PRE ? alignBits + 1 : p.mantissaBits + 1;
  }

  private static int fpAccWidth(PimPrecision p, Alignment a, int alignBits, int rows) {
    int operand = a == Alignment.PRE ? alignBits : p.mantissaBits + 1;
    return 2 * operand + log2Ceil(rows) + 2 * p.maxBiasedExponent - 2 + FP_HEADROOM_BITS + 1;
  }

  /** Input bits streamed per MVM: inBits (INT), alignBits + 1 (PRE, signed), mantissa + 1 (POST, unsigned). */
  public int serialBits() {
    return serialBits(precision, alignment, inBits, alignBits);
  }

  /** Cycles the array spends on one input vector: {@code ceil(serialBits / bitsPerCycle)}. */
  public int cyclesPerMvm() {
    return (serialBits() + bitsPerCycle - 1) / bitsPerCycle;
  }

  /** Bits of one bitcell word slot (one weight): the code width, or alignBits + 1 for PRE. */
  public int cellBits() {
    return alignment == Alignment.PRE ? alignBits + 1 : precision.codeBits;
  }

  /** Bits of one input element on the input bus: inBits (INT) or 8 (FP8 codes). */
  public int inputBits() {
    return precision.isFp() ? 8 : inBits;
  }

  /** Largest exponent shift of a product (POST) or a group sum (PRE). */
  public int shiftMax() {
    return 2 * precision.maxBiasedExponent - 2;
  }

  /** Cycles to write one weight tile: one per row, plus the column-exponent word for PRE. */
  public int tileWriteCycles() {
    return rows + (alignment == Alignment.PRE ? 1 : 0);
  }

  /** Whether every row group is folded locally (no psum write-backs). */
  public boolean foldsAllRowGroups() {
    return icAccumDepth == ALL_ROW_GROUPS;
  }

  /** Short parameter tag for module names: {@code 64x64_int8_i8_k1_a32_m16}. */
  public String tag() {
    String mode = precision.isFp()
        ? precision.cliName() + "_" + alignment.name().toLowerCase(java.util.Locale.ROOT)
          + (alignment == Alignment.PRE ? alignBits : "")
        : precision.cliName() + "_i" + inBits;
    return rows + "x" + cols + "_" + mode + "_k" + bitsPerCycle + "_a" + accWidth + "_m" + mTile
        + (weightBanks == 2 ? "_db" : "");
  }
}
