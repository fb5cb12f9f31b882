package org.llmnpu.isa;

import org.llmnpu.numerics.mx.MxElementType;

/**
 * The element decoding of {@link Command.LoadMx} (golden, per byte, with {@code numerics}'
 * {@link MxElementType}): an MX element code becomes the signed INT8
 * {@code code = round(value · 2^(6 − emax))}, rounded to nearest, ties to even, where {@code value}
 * is the element's value without the block scale and {@code emax} the exponent of the format's
 * largest normal (E4M3 8, E5M2 15, INT8 0). So the top binade {@code [2^emax, 2^(emax+1))} lands on
 * bit 6 (7 magnitude bits, |code| ≤ 112 for FP8: 448·2^-2, 57344·2^-9), each lower binade loses one
 * more fraction bit, and values below {@code 2^(emax−7)} round to 0; MXINT8 codes are the element
 * bytes themselves. NaN (E4M3 {@code S.1111.111}, E5M2 NaN) and E5M2 ±∞ give 0. The block's value is
 * {@code code · 2^(codeExponent + scaleExponent)}, {@code scaleExponent = scale − 127} of its E8M0
 * scale.
 *
 * <p>This is {@code numerics.mx.MxPrealign.aligned(block, 7, NEAREST_EVEN)} for every block whose
 * largest element lies in the top binade — every non-zero block the OCP quantizer
 * ({@code MxQuantizer}: shared exponent {@code floor(log2 amax) − emax}) produces — and
 * {@code MxPrealign.exact} for MXINT8. Aligning to the format's top binade instead of the block's
 * largest element makes the decoding a function of one byte: the hardware needs no block buffer
 * (a K block of a weight matrix spans 32 rows, i.e. 32 memory rows per column) and adds no latency.
 */
public final class MxLoad {
  /** {@link Command.LoadMx} formats (word 7). */
  public static final int E4M3 = 0;
  public static final int E5M2 = 1;
  public static final int INT8 = 2;
  /** Formats 0..LAST are defined; others halt with {@link ErrorCause#BAD_SHAPE}. */
  public static final int LAST = INT8;

  private MxLoad() {
  }

  /** The element type of a format code. */
  public static MxElementType type(int format) {
    return switch (format) {
      case E4M3 -> MxElementType.FP8_E4M3;
      case E5M2 -> MxElementType.FP8_E5M2;
      case INT8 -> MxElementType.INT8;
      default -> throw new IllegalArgumentException("loadmx format must be 0 (E4M3), 1 (E5M2) or 2 (INT8), got " + format);
    };
  }

  /** The INT8 code of element byte {@code element} (0..255) in {@code format} (see class comment). */
  public static int code(int format, int element) {
    MxElementType type = type(format);
    double v = type.decode(element & 0xFF);
    if (!Double.isFinite(v)) {
      return 0;
    }
    return (int) Math.rint(Math.scalb(v, 6 - type.emax()));
  }

  /** {@code emax − 6}: a code's weight is {@code 2^(codeExponent + scale − 127)}. */
  public static int codeExponent(int format) {
    return type(format).emax() - 6;
  }

  /** The 256 codes of {@code format}, indexed by element byte. */
  public static byte[] table(int format) {
    byte[] t = new byte[256];
    for (int e = 0; e < 256; e++) {
      t[e] = (byte) code(format, e);
    }
    return t;
  }
}
