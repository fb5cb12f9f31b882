package org.llmnpu.hdl;

import java.util.Set;

/**
 * The user's Java file and line that created a signal or statement: the first stack frame
 * outside the HDL's own packages. Emitted Verilog carries it as a {@code // File.java:line}
 * comment and every elaboration error names it.
 */
public record SourceLocation(String file, int line) {
  private static final Set<String> HDL_PACKAGES = Set.of(
      "org.llmnpu.hdl", "org.llmnpu.hdl.ir", "org.llmnpu.hdl.emit", "org.llmnpu.hdl.lib");
  private static final StackWalker WALKER = StackWalker.getInstance();

  public static final SourceLocation UNKNOWN = new SourceLocation("unknown", 0);

  /** The location of the caller of the HDL, skipping HDL and JDK frames. */
  public static SourceLocation here() {
    return WALKER.walk(frames -> frames
        .filter(f -> !isLibraryFrame(f.getClassName()))
        .findFirst()
        .map(f -> new SourceLocation(f.getFileName() == null ? f.getClassName() : f.getFileName(),
            f.getLineNumber()))
        .orElse(UNKNOWN));
  }

  private static boolean isLibraryFrame(String className) {
    if (className.startsWith("java.") || className.startsWith("jdk.") || className.startsWith("sun.")) {
      return true;
    }
    int dot = className.lastIndexOf('.');
    String pkg = dot < 0 ? "" : className.substring(0, dot);
    return HDL_PACKAGES.contains(pkg);
  }

  @Override
  public String toString() {
    return file + ":" + line;
  }
}
