package org.llmnpu.isa;

/** A {@code .npu} source that cannot be assembled; the message names the file, line and problem. */
public final class AssemblyException extends IllegalArgumentException {
  private static final long serialVersionUID = 1L;

  public AssemblyException(String source, int line, String message) {
    super(source + ":" + line + ": " + message);
  }
}
