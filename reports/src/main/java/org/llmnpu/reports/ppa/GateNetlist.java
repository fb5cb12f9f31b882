package org.llmnpu.reports.ppa;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The parts of a Yosys gate netlist ({@code write_verilog -noattr}) that reports need: the top
 * module's input ports, and for a flip-flop instance path from OpenSTA (e.g.
 * {@code pe_1_2/_123_}) the register it implements, named by the net on its Q pin
 * ({@code pe_1_2/psum_q[31]}), through any depth of hierarchy.
 */
final class GateNetlist {
  private static final Pattern MODULE = Pattern.compile("(?s)\\bmodule\\s+(\\\\\\S+ |[\\w$]+)\\s*\\((.*?)\\bendmodule\\b");
  private static final Pattern INPUT_DECL = Pattern.compile("(?m)^\\s*input\\s+(?:\\[\\d+:\\d+\\]\\s+)?(\\S+)\\s*;");
  private static final Pattern PORT_DECL = Pattern.compile(
      "(?m)^\\s*(input|output)\\s+(?:\\[(\\d+):(\\d+)\\]\\s+)?(\\S+)\\s*;");
  private static final Pattern INSTANCE = Pattern.compile(
      "\\n\\s*([\\w$]+|\\\\\\S+ )\\s+(\\\\\\S+ |[\\w$.\\[\\]]+)\\s*\\(([^;]*?)\\n\\s*\\);");
  private static final Pattern INPUT_BITS =
      Pattern.compile("(?m)^\\s*input\\s+(?:\\[(\\d+):(\\d+)\\]\\s+)?(\\S+)\\s*;");
  private static final Pattern Q_PIN = Pattern.compile("\\.Q\\(([^)]*)\\)");

  /** One cell or module instance: its type and, for flip-flops, the net on Q. */
  private record Instance(String type, String qNet) {
  }

  private final String top;
  private final Map<String, String> bodies = new HashMap<>();
  private final Map<String, Map<String, Instance>> instances = new HashMap<>();
  private final Map<String, List<Map.Entry<String, String>>> submodules = new HashMap<>();

  GateNetlist(String top, String netlist) {
    this.top = top;
    Matcher m = MODULE.matcher(netlist);
    while (m.find()) {
      bodies.put(unescape(m.group(1)), m.group(2));
    }
  }

  /**
   * The instances of every module, parsed on first use: the ports (all a cached timing run
   * needs) come from the top module alone, while parsing every instance of a large netlist
   * takes a minute.
   */
  private Map<String, Map<String, Instance>> instances() {
    if (instances.isEmpty() && !bodies.isEmpty()) {
      for (Map.Entry<String, String> b : bodies.entrySet()) {
        Map<String, Instance> insts = new HashMap<>();
        Matcher i = INSTANCE.matcher(b.getValue());
        while (i.find()) {
          Matcher q = Q_PIN.matcher(i.group(3));
          insts.put(unescape(i.group(2)), new Instance(unescape(i.group(1)), q.find() ? unescape(q.group(1)) : null));
        }
        instances.put(b.getKey(), insts);
      }
    }
    return instances;
  }

  /** Input ports of the top module, in declaration order. */
  Set<String> inputPorts() {
    Set<String> out = new LinkedHashSet<>();
    Matcher m = INPUT_DECL.matcher(bodies.getOrDefault(top, ""));
    while (m.find()) {
      out.add(unescape(m.group(1)));
    }
    return out;
  }

  /** Ports of the top module (name, width, direction), in declaration order. */
  java.util.List<TimingConstraints.Port> ports() {
    java.util.List<TimingConstraints.Port> out = new java.util.ArrayList<>();
    Matcher m = PORT_DECL.matcher(bodies.getOrDefault(top, ""));
    while (m.find()) {
      int width = m.group(2) == null ? 1 : Math.abs(Integer.parseInt(m.group(2)) - Integer.parseInt(m.group(3))) + 1;
      out.add(new TimingConstraints.Port(unescape(m.group(4)), width, m.group(1).equals("input")));
    }
    return out;
  }

  /**
   * The register a flip-flop instance path implements ({@code a/b/count[3]}), or null when the
   * path is not a flip-flop with a named Q net.
   */
  String registerAt(String instancePath) {
    String module = top;
    String[] parts = instancePath.split("/");
    String prefix = "";
    for (int k = 0; k < parts.length; k++) {
      Instance inst = instances().getOrDefault(module, Map.of()).get(parts[k]);
      if (inst == null) {
        return null;
      }
      if (k == parts.length - 1) {
        return inst.type().startsWith("DFF") && inst.qNet() != null ? prefix + inst.qNet() : null;
      }
      prefix += parts[k] + "/";
      module = inst.type();
    }
    return null;
  }

  /**
   * Every flip-flop of the design by instance path ({@code pe_1_2/_123_}), with the register
   * bit it implements ({@code pe_1_2/psum_q[31]}, null when its Q net has no name), walking
   * the hierarchy from the top module.
   */
  Map<String, String> flipFlops() {
    Map<String, String> out = new java.util.LinkedHashMap<>();
    walk(top, "", out, 0);
    return out;
  }

  private void walk(String module, String prefix, Map<String, String> out, int depth) {
    if (depth > 64) {
      return;
    }
    for (var e : new java.util.TreeMap<>(instances().getOrDefault(module, Map.of())).entrySet()) {
      Instance inst = e.getValue();
      if (inst.type().startsWith("DFF")) {
        out.put(prefix + e.getKey(), inst.qNet() == null ? null : prefix + inst.qNet());
      } else if (instances().containsKey(inst.type())) {
        walk(inst.type(), prefix + e.getKey() + "/", out, depth + 1);
      }
    }
  }

  /** Instance path prefixes ({@code ""} for the top, {@code "a/b/"}) of every copy of {@code module}. */
  List<String> prefixesOf(String module) {
    List<String> out = new ArrayList<>();
    collect(top, "", module, out, 0);
    return out;
  }

  private void collect(String at, String prefix, String module, List<String> out, int depth) {
    if (at.equals(module)) {
      out.add(prefix);
    }
    if (depth > 64) {
      return;
    }
    for (Map.Entry<String, String> e : submodules(at)) {
      collect(e.getValue(), prefix + e.getKey() + "/", module, out, depth + 1);
    }
  }

  /**
   * The instances of {@code module} that are modules of the netlist (not cells), as (instance name, module) in name
   * order, found once per module: {@link #prefixesOf} walks only these, where a copy of every instance per call took
   * the JVM ~30 s per power run of the whole NPU (one call per SRAM macro, ~300,000 cells in its top).
   */
  private List<Map.Entry<String, String>> submodules(String module) {
    return submodules.computeIfAbsent(module, m -> {
      java.util.TreeMap<String, String> sorted = new java.util.TreeMap<>();
      instances().getOrDefault(m, Map.of()).forEach((name, inst) -> {
        if (instances().containsKey(inst.type())) {
          sorted.put(name, inst.type());
        }
      });
      return List.copyOf(sorted.entrySet());
    });
  }

  /** The input port bits of the top module: {@code a[0]}..{@code a[7]} for a vector, {@code en} for a bit. */
  List<String> inputBits() {
    List<String> out = new ArrayList<>();
    Matcher m = INPUT_BITS.matcher(bodies.getOrDefault(top, ""));
    while (m.find()) {
      String name = unescape(m.group(3));
      if (m.group(1) == null) {
        out.add(name);
        continue;
      }
      int hi = Integer.parseInt(m.group(1));
      int lo = Integer.parseInt(m.group(2));
      for (int i = Math.min(hi, lo); i <= Math.max(hi, lo); i++) {
        out.add(name + "[" + i + "]");
      }
    }
    return out;
  }

  /** A Verilog name without the escaped-identifier backslash, its terminating space, or a space before a bit index. */
  static String unescape(String name) {
    String n = name.strip();
    return (n.startsWith("\\") ? n.substring(1) : n).replace(" [", "[");
  }
}
