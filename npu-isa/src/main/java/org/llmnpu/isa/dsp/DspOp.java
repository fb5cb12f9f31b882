package org.llmnpu.isa.dsp;

/**
 * The Vector DSP instruction set. Every instruction issues in one cycle and applies to all
 * lanes at once; lane {@code l} holds 32 registers of 32 bits ({@code r0..r31}). FP16 values
 * live in the low 16 bits of a register (an FP16 result clears the high half); FP32 values and
 * two's-complement integers use all 32 bits. "Row" {@code i} of the local buffer holds
 * elements {@code i·lanes .. i·lanes + lanes − 1}, element {@code i·lanes + l} in lane l.
 *
 * <p>{@code idx} is the iteration of the enclosing {@link #LOOP} (0 outside loops). An
 * instruction with the mask bit writes only lanes whose element {@code idx·lanes + l} is below
 * the length set by {@link #SETLEN} (0 at start): that is how reductions and stores handle a ragged last row.
 * Golden arithmetic is {@code org.llmnpu.numerics.fp16.Fp16} and Java {@code float}; every NaN
 * result is canonical (0x7E00 in FP16, 0x7FC00000 in FP32).
 */
public enum DspOp {
  /** No operation. */
  NOP(0),
  /** Stop; the DSP raises {@code done}. */
  HALT(1),
  /** Repeat the next {@code imm[31:16]} instructions {@code imm[15:0]} times with idx = 0, 1, …; no nesting, no overhead per iteration. */
  LOOP(2),
  /**
   * Set the element count used by masked instructions to {@code imm} (plus the run's length with {@code rc[4]} set,
   * {@link DspRunParameters}).
   */
  SETLEN(3),
  /** {@code rd = imm} in every lane. */
  LI(4),
  /**
   * {@code rd = buffer[row imm + idx]} (FP16, zero-extended). In every row instruction (LD, ST, LDS, STS, LDG, STG)
   * {@code imm} is the run's row base {@code rc[1:0]} plus {@code imm} when {@code rc[4]} is set
   * ({@link DspRunParameters}).
   */
  LD(5),
  /** {@code buffer[row imm + idx] = ra[15:0]}. */
  ST(6),
  /** FP16 {@code rd = ra + rb}. */
  ADD16(7),
  /** FP16 {@code rd = ra − rb}. */
  SUB16(8),
  /** FP16 {@code rd = ra · rb}. */
  MUL16(9),
  /** FP16 minimumNumber. */
  MIN16(10),
  /** FP16 maximumNumber (a NaN operand is ignored). */
  MAX16(11),
  /** FP32 {@code rd = ra + rb}. */
  ADD32(12),
  /** FP32 {@code rd = ra − rb}. */
  SUB32(13),
  /** FP32 {@code rd = ra · rb}. */
  MUL32(14),
  /** FP16 ra → FP32, exact. */
  WIDEN(15),
  /** FP32 ra · 2^rb (rb a signed integer) rounded once to FP16. */
  NARROW(16),
  /** FP16 ra · 2^rb rounded once to FP16. */
  SCALB16(17),
  /** {@code saturate(rint(ra · rb))} of FP16 ra and FP16 scale rb to the integer format aux (0 INT8, 1 INT16, 2 INT32). */
  TOINT(18),
  /** Signed int32 ra times FP16 scale rb, rounded once to FP16. */
  FROMINT(19),
  /** Integer {@code rd = ra + rb} (32-bit, wrapping). */
  IADD(20),
  /** Integer {@code rd = ra − rb}. */
  ISUB(21),
  /** Integer {@code rd = floor(ra / 2)} (arithmetic shift right). */
  IHALF(22),
  /** floor(log2 |ra|) as an integer: aux 0 for FP16, aux 1 for FP32 (subnormals exact; 0 for ±0, ±∞, NaN). */
  EXPO(23),
  /** Segment of FP16 ra in table aux: the last segment whose start ≤ ra (0 if none). */
  TSEG(24),
  /** Start (FP16) of segment ra of table aux. */
  TSTART(25),
  /** Coefficient k = aux[3:2] of segment ra of table aux[1:0]. */
  TCOEF(26),
  /** Special-case override of a function of FP16 x = ra with computed value rb; aux selects the {@link DspFix}. */
  FIX(27),
  /** {@code rd = rc[15] ? ra : rb} (select on an FP16 sign bit). */
  SELNEG(28),
  /** FP16 {@code rd = −|ra|} (sets the sign bit). */
  NEGABS(29),
  /** FP16 {@code rd = |ra|} (clears the sign bit). */
  ABS(30),
  /** {@code rd = ra} of lane {@code l + imm} (imm a power of two), or 0 if that lane does not exist or imm is not a power of two (the reduction tree step). */
  LSHIFT(31),
  /** {@code rd = ra} of lane 0 in every lane. */
  BCAST(32),
  /** FP16 {@code rd = ra < rb ? 1 : 0} (IEEE: false with a NaN). */
  LT16(33),
  /** FP16 {@code rd = ra == rb ? 1 : 0} (IEEE: false with a NaN, +0 == −0). */
  EQ16(34),
  /** FP16 fused multiply-add {@code rd = ra · rb + rc}, rounded once ({@code numerics.fp.Fma.fp16}). */
  FMA16(35),
  /**
   * FP32 fused multiply-add {@code rd = ra · rb + rc}, rounded once ({@code numerics.fp.Fma.fp32Bits}).
   * Only on a DSP built with {@code fma32} (the {@code DspInterpreter}'s {@code fma32} option);
   * elsewhere the code is undefined and executes as {@link #NOP}.
   */
  FMA32(36),
  /**
   * Skewed load (transpose, with {@link #ROT} and {@link #STS}): lane l reads row
   * {@code imm + ((l − idx) mod lanes)·2^aux} (aux: the row stride of a block). Only on a DSP built with
   * {@code permute}, like the next four.
   */
  LDS(37),
  /** Skewed store: lane l writes {@code ra[15:0]} to row {@code imm + ((l + idx) mod lanes)·2^aux} (maskable). */
  STS(38),
  /** Lane rotation: {@code rd = ra} of lane {@code (l + imm + idx) mod lanes}. */
  ROT(39),
  /** Row gather: lane l reads row {@code imm + idx + ra} (ra an integer; the same ra in every lane gathers one row). */
  LDG(40),
  /** Row scatter: lane l writes {@code ra[15:0]} to row {@code imm + idx + rb} (maskable). */
  STG(41);

  private final int code;

  DspOp(int code) {
    this.code = code;
  }

  /** The 6-bit opcode. */
  public int code() {
    return code;
  }

  /** The operation with this 6-bit code, or empty when the code is not defined. */
  public static java.util.Optional<DspOp> fromCode(int code) {
    for (DspOp op : values()) {
      if (op.code == code) {
        return java.util.Optional.of(op);
      }
    }
    return java.util.Optional.empty();
  }

  /** Whether the instruction writes {@code rd}. */
  public boolean writesRegister() {
    return code >= LI.code && code <= FMA32.code && code != ST.code || this == LDS || this == ROT || this == LDG;
  }

  /**
   * Whether the result comes from an FP unit's rounding in execute 2 (FP16/FP32 arithmetic,
   * compares, conversions, FMA16, FMA32) rather than from execute 1 (every other register-writing op).
   */
  public boolean roundsLate() {
    return code >= ADD16.code && code <= FROMINT.code || this == LT16 || this == EQ16 || this == FMA16 || this == FMA32;
  }

  /** Whether the instruction reads {@code ra}: every op from {@code ST} to {@code FMA32} (control ops, LI and LD do not), STS, ROT, LDG, STG. */
  public boolean readsA() {
    return code >= ST.code && code <= FMA32.code || this == STS || this == ROT || this == LDG || this == STG;
  }

  /** Whether the op addresses buffer rows from its immediate: LD, ST, LDS, STS, LDG, STG. */
  public boolean addressesRows() {
    return this == LD || this == ST || this == LDS || this == STS || this == LDG || this == STG;
  }

  /** Whether the op is one of the buffer permutations (LDS, STS, ROT, LDG, STG: a DSP built with {@code permute}). */
  public boolean permutes() {
    return code >= LDS.code && code <= STG.code;
  }

  /** Whether the instruction reads {@code rb}. */
  public boolean readsB() {
    return switch (this) {
      case ADD16, SUB16, MUL16, MIN16, MAX16, ADD32, SUB32, MUL32, NARROW, SCALB16, TOINT, FROMINT, IADD, ISUB,
          FIX, SELNEG, LT16, EQ16, FMA16, FMA32, STG -> true;
      default -> false;
    };
  }

  /** Whether the instruction reads {@code rc}. */
  public boolean readsC() {
    return this == FMA16 || this == FMA32 || this == SELNEG;
  }
}
