package org.llmnpu.hdl;

/** The kind of a hardware value: decides extension (zero or sign) and which operators exist. */
public enum Kind {
  BOOL, BITS, UINT, SINT;

  public boolean signed() {
    return this == SINT;
  }

  /** Name users see in errors. */
  public String display() {
    return switch (this) {
      case BOOL -> "Bool";
      case BITS -> "Bits";
      case UINT -> "UInt";
      case SINT -> "SInt";
    };
  }
}
