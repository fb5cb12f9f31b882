package org.llmnpu.hdl;

import org.llmnpu.hdl.ir.Expr;
import org.llmnpu.hdl.ir.Signal;
import org.llmnpu.hdl.ir.Signal.Role;
import org.llmnpu.hdl.ir.Stmt;

/**
 * The rules of {@code target.set(value)}: same kind; a narrower value is extended (zero or
 * sign by its kind); a wider one is an error (resize explicitly). The statement goes to the
 * module that drives the target: its owner, or for an input port the owner's parent.
 */
final class Assignments {
  private Assignments() {
  }

  static void assign(HwValue target, HwValue value) {
    SourceLocation loc = SourceLocation.here();
    Signal t = target.signal();
    Expr v = value.expr();
    if (t.kind != v.kind) {
      throw new ElaborationException(loc, String.format(
          "type mismatch: cannot assign %s to %s `%s`; cast explicitly (asUInt/asSInt/asBits)",
          describe(v), t.kind.display() + "(" + t.width + ")", nameFor(t)));
    }
    if (v.width > t.width) {
      throw new ElaborationException(loc, String.format(
          "width mismatch: cannot assign %d-bit %s to %d-bit `%s` without an explicit .resize(%d)",
          v.width, describe(v), t.width, nameFor(t), t.width));
    }
    HwModule driver = driverOf(t, loc);
    driver.currentBlock().add(new Stmt.Assign(t, Ops.extend(v, t.width), loc));
  }

  private static HwModule driverOf(Signal t, SourceLocation loc) {
    if (t.role == Role.INPUT) {
      if (t.owner.parent == null) {
        String fix = drivenByItself(t.owner, loc)
            ? "; a module reads its inputs: for a value made inside " + t.owner.moduleName()
                + " use a wire (or an output port)"
            : " (call instance(...) before connecting it)";
        throw new ElaborationException(loc, String.format(
            "input port `%s` of %s can only be driven by the module that instances it%s", nameFor(t),
            t.owner.moduleName(), fix));
      }
      return t.owner.parent;
    }
    if (t.owner.parent != null) {
      throw new ElaborationException(loc, String.format(
          "multiple drivers: %s `%s` of instance %s is driven inside %s (created at %s); "
              + "it cannot also be driven from outside", t.role.name().toLowerCase(), nameFor(t),
          t.owner.moduleName(), t.owner.moduleName(), t.location));
    }
    return t.owner;
  }

  /**
   * Whether the code at {@code loc} is in the module's own class (its constructor or a lambda
   * in it) rather than in a parent that has not called instance(...) yet.
   */
  private static boolean drivenByItself(HwModule owner, SourceLocation loc) {
    return loc.type() != null && loc.type().isAssignableFrom(owner.getClass());
  }

  private static String nameFor(Signal s) {
    if (s.name == null && s.nameHint == null) {
      String field = fieldNameOf(s.owner, s);
      if (field != null) {
        return field;
      }
    }
    return s.displayName();
  }

  private static String describe(Expr e) {
    String name = e instanceof Signal s ? " `" + nameFor(s) + "`" : "";
    return e.kind.display() + "(" + e.width + ")" + name;
  }

  /** The Java field of {@code m} holding {@code s} (for messages before naming), or null. */
  private static String fieldNameOf(HwModule m, Signal s) {
    for (Class<?> c = m.getClass(); c != HwModule.class; c = c.getSuperclass()) {
      for (java.lang.reflect.Field f : c.getDeclaredFields()) {
        try {
          f.setAccessible(true);
          if (f.get(m) instanceof Data d) {
            for (HwValue v : d.leaves()) {
              if (v.isBound() && v.expr() == s) {
                return f.getName() + s.aggregatePath;
              }
            }
          }
        } catch (ReflectiveOperationException | RuntimeException e) {
          // not readable: no name from this field
        }
      }
    }
    return null;
  }
}
