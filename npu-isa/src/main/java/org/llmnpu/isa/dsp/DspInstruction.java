package org.llmnpu.isa.dsp;

/**
 * One Vector DSP instruction and its 64-bit encoding:
 * {@code [63:58] op, [57:53] rd, [52:48] ra, [47:43] rb, [42:38] rc, [37] mask, [36:33] aux,
 * [32] 0, [31:0] imm}. See {@link DspOp} for the semantics.
 *
 * @param op operation
 * @param rd destination register 0..31
 * @param ra first source register 0..31
 * @param rb second source register 0..31
 * @param rc third source register 0..31 ({@link DspOp#SELNEG}, FMA16, FMA32); in a row instruction and
 *           {@link DspOp#SETLEN}: 16 + k reads run parameter k ({@link DspRunParameters}), 0 none
 * @param masked write only lanes whose element index is below the set length
 * @param aux 4-bit sub-operation (integer format, table, coefficient, fix kind, exponent format)
 * @param imm 32-bit immediate (constant, buffer row, loop count and body)
 */
public record DspInstruction(DspOp op, int rd, int ra, int rb, int rc, boolean masked, int aux, int imm) {
  /** Registers per lane. */
  public static final int REGISTERS = 32;

  public DspInstruction {
    checkRegister("rd", rd);
    checkRegister("ra", ra);
    checkRegister("rb", rb);
    checkRegister("rc", rc);
    if (aux < 0 || aux > 15) {
      throw new IllegalArgumentException("aux must be in 0..15, got " + aux);
    }
  }

  private static void checkRegister(String name, int r) {
    if (r < 0 || r >= REGISTERS) {
      throw new IllegalArgumentException(name + " must be a register 0.." + (REGISTERS - 1) + ", got " + r);
    }
  }

  /** The 64-bit instruction word. */
  public long encode() {
    return ((long) op.code() << 58) | ((long) rd << 53) | ((long) ra << 48) | ((long) rb << 43) | ((long) rc << 38)
        | ((masked ? 1L : 0L) << 37) | ((long) aux << 33) | (imm & 0xFFFFFFFFL);
  }

  /**
   * The instruction a 64-bit word holds. A word whose opcode is not defined decodes as {@link DspOp#NOP}
   * (the DSP executes it as one).
   */
  public static DspInstruction decode(long word) {
    int code = (int) (word >>> 58);
    DspOp op = DspOp.fromCode(code).orElse(DspOp.NOP);
    return new DspInstruction(op, (int) (word >>> 53) & 31, (int) (word >>> 48) & 31, (int) (word >>> 43) & 31,
        (int) (word >>> 38) & 31, ((word >>> 37) & 1) != 0, (int) (word >>> 33) & 15, (int) word);
  }

  /**
   * The hash of the instruction word ({@link #encode}, one-to-one on valid instructions, so equal instructions hash
   * equally). The record's own hash would take {@code op}'s identity hash, which Java 17 does not cache: the
   * lowering's cost model keys maps by whole programs ({@code CommandCosts}, {@code DspChain}): a quarter of JFR's
   * samples of {@code SeedTrendsTest} were there. The word's hash is also the same in every JVM.
   */
  @Override
  public int hashCode() {
    return Long.hashCode(encode());
  }

  @Override
  public String toString() {
    return String.format("%-7s rd=r%d ra=r%d rb=r%d rc=r%d%s aux=%d imm=0x%08x", op, rd, ra, rb, rc,
        masked ? " masked" : "", aux, imm);
  }
}
