package org.llmnpu.hdl.emit;

import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.llmnpu.hdl.Data;
import org.llmnpu.hdl.ElaborationException;
import org.llmnpu.hdl.HwValue;
import org.llmnpu.hdl.Mem;
import org.llmnpu.hdl.HwModule;
import org.llmnpu.hdl.ModuleIr;
import org.llmnpu.hdl.ir.MemoryNode;
import org.llmnpu.hdl.ir.Signal;

/**
 * Chooses Verilog names inside one module. Priority: an explicit name (prefixed by its
 * sections), then the Java field holding the value (aggregate leaves append their path,
 * e.g. {@code push_valid}), then the variable the user's code stores it in
 * ({@code acc} for {@code UInt acc = reg(uint(8));}, see {@link Signal#variable}), then a
 * stable name from the role and source line ({@code _wire_L42}). Explicit and field names are
 * given first, so they never yield to a recovered one; a clash gets {@code _1}, {@code _2}, ...
 * in creation order. Ports with the same explicit name are an error.
 */
final class Namer {
  private final Set<String> used = new HashSet<>();

  /** Names signals, memories and instances of {@code ir}. */
  void nameModule(ModuleIr ir) {
    nameFromFields(ir.module());
    for (Signal s : ir.ports()) {
      if (s.nameHint != null) {
        if (!used.add(Verilog.legal(s.nameHint))) {
          throw new ElaborationException(s.location, "two ports named `" + s.nameHint + "` in "
              + ir.module().moduleName());
        }
        s.name = Verilog.legal(s.nameHint);
      }
    }
    for (Signal s : ir.signals()) {
      if (!s.isPort() && s.nameHint != null) {
        s.name = unique(s.nameHint);
      }
    }
    for (MemoryNode m : ir.memories()) {
      if (m.nameHint != null) {
        m.name = unique(m.nameHint);
      }
    }
    for (HwModule child : ir.children()) {
      if (child.ir().instanceName() != null) {
        child.ir().setInstanceName(unique(child.ir().instanceName()));
      }
    }
    // then names recovered from variables and generated ones: they never displace a name the user wrote
    for (Signal s : ir.ports()) {
      if (s.nameHint == null) {
        s.name = unique(recovered(s, "_port_L" + s.location.line()));
      }
    }
    for (Signal s : ir.signals()) {
      if (!s.isPort() && s.nameHint == null) {
        s.name = unique(recovered(s, "_" + s.role.name().toLowerCase() + "_L" + s.location.line()));
      }
    }
    for (MemoryNode m : ir.memories()) {
      if (m.nameHint == null) {
        m.name = unique(m.variable != null ? m.variable : "_mem_L" + m.location.line());
      }
    }
    for (HwModule child : ir.children()) {
      ModuleIr c = child.ir();
      if (c.instanceName() == null) {
        c.setInstanceName(unique(c.instanceVariable() != null ? c.instanceVariable() : lowerFirst(child.moduleName())));
      }
    }
  }

  /** The stored variable's name with the leaf's aggregate path, else {@code fallback} with it. */
  private static String recovered(Signal s, String fallback) {
    return (s.variable != null ? s.variable : fallback) + s.aggregatePath;
  }

  /** A fresh name based on {@code base}. */
  String unique(String base) {
    String legal = Verilog.legal(base);
    String n = legal;
    for (int i = 1; !used.add(n); i++) {
      n = legal + "_" + i;
    }
    return n;
  }

  private void nameFromFields(HwModule m) {
    List<Class<?>> chain = new ArrayList<>();
    for (Class<?> c = m.getClass(); c != HwModule.class && c != null; c = c.getSuperclass()) {
      chain.add(0, c);
    }
    for (Class<?> c : chain) {
      for (Field f : c.getDeclaredFields()) {
        if (Modifier.isStatic(f.getModifiers()) || f.getType().isPrimitive()) {
          continue;
        }
        Object v;
        try {
          f.setAccessible(true);
          v = f.get(m);
        } catch (ReflectiveOperationException | RuntimeException e) {
          continue;
        }
        nameValue(m, f.getName(), v);
      }
    }
  }

  private void nameValue(HwModule owner, String name, Object v) {
    if (v instanceof Data d) {
      for (HwValue leaf : d.leaves()) {
        if (leaf.isBound() && leaf.expr() instanceof Signal s && s.owner == owner && s.nameHint == null) {
          s.nameHint = name + s.aggregatePath;
        }
      }
    } else if (v instanceof HwModule child && child.ir().parent() == owner && child.ir().instanceName() == null) {
      child.ir().setInstanceName(name);
    } else if (v instanceof Mem<?> mem) {
      MemoryNode node = mem.node();
      if (node.owner == owner && node.nameHint == null) {
        node.nameHint = name;
      }
    } else if (v instanceof List<?> list) {
      for (int i = 0; i < list.size(); i++) {
        nameValue(owner, name + "_" + i, list.get(i));
      }
    } else if (v instanceof Object[] array) {
      for (int i = 0; i < array.length; i++) {
        nameValue(owner, name + "_" + i, array[i]);
      }
    }
  }

  private static String lowerFirst(String s) {
    return s.isEmpty() ? s : Character.toLowerCase(s.charAt(0)) + s.substring(1);
  }
}
