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
  private static final StackWalker WALKER =
      StackWalker.getInstance(StackWalker.Option.RETAIN_CLASS_REFERENCE);

  private static final java.security.CodeSource HDL_CODE = SourceLocation.class.getProtectionDomain().getCodeSource();
  /** Whether a class is part of the HDL itself (same jar, core packages), cached per class. */
  private static final ClassValue<Boolean> IS_HDL = new ClassValue<>() {
    @Override
    protected Boolean computeValue(Class<?> type) {
      String name = type.getName();
      int dot = name.lastIndexOf('.');
      String pkg = dot < 0 ? "" : name.substring(0, dot);
      return HDL_PACKAGES.contains(pkg) && java.util.Objects.equals(type.getProtectionDomain().getCodeSource(), HDL_CODE);
    }
  };

  public static final SourceLocation UNKNOWN = new SourceLocation("unknown", 0);

  /** The location of the caller of the HDL, skipping HDL and JDK frames. */
  public static SourceLocation here() {
    return WALKER.walk(frames -> frames
        .filter(f -> !isLibraryFrame(f))
        .findFirst()
        .map(f -> new SourceLocation(f.getFileName() == null ? f.getClassName() : f.getFileName(),
            f.getLineNumber()))
        .orElse(UNKNOWN));
  }

  /** The location of the code that created a module: skips the constructors of HwModule subclasses. */
  public static SourceLocation ofModuleCreation(Class<?> created) {
    return WALKER.walk(frames -> frames
        .filter(f -> !isLibraryFrame(f))
        .filter(f -> !(f.getMethodName().equals("<init>") && f.getDeclaringClass().isAssignableFrom(created)))
        .findFirst()
        .map(f -> new SourceLocation(f.getFileName() == null ? f.getClassName() : f.getFileName(),
            f.getLineNumber()))
        .orElse(UNKNOWN));
  }

  private static boolean isLibraryFrame(StackWalker.StackFrame f) {
    String className = f.getClassName();
    if (className.startsWith("java.") || className.startsWith("jdk.") || className.startsWith("sun.")) {
      return true;
    }
    return IS_HDL.get(f.getDeclaringClass());
  }

  @Override
  public String toString() {
    return file + ":" + line;
  }
}
