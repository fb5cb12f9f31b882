package org.llmnpu.hdl;

import java.util.Set;

/**
 * The user's Java file and line that created a signal or statement: the first stack frame
 * outside the HDL's own packages. Emitted Verilog carries it as a {@code // File.java:line}
 * comment and every elaboration error names it.
 */
public record SourceLocation(String file, int line, Class<?> type) {
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

  /** Helper methods that return a signal followed to their callers to name it. */
  private static final int CALLERS_FOLLOWED = 4;

  public static final SourceLocation UNKNOWN = new SourceLocation("unknown", 0);

  /** A location without the class it is in (its source cannot be looked up). */
  public SourceLocation(String file, int line) {
    this(file, line, null);
  }

  /** The location of the caller of the HDL, skipping HDL and JDK frames. */
  public static SourceLocation here() {
    return WALKER.walk(frames -> frames
        .filter(f -> !isLibraryFrame(f))
        .findFirst()
        .map(f -> new SourceLocation(f.getFileName() == null ? f.getClassName() : f.getFileName(),
            f.getLineNumber(), f.getDeclaringClass()))
        .orElse(UNKNOWN));
  }

  /** The location of the code that created a module: skips the constructors of HwModule subclasses. */
  public static SourceLocation ofModuleCreation(Class<?> created) {
    return WALKER.walk(frames -> frames
        .filter(f -> !isLibraryFrame(f))
        .filter(f -> !(f.getMethodName().equals("<init>") && f.getDeclaringClass().isAssignableFrom(created)))
        .findFirst()
        .map(f -> new SourceLocation(f.getFileName() == null ? f.getClassName() : f.getFileName(),
            f.getLineNumber(), f.getDeclaringClass()))
        .orElse(UNKNOWN));
  }

  /**
   * The caller of the HDL as {@link #here()}, with the variable or field its code stores the
   * call's result in ({@link StoredVariables}), or null.
   */
  static CallSite callSite() {
    return WALKER.walk(frames -> {
      SourceLocation loc = null;
      int callers = 0;
      for (java.util.Iterator<StackWalker.StackFrame> it = frames.iterator(); it.hasNext(); ) {
        StackWalker.StackFrame f = it.next();
        boolean library = isLibraryFrame(f);
        if (loc == null) {
          if (library) {
            continue;
          }
          loc = new SourceLocation(f.getFileName() == null ? f.getClassName() : f.getFileName(),
              f.getLineNumber(), f.getDeclaringClass());
        } else if (library || ++callers > CALLERS_FOLLOWED) {
          break;  // a returned value is only followed into a direct caller in the user's code
        }
        StoredVariables.Store store = StoredVariables.after(f);
        if (!store.returned()) {
          return new CallSite(loc, store.variable());
        }
      }
      return new CallSite(loc == null ? UNKNOWN : loc, null);
    });
  }

  /** Where the user's code called the HDL, and the variable it stores the result in (null if none). */
  record CallSite(SourceLocation location, String variable) {
  }

  private static boolean isLibraryFrame(StackWalker.StackFrame f) {
    String className = f.getClassName();
    if (className.startsWith("java.") || className.startsWith("jdk.") || className.startsWith("sun.")) {
      return true;
    }
    return IS_HDL.get(f.getDeclaringClass());
  }

  /** The text of this line in the user's .java file, trimmed, when the source can be found. */
  public java.util.Optional<String> sourceLine() {
    return SourceLines.line(this);
  }

  @Override
  public String toString() {
    return file + ":" + line;
  }
}
