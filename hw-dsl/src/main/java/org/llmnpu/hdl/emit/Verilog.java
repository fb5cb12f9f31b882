package org.llmnpu.hdl.emit;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.llmnpu.hdl.BlackBox;
import org.llmnpu.hdl.ElaborationException;
import org.llmnpu.hdl.HwModule;
import org.llmnpu.hdl.ModuleIr;
import org.llmnpu.hdl.ir.Expr;
import org.llmnpu.hdl.ir.MemoryNode;
import org.llmnpu.hdl.ir.Signal;

/**
 * Elaborates a design and writes it as Verilog-2005: checks every module, names its
 * signals, writes one definition per distinct module (two instances whose Verilog would be
 * identical share one definition) and returns the files leaves first. Linear in the size of
 * the design; the same design gives byte-identical output.
 */
public final class Verilog {
  /** Verilog-2005 and SystemVerilog (IEEE 1800-2017) reserved words: Verilator parses both. */
  private static final Set<String> KEYWORDS = Set.of(
      "accept_on", "alias", "always", "always_comb", "always_ff", "always_latch", "and", "assert", "assign", "assume",
      "automatic", "before", "begin", "bind", "bins", "binsof", "bit", "break", "buf", "bufif0", "bufif1", "byte",
      "case", "casex", "casez", "cell", "chandle", "checker", "class", "clocking", "cmos", "config", "const",
      "constraint", "context", "continue", "cover", "covergroup", "coverpoint", "cross", "deassign", "default",
      "defparam", "design", "disable", "dist", "do", "edge", "else", "end", "endcase", "endchecker", "endclass",
      "endclocking", "endconfig", "endfunction", "endgenerate", "endgroup", "endinterface", "endmodule", "endpackage",
      "endprimitive", "endprogram", "endproperty", "endspecify", "endsequence", "endtable", "endtask", "enum",
      "event", "eventually", "expect", "export", "extends", "extern", "final", "first_match", "for", "force",
      "foreach", "forever", "fork", "forkjoin", "function", "generate", "genvar", "global", "highz0", "highz1", "if",
      "iff", "ifnone", "ignore_bins", "illegal_bins", "implements", "implies", "import", "incdir", "include",
      "initial", "inout", "input", "inside", "instance", "int", "integer", "interconnect", "interface", "intersect",
      "join", "join_any", "join_none", "large", "let", "liblist", "library", "local", "localparam", "logic",
      "longint", "macromodule", "matches", "medium", "modport", "module", "nand", "negedge", "nettype", "new",
      "nexttime", "nmos", "nor", "noshowcancelled", "not", "notif0", "notif1", "null", "or", "output", "package",
      "packed", "parameter", "pmos", "posedge", "primitive", "priority", "program", "property", "protected", "pull0",
      "pull1", "pulldown", "pullup", "pulsestyle_ondetect", "pulsestyle_onevent", "pure", "rand", "randc", "randcase",
      "randsequence", "rcmos", "real", "realtime", "ref", "reg", "reject_on", "release", "repeat", "restrict",
      "return", "rnmos", "rpmos", "rtran", "rtranif0", "rtranif1", "s_always", "s_eventually", "s_nexttime",
      "s_until", "s_until_with", "scalared", "sequence", "shortint", "shortreal", "showcancelled", "signed", "small",
      "soft", "solve", "specify", "specparam", "static", "string", "strong", "strong0", "strong1", "struct", "super",
      "supply0", "supply1", "sync_accept_on", "sync_reject_on", "table", "tagged", "task", "this", "throughout",
      "time", "timeprecision", "timeunit", "tran", "tranif0", "tranif1", "tri", "tri0", "tri1", "triand", "trior",
      "trireg", "type", "typedef", "union", "unique", "unique0", "unsigned", "until", "until_with", "untyped", "use",
      "uwire", "var", "vectored", "virtual", "void", "wait", "wait_order", "wand", "weak", "weak0", "weak1", "while",
      "wildcard", "wire", "with", "within", "wor", "xnor", "xor");

  private final Map<HwModule, Map<Signal, Set<Signal>>> combPaths = new IdentityHashMap<>();
  private final Map<HwModule, String> verilogNames = new IdentityHashMap<>();
  private final Map<String, String> nameByText = new HashMap<>();
  private final Map<String, Integer> baseUse = new HashMap<>();
  private final Map<String, String> files = new LinkedHashMap<>();
  private final List<VerilogDesign.MemoryInfo> memories = new ArrayList<>();
  private final java.util.SortedSet<String> flattened = new java.util.TreeSet<>();

  private Verilog() {
  }

  /** Checks and emits the design rooted at {@code top}. */
  public static VerilogDesign emit(HwModule top) {
    if (top.ir().parent() != null) {
      throw new ElaborationException(top.ir().createdAt(), "emit the top module, not an instance");
    }
    Verilog v = new Verilog();
    String name = v.visit(top);
    List<VerilogDesign.PortInfo> ports = new ArrayList<>();
    for (Signal p : top.ir().ports()) {
      ports.add(new VerilogDesign.PortInfo(p.name, p.width, p.role == Signal.Role.INPUT, p.kind.signed()));
    }
    v.flattened.remove(name);
    List<VerilogDesign.GatedBankInfo> banks = new ArrayList<>();
    gatedBanks(top, "", banks);
    return new VerilogDesign(name, v.files, v.memories, ports, List.copyOf(v.flattened), banks,
        top.ir().module().registerBitsOfDesign());
  }

  private static void gatedBanks(HwModule m, String path, List<VerilogDesign.GatedBankInfo> out) {
    for (org.llmnpu.hdl.GatedBank b : m.gatedBanks()) {
      out.add(new VerilogDesign.GatedBankInfo(path + b.name(), b.mode().key(), b.registerBits()));
    }
    for (HwModule c : m.ir().children()) {
      gatedBanks(c, path + c.ir().instanceName() + ".", out);
    }
  }

  private String visit(HwModule m) {
    ModuleIr ir = m.ir();
    for (HwModule child : ir.children()) {
      verilogNames.put(child, visit(child));
    }
    if (m instanceof BlackBox bb) {
      return blackBox(bb, ir);
    }
    Namer namer = new Namer();
    namer.nameModule(ir);
    Checks checks = new Checks(ir, combPaths);
    combPaths.put(m, checks.run());
    String text = new ModuleWriter(ir, namer, verilogNames, checks.readSignals()).write();
    String existing = nameByText.get(text);
    if (existing != null) {
      return existing;
    }
    String base = legal(m.moduleName());
    int n = baseUse.merge(base, 1, Integer::sum);
    String name = n == 1 ? base : base + "_" + (n - 1);
    if (m.flattenInSynthesis()) {
      flattened.add(name);
    }
    nameByText.put(text, name);
    files.put(name + ".v", text.replace(ModuleWriter.NAME, name));
    for (MemoryNode mem : ir.memories()) {
      memories.add(new VerilogDesign.MemoryInfo(name, mem.name, mem.width, mem.depth, mem.readPorts,
          mem.writePorts));
    }
    return name;
  }

  private String blackBox(BlackBox bb, ModuleIr ir) {
    Namer namer = new Namer();
    namer.nameModule(ir);
    if (!ir.body().isEmpty() || !ir.children().isEmpty()) {
      throw new ElaborationException(ir.createdAt(), "black box " + bb.moduleName() + " cannot contain logic");
    }
    combPaths.put(bb, Map.of());
    String name = bb.moduleName();
    if (bb.source() != null) {
      String text = bb.source().endsWith("\n") ? bb.source() : bb.source() + "\n";
      String previous = files.putIfAbsent(bb.sourceFileName(), text);
      if (previous != null && !previous.equals(text)) {
        throw new ElaborationException(ir.createdAt(), "two different Verilog sources are named "
            + bb.sourceFileName() + " (black box " + name + ")");
      }
    }
    return name;
  }

  /** {@code [w-1:0] } with {@code signed} for SInt; empty for one unsigned bit. */
  static String range(Expr e) {
    String s = e.kind.signed() ? "signed " : "";
    return e.width == 1 ? s : s + "[" + (e.width - 1) + ":0] ";
  }

  /** A legal, non-keyword Verilog identifier. */
  static String legal(String name) {
    String n = name.chars().allMatch(c -> c < 128 && (Character.isLetterOrDigit(c) || c == '_')) ? name
        : name.replaceAll("[^A-Za-z0-9_]", "_");
    if (n.isEmpty() || Character.isDigit(n.charAt(0))) {
      n = "_" + n;
    }
    return KEYWORDS.contains(n) ? n + "_" : n;
  }

  static String parameterValue(Object v) {
    if (v instanceof String s) {
      return "\"" + s + "\"";
    }
    if (v instanceof Boolean b) {
      return b ? "1" : "0";
    }
    return String.valueOf(v);
  }
}
