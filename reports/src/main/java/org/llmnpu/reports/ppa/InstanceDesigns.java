package org.llmnpu.reports.ppa;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.llmnpu.hdl.HwModule;
import org.llmnpu.hdl.emit.VerilogDesign;
import org.llmnpu.hdl.ir.Signal;

/**
 * The instances of a design's top module, each cut out of the emitted design as a design of its own: the instance's
 * module as top, with the files of the modules below it, their memories and their flattening marks. The Verilog is
 * therefore exactly the Verilog the top instantiates (same text, same parameters), so a unit synthesized on its own
 * is the unit the top contains; only the optimization across the unit's ports (which the top may do for the
 * modules it flattens, {@code HwModule#flattenInSynthesis}) is missing. Instances of the same module share one
 * design (their {@link Unit#instances} names them all). Black boxes without a source file have no design and are
 * left out.
 */
public final class InstanceDesigns {
  private InstanceDesigns() {
  }

  /**
   * One distinct module instantiated by the top.
   *
   * @param instances the top's instance names of this module, in declaration order
   * @param module    the Verilog module name
   * @param design    the module with everything below it, as its own design
   */
  public record Unit(List<String> instances, String module, VerilogDesign design) {
    public Unit {
      instances = List.copyOf(instances);
    }
  }

  /**
   * The units of {@code top}, whose emitted Verilog is {@code emitted} ({@code Verilog.emit(top)}; emitting names
   * the ports read here), in the top's declaration order.
   */
  public static List<Unit> of(HwModule top, VerilogDesign emitted) {
    String topText = emitted.files().get(emitted.top() + ".v");
    if (topText == null) {
      throw new IllegalArgumentException("design " + emitted.top() + " has no file " + emitted.top() + ".v");
    }
    Map<String, List<String>> instancesByModule = new LinkedHashMap<>();
    Map<String, HwModule> firstByModule = new LinkedHashMap<>();
    for (HwModule child : top.ir().children()) {
      String instance = child.ir().instanceName();
      String module = moduleOf(topText, instance);
      if (!emitted.files().containsKey(module + ".v")) {
        continue; // a black box without a source: nothing to synthesize
      }
      instancesByModule.computeIfAbsent(module, m -> new ArrayList<>()).add(instance);
      firstByModule.putIfAbsent(module, child);
    }
    List<Unit> out = new ArrayList<>();
    instancesByModule.forEach((module, instances) ->
        out.add(new Unit(instances, module, cut(emitted, module, firstByModule.get(module)))));
    return out;
  }

  /** The Verilog module of {@code instance} in the top module's text. */
  static String moduleOf(String topText, String instance) {
    Matcher m = Pattern.compile("(?m)^  (\\w+)(?: #\\([\\s\\S]*?^  \\))? " + Pattern.quote(instance) + " \\(")
        .matcher(topText);
    if (!m.find()) {
      throw new IllegalStateException("instance " + instance + " not found in the top module's Verilog");
    }
    return m.group(1);
  }

  /** {@code module} and the modules below it, as a design with {@code module} on top. */
  static VerilogDesign cut(VerilogDesign emitted, String module, HwModule instance) {
    Set<String> reached = new LinkedHashSet<>();
    Deque<String> todo = new ArrayDeque<>(List.of(module));
    while (!todo.isEmpty()) {
      String m = todo.pop();
      if (!reached.add(m)) {
        continue;
      }
      String text = emitted.files().get(m + ".v");
      for (String file : emitted.files().keySet()) {
        String other = file.substring(0, file.length() - 2);
        if (!other.equals(m) && instantiates(text, other)) {
          todo.push(other);
        }
      }
    }
    Map<String, String> files = new LinkedHashMap<>();
    emitted.files().forEach((file, text) -> {
      if (reached.contains(file.substring(0, file.length() - 2))) {
        files.put(file, text); // leaves first, as in the whole design
      }
    });
    List<VerilogDesign.MemoryInfo> memories = emitted.memories().stream()
        .filter(mem -> reached.contains(mem.module())).toList();
    List<String> flattened = emitted.flattened().stream()
        .filter(f -> reached.contains(f) && !f.equals(module)).toList();
    List<VerilogDesign.PortInfo> ports = new ArrayList<>();
    for (Signal p : instance.ir().ports()) {
      ports.add(new VerilogDesign.PortInfo(p.name, p.width, p.role == Signal.Role.INPUT, p.kind.signed()));
    }
    return new VerilogDesign(module, files, memories, ports, flattened);
  }

  /** Whether a module's text instantiates {@code module} (with or without parameters). */
  static boolean instantiates(String text, String module) {
    return Pattern.compile("(?m)^  " + Pattern.quote(module) + " (?:#\\(|\\w+ \\()").matcher(text).find();
  }
}
