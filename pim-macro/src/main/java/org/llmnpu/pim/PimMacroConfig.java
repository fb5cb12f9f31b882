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
 * @param input FP modes: the input element type ({@link PimInput}: FP8, BF16, MXFP8, MXINT8); MX
 *              needs {@code rows} a multiple of 32 or a divisor of 32 (row groups hold whole blocks
 *              or lie in one); INT modes: ignored (FP8)
 * @param stages pipeline registers between a compute cycle and its shift-and-add, 0..{@value #MAX_STAGES}:
 *               1 latches each column's row inputs (the bitcells are read in the next cycle), 2 and 3 also
 *               cut the column adder tree ({@link PimColumn}); every vector's periphery cycle, and so the
 *               end of a GEMM, comes {@code stages} cycles later ({@link PimCycleModel})
 */
public record PimMacroConfig(int rows, int cols, PimPrecision precision, Alignment alignment, int inBits,
                             int bitsPerCycle, int alignBits, int accWidth, int mTile, int icAccumDepth,
                             int weightBanks, PimInput input, int stages) {

  /** Where FP exponents are aligned; {@link #NONE} for INT modes. */
  public enum Alignment { NONE, PRE, POST }

  /** {@code icAccumDepth} value meaning every row group is folded locally. */
  public static final int ALL_ROW_GROUPS = 0;
  /** Headroom of the FP accumulator above one row group's largest contribution (as numerics). */
  public static final int FP_HEADROOM_BITS = 8;
  /** Most pipeline registers a column takes ({@code stages}). */
  public static final int MAX_STAGES = 3;
  /**
   * The default {@code stages}: the depth at which the default 64×64 INT8 macro meets the toolkit's 5.75 ns
   * target clock at 180 nm (see the README's timing table).
   */
  public static final int DEFAULT_STAGES = 2;

  public PimMacroConfig {
    require(rows >= 1 && rows <= 256, "rows must be in 1..256, got " + rows);
    require(cols >= 1 && cols <= 256, "cols must be in 1..256, got " + cols);
    require(precision != null, "precision must be one of " + PimPrecision.cliNames());
    if (precision.isFp()) {
      require(alignment == Alignment.PRE || alignment == Alignment.POST,
          "alignment must be pre or post for " + precision.cliName() + ", got " + alignment);
      inBits = 8;
      require(input != null, "input must be one of " + PimInput.cliNames());
      int minAlign = Math.max(precision.mantissaBits, input.mantissaBits(precision)) + 1;
      if (alignment == Alignment.PRE) {
        require(alignBits >= minAlign && alignBits <= 16, "alignBits must be in "
            + minAlign + "..16 for " + precision.cliName() + " weights and " + input.cliName() + " inputs, got "
            + alignBits);
      } else {
        alignBits = precision.mantissaBits + 1;
      }
    } else {
      alignment = Alignment.NONE;
      input = PimInput.FP8;
      require(inBits >= 1 && inBits <= 8, "inBits must be in 1..8, got " + inBits);
      require(accWidth >= 2 && accWidth <= 32, "accWidth must be in 2..32, got " + accWidth);
      alignBits = 0;
    }
    if (input.blockScaled()) {
      require(rows % 32 == 0 || 32 % rows == 0, "rows must be a multiple of 32 or divide 32 for "
          + input.cliName() + " inputs (MX blocks of 32), got " + rows);
    }
    int serial = serialBits(precision, alignment, inBits, alignBits, input);
    require(bitsPerCycle >= 1 && bitsPerCycle <= serial,
        "bitsPerCycle must be in 1.." + serial + " (the serial input width), got " + bitsPerCycle);
    require(mTile >= 2 && mTile <= 1024, "mTile must be in 2..1024, got " + mTile);
    require(icAccumDepth >= 0 && icAccumDepth <= 65536,
        "icAccumDepth must be in 0..65536 (0 = all row groups), got " + icAccumDepth);
    if (precision.isFp()) {
      accWidth = fpAccWidth(precision, alignment, alignBits, rows, input);
    }
    require(weightBanks == 1 || weightBanks == 2, "weightBanks must be 1 or 2, got " + weightBanks);
    require(stages >= 0 && stages <= MAX_STAGES, "stages must be in 0.." + MAX_STAGES + ", got " + stages);
  }

  /** {@link #DEFAULT_STAGES} pipeline registers. */
  public PimMacroConfig(int rows, int cols, PimPrecision precision, Alignment alignment, int inBits,
                        int bitsPerCycle, int alignBits, int accWidth, int mTile, int icAccumDepth, int weightBanks,
                        PimInput input) {
    this(rows, cols, precision, alignment, inBits, bitsPerCycle, alignBits, accWidth, mTile, icAccumDepth,
        weightBanks, input, DEFAULT_STAGES);
  }

  /** A single-bank macro (weights written between tiles, no double buffering). */
  public PimMacroConfig(int rows, int cols, PimPrecision precision, Alignment alignment, int inBits,
                        int bitsPerCycle, int alignBits, int accWidth, int mTile, int icAccumDepth) {
    this(rows, cols, precision, alignment, inBits, bitsPerCycle, alignBits, accWidth, mTile, icAccumDepth, 1);
  }

  /** FP8 inputs of the weights' format (INT modes: no input type). */
  public PimMacroConfig(int rows, int cols, PimPrecision precision, Alignment alignment, int inBits,
                        int bitsPerCycle, int alignBits, int accWidth, int mTile, int icAccumDepth, int weightBanks) {
    this(rows, cols, precision, alignment, inBits, bitsPerCycle, alignBits, accWidth, mTile, icAccumDepth,
        weightBanks, PimInput.FP8);
  }

  /** This configuration with FP inputs of type {@code in}. */
  public PimMacroConfig withInput(PimInput in) {
    return new PimMacroConfig(rows, cols, precision, alignment, inBits, bitsPerCycle, alignBits, accWidth, mTile,
        icAccumDepth, weightBanks, in, stages);
  }

  /** This configuration with {@code banks} weight banks. */
  public PimMacroConfig withWeightBanks(int banks) {
    return new PimMacroConfig(rows, cols, precision, alignment, inBits, bitsPerCycle, alignBits, accWidth, mTile,
        icAccumDepth, banks, input, stages);
  }

  /** This configuration with {@code n} pipeline registers. */
  public PimMacroConfig withStages(int n) {
    return new PimMacroConfig(rows, cols, precision, alignment, inBits, bitsPerCycle, alignBits, accWidth, mTile,
        icAccumDepth, weightBanks, input, n);
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

  private static int serialBits(PimPrecision p, Alignment a, int inBits, int alignBits, PimInput in) {
    if (!p.isFp()) {
      return inBits;
    }
    return a == Alignment.PRE ? alignBits + 1 : in.mantissaBits(p) + 1;
  }

  private static int fpAccWidth(PimPrecision p, Alignment a, int alignBits, int rows, PimInput in) {
    int operands = a == Alignment.PRE ? 2 * alignBits : p.mantissaBits + 1 + in.mantissaBits(p) + 1;
    return operands + log2Ceil(rows) + in.maxBiasedExponent(p) + p.maxBiasedExponent - 2 + FP_HEADROOM_BITS + 1;
  }

  /**
   * Input bits streamed per MVM: inBits (INT), alignBits + 1 (PRE, signed), input mantissa + 1
   * (POST, unsigned significand).
   */
  public int serialBits() {
    return serialBits(precision, alignment, inBits, alignBits, input);
  }

  /** Input significand bits minus one (FP modes). */
  public int inputMantissaBits() {
    return input.mantissaBits(precision);
  }

  /** Bits of the input biased-exponent field (MX: the scale folded in). */
  public int inputExponentBits() {
    return log2Ceil(input.maxBiasedExponent(precision) + 1);
  }

  /** Bits of an exponent-sum shift amount ({@code ebX + ebW}, before the −2). */
  public int shiftBits() {
    return log2Ceil(input.maxBiasedExponent(precision) + precision.maxBiasedExponent + 1);
  }

  /** E8M0 scales per input vector on {@code inScale} (MX: one per 32 rows, at least one; else 0). */
  public int scaleBlocks() {
    return input.blockScaled() ? Math.max(1, rows / 32) : 0;
  }

  /** Cycles the array spends on one input vector: {@code ceil(serialBits / bitsPerCycle)}. */
  public int cyclesPerMvm() {
    return (serialBits() + bitsPerCycle - 1) / bitsPerCycle;
  }

  /** Bits of one bitcell word slot (one weight): the code width, or alignBits + 1 for PRE. */
  public int cellBits() {
    return alignment == Alignment.PRE ? alignBits + 1 : precision.codeBits;
  }

  /** Bits of one input element on the input bus: inBits (INT), 16 (BF16) or 8 (FP8 and MX elements). */
  public int inputBits() {
    return precision.isFp() ? input.codeBits() : inBits;
  }

  /** Largest exponent shift of a product (POST) or a group sum (PRE). */
  public int shiftMax() {
    return input.maxBiasedExponent(precision) + precision.maxBiasedExponent - 2;
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
          + (alignment == Alignment.PRE ? alignBits : "") + (input == PimInput.FP8 ? "" : "_" + input.cliName())
        : precision.cliName() + "_i" + inBits;
    return rows + "x" + cols + "_" + mode + "_k" + bitsPerCycle + "_a" + accWidth + "_m" + mTile
        + (weightBanks == 2 ? "_db" : "") + (stages == 0 ? "" : "_s" + stages);
  }
}
