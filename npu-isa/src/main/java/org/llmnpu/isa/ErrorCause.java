package org.llmnpu.isa;

/**
 * Why the NPU halted with an error; the code is the value of the {@code errorCause} status port.
 * The status also names the index of the command (0 = the first command of the program).
 */
public enum ErrorCause {
  NONE(0, "no error"),
  UNDEFINED_OPCODE(1, "undefined opcode"),
  EXT_ADDRESS(2, "external-memory address outside memory or not aligned to the line"),
  SPAD_ADDRESS(3, "scratchpad address outside the scratchpad or not aligned to the line"),
  BAD_SHAPE(4, "impossible shape (zero, or larger than the engine's capacity)"),
  WATCHDOG(5, "watchdog: the external memory did not answer within the limit, or a DSP program ran past its limit"),
  DSP_ADDRESS(6, "Vector DSP buffer range outside the buffer, or a program longer than the program memory"),
  UNSUPPORTED(7, "the command needs a unit or mode this NPU was built without (PPM, PPU, the GEMM's N:M sparsity, "
      + "MX decoding for loadmx), "
      + "or a ppm on a PPU before any pputab");

  private final int code;
  private final String meaning;

  ErrorCause(int code, String meaning) {
    this.code = code;
    this.meaning = meaning;
  }

  public int code() {
    return code;
  }

  public String meaning() {
    return meaning;
  }

  public static ErrorCause fromCode(int code) {
    for (ErrorCause c : values()) {
      if (c.code == code) {
        return c;
      }
    }
    throw new IllegalArgumentException("no error cause with code " + code);
  }
}
