package org.llmnpu.isa;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Assembles {@code .npu} text: one command a line, {@code #} or {@code ;} starts a comment.
 *
 * <pre>
 * .org 0x4000                 # where the program is placed in external memory (default 0)
 * .equ X 0x1000               # a named constant (also: X = 0x1000)
 * start:                      # a label: the byte address of the next command
 * load  ext=X extStride=64 spad=0 spadStride=64 rowBytes=40 rows=8
 * gemm  m=8 k=40 n=24 x=0 xStride=64 w=0x800 wStride=32 y=0x2000 yStride=96
 * store ext=0x8000 extStride=96 spad=0x2000 spadStride=96 rowBytes=96 rows=8
 * dsptab ext=TABLES
 * dspin  spad=0x2000 spadStride=16 rowElems=1 rows=24 dst=0 format=2 shift=-7
 * dsprun prog=SOFTMAX words=40
 * dspout spad=0x3000 spadStride=32 rowElems=24 rows=1 src=2 format=1
 * snapshot ext=0x9000
 * fence
 * halt
 * .raw 0x55 0 0 0 0 0 0 0     # eight raw words (e.g. an undefined opcode)
 * </pre>
 * Operand values are decimal or {@code 0x} hex numbers, constants and labels, combined with
 * {@code +}, {@code -} and {@code *} (products bind first); a value may start with {@code -}. Every operand of a command is required,
 * in any order; an unknown or missing operand is an error naming the command's operands.
 */
public final class Assembler {
  /**
   * An assembled program, where it goes in memory, and the data the {@link DataDirectives} place
   * ({@code .dsptables}, {@code .dspkernel}).
   */
  public record Assembled(Program program, long origin, Map<String, Long> symbols, List<Segment> data) {
    /** Copies the program and the data segments into a memory image. */
    public void place(byte[] image) {
      for (Segment d : data) {
        if (d.address() < 0 || d.address() + d.bytes().length > image.length) {
          throw new IllegalArgumentException("data at " + d.address() + " (" + d.bytes().length
              + " bytes) does not fit in " + image.length + " bytes of memory");
        }
        System.arraycopy(d.bytes(), 0, image, (int) d.address(), d.bytes().length);
      }
      byte[] code = program.bytes();
      if (origin + code.length > image.length) {
        throw new IllegalArgumentException(".org: the program at " + origin + " does not fit in " + image.length
            + " bytes of memory");
      }
      System.arraycopy(code, 0, image, (int) origin, code.length);
    }
  }

  /** Bytes placed at an address; {@code dspLanes} > 0: a DSP program compiled for that many lanes. */
  public record Segment(long address, byte[] bytes, int dspLanes) {
  }

  static final Map<Opcode, List<String>> OPERANDS = new LinkedHashMap<>();

  static {
    List<String> dma = List.of("ext", "extStride", "spad", "spadStride", "rowBytes", "rows");
    OPERANDS.put(Opcode.LOAD, dma);
    OPERANDS.put(Opcode.STORE, dma);
    OPERANDS.put(Opcode.GEMM, List.of("m", "k", "n", "x", "xStride", "w", "wStride", "y", "yStride"));
    OPERANDS.put(Opcode.LOAD4, dma);
    OPERANDS.put(Opcode.DSPTAB, List.of("ext"));
    OPERANDS.put(Opcode.DSPIN, List.of("spad", "spadStride", "rowElems", "rows", "dst", "format", "shift"));
    OPERANDS.put(Opcode.DSPOUT, List.of("spad", "spadStride", "rowElems", "rows", "src", "format"));
    OPERANDS.put(Opcode.DSPRUN, List.of("prog", "words"));
    OPERANDS.put(Opcode.DSPLD, List.of("prog", "words", "at"));
    OPERANDS.put(Opcode.SNAPSHOT, List.of("ext"));
    OPERANDS.put(Opcode.LOADMX, List.of("ext", "extStride", "spad", "spadStride", "rowBytes", "rows", "format"));
    OPERANDS.put(Opcode.PPMCFG, List.of("ext", "channels"));
    OPERANDS.put(Opcode.PPUTAB, List.of("ext"));
    OPERANDS.put(Opcode.PPM, List.of("src", "srcStride", "dst", "dstStride", "m", "n"));
    OPERANDS.put(Opcode.FENCE, List.of());
    OPERANDS.put(Opcode.HALT, List.of());
  }

  /** Operands that may be left out, with their default (the last operands of their command). */
  static final Map<Opcode, Map<String, Long>> OPTIONAL = Map.of(Opcode.GEMM, orderedDefaults("sparsity", "accumulate", "wStream", "wInt4", "ppm", "gate",
      "xKeep"),
      Opcode.PPMCFG, orderedDefaults("first", "bank"), Opcode.DSPRUN, orderedDefaults("entry", "base0", "base1", "base2", "base3", "len"),
      Opcode.DSPIN, orderedDefaults("dstStride"), Opcode.DSPOUT, orderedDefaults("srcStride"));

  /** Optional operands in this order, each defaulting to 0. */
  private static Map<String, Long> orderedDefaults(String... names) {
    Map<String, Long> m = new java.util.LinkedHashMap<>();
    for (String n : names) {
      m.put(n, 0L);
    }
    return java.util.Collections.unmodifiableMap(m);
  }

  private Assembler() {
  }

  /** Assembles for the default NPU ({@code DSP_LANES} = 16, {@code DSP_STAGES} = 4). */
  public static Assembled assemble(String text, String sourceName) {
    return assemble(text, sourceName, MachineParams.DspParams.DEFAULT.lanes());
  }

  /**
   * Assembles with the symbol {@code DSP_LANES} = {@code dspLanes} (for {@code .dspkernel}) and the default DSP's
   * execute stages ({@code DSP_STAGES} = 4).
   */
  public static Assembled assemble(String text, String sourceName, int dspLanes) {
    return assemble(text, sourceName, dspLanes, MachineParams.DspParams.DEFAULT.executeStages());
  }

  /**
   * Assembles for a DSP of {@code dspLanes} lanes and {@code dspStages} execute stages: the symbols
   * {@code DSP_LANES} and {@code DSP_STAGES}; a {@code .dspkernel} is compiled for that DSP (rows interleaved
   * with more than one execute stage, {@code DspKernels.Options.forPipeline}; the results are the same).
   */
  public static Assembled assemble(String text, String sourceName, int dspLanes, int dspStages) {
    if (dspStages < 1 || dspStages > 4) {
      throw new IllegalArgumentException("dspStages must be 1, 2, 3 or 4, got " + dspStages);
    }
    String[] lines = text.split("\r?\n", -1);
    Map<String, Long> symbols = new HashMap<>();
    symbols.put("DSP_LANES", (long) dspLanes);
    symbols.put("DSP_STAGES", (long) dspStages);
    // Pass 1: labels and constants (constants may use earlier constants only).
    int index = 0;
    long origin = 0;
    for (int i = 0; i < lines.length; i++) {
      String line = strip(lines[i]);
      if (line.isEmpty()) {
        continue;
      }
      int lineNo = i + 1;
      if (line.endsWith(":")) {
        define(symbols, line.substring(0, line.length() - 1).trim(), index * (long) Command.BYTES, sourceName, lineNo);
      } else if (line.startsWith(".org")) {
        origin = eval(line.substring(4).trim(), symbols, sourceName, lineNo);
        if (origin % Command.BYTES != 0) {
          throw new AssemblyException(sourceName, lineNo, ".org must be a multiple of " + Command.BYTES + ", got " + origin);
        }
      } else if (DataDirectives.matches(line)) {
        DataDirectives.define(line, symbols, sourceName, lineNo);
      } else if (line.startsWith(".equ") || line.matches("[A-Za-z_]\\w*\\s*=.*")) {
        String body = line.startsWith(".equ") ? line.substring(4).trim() : line.replaceFirst("=", " ");
        String[] parts = body.trim().split("\\s+", 2);
        if (parts.length != 2) {
          throw new AssemblyException(sourceName, lineNo, "a constant needs a name and a value: .equ NAME VALUE");
        }
        define(symbols, parts[0], eval(parts[1], symbols, sourceName, lineNo), sourceName, lineNo);
      } else {
        index++;
      }
    }
    // Labels are program-relative in pass 1; make them absolute.
    for (int i = 0; i < lines.length; i++) {
      String line = strip(lines[i]);
      if (line.endsWith(":")) {
        String name = line.substring(0, line.length() - 1).trim();
        symbols.put(name, symbols.get(name) + origin);
      }
    }
    Program.Builder b = Program.builder();
    List<Segment> data = new java.util.ArrayList<>();
    for (int i = 0; i < lines.length; i++) {
      String line = strip(lines[i]);
      if (DataDirectives.matches(line)) {
        data.add(DataDirectives.segment(line, symbols, sourceName, i + 1));
        continue;
      }
      if (line.isEmpty() || line.endsWith(":") || line.startsWith(".org") || line.startsWith(".equ")
          || line.matches("[A-Za-z_]\\w*\\s*=.*")) {
        continue;
      }
      command(b, line, symbols, sourceName, i + 1);
    }
    return new Assembled(b.build(), origin, Map.copyOf(symbols), List.copyOf(data));
  }

  private static void command(Program.Builder b, String line, Map<String, Long> symbols, String src, int lineNo) {
    String[] tokens = line.split("\\s+");
    String mnemonic = tokens[0].toLowerCase(Locale.ROOT);
    if (mnemonic.equals(".raw")) {
      if (tokens.length != 1 + CommandCodec.WORDS) {
        throw new AssemblyException(src, lineNo, ".raw needs " + CommandCodec.WORDS + " words, got " + (tokens.length - 1));
      }
      int[] w = new int[CommandCodec.WORDS];
      for (int k = 0; k < w.length; k++) {
        w[k] = (int) eval(tokens[k + 1], symbols, src, lineNo);
      }
      b.raw(w);
      return;
    }
    Opcode op = Opcode.fromMnemonic(mnemonic).orElseThrow(() -> new AssemblyException(src, lineNo,
        "unknown command '" + tokens[0] + "'; commands: " + String.join(", ", OPERANDS.keySet().stream()
            .map(Opcode::mnemonic).toList()) + ", .raw"));
    List<String> names = new ArrayList<>(OPERANDS.get(op));
    Map<String, Long> optional = OPTIONAL.getOrDefault(op, Map.of());
    names.addAll(optional.keySet());
    Map<String, Long> values = new HashMap<>(0);
    for (int k = 1; k < tokens.length; k++) {
      int eq = tokens[k].indexOf('=');
      String name = eq < 0 ? tokens[k] : tokens[k].substring(0, eq);
      if (eq < 0 || !names.contains(name)) {
        throw new AssemblyException(src, lineNo, "'" + tokens[k] + "' is not an operand of " + op.mnemonic()
            + "; operands: " + (names.isEmpty() ? "none" : String.join("=, ", names) + "="));
      }
      if (values.put(name, eval(tokens[k].substring(eq + 1), symbols, src, lineNo)) != null) {
        throw new AssemblyException(src, lineNo, "operand " + name + " given twice");
      }
    }
    List<String> missing = new ArrayList<>();
    long[] v = new long[names.size()];
    for (int k = 0; k < names.size(); k++) {
      Long value = values.getOrDefault(names.get(k), optional.get(names.get(k)));
      if (value == null) {
        missing.add(names.get(k));
      } else {
        v[k] = value;
      }
    }
    if (!missing.isEmpty()) {
      throw new AssemblyException(src, lineNo, op.mnemonic() + " is missing " + String.join(", ", missing));
    }
    try {
      switch (op) {
        case LOAD -> b.load(v[0], v[1], v[2], v[3], v[4], v[5]);
        case STORE -> b.store(v[0], v[1], v[2], v[3], v[4], v[5]);
        case GEMM -> b.add(new Command.Gemm(v[0], v[1], v[2], v[3], v[4], v[5], v[6], v[7], v[8], v[9], v[10],
            v[11], v[12], v[13], v[14], v[15]));
        case PPMCFG -> b.ppmCfg(v[0], v[1], v[2], v[3]);
        case PPUTAB -> b.ppuTab(v[0]);
        case PPM -> b.ppm(v[0], v[1], v[2], v[3], v[4], v[5]);
        case LOAD4 -> b.add(new Command.Load4(v[0], v[1], v[2], v[3], v[4], v[5]));
        case LOADMX -> b.add(new Command.LoadMx(v[0], v[1], v[2], v[3], v[4], v[5], v[6]));
        case DSPTAB -> b.add(new Command.DspTab(v[0]));
        case DSPIN -> b.add(new Command.DspIn(v[0], v[1], v[2], v[3], v[4], v[5], v[6], v[7]));
        case DSPOUT -> b.add(new Command.DspOut(v[0], v[1], v[2], v[3], v[4], v[5], v[6]));
        case DSPRUN -> b.add(new Command.DspRun(v[0], v[1], v[2], new org.llmnpu.isa.dsp.DspRunParameters((int) v[3],
            (int) v[4], (int) v[5], (int) v[6], (int) v[7])));
        case DSPLD -> b.add(new Command.DspLoad(v[0], v[1], v[2]));
        case SNAPSHOT -> b.add(new Command.Snapshot(v[0]));
        case FENCE -> b.fence();
        case HALT -> b.halt();
        default -> throw new IllegalStateException(op.name());
      }
    } catch (IllegalArgumentException e) {
      throw new AssemblyException(src, lineNo, e.getMessage());
    }
  }

  private static void define(Map<String, Long> symbols, String name, long value, String src, int lineNo) {
    if (!name.matches("[A-Za-z_]\\w*")) {
      throw new AssemblyException(src, lineNo, "'" + name + "' is not a name (letters, digits, _)");
    }
    if (symbols.put(name, value) != null) {
      throw new AssemblyException(src, lineNo, "'" + name + "' is defined twice");
    }
  }

  private static String strip(String line) {
    int hash = line.indexOf('#');
    int semi = line.indexOf(';');
    int cut = hash < 0 ? semi : semi < 0 ? hash : Math.min(hash, semi);
    return (cut < 0 ? line : line.substring(0, cut)).trim();
  }

  /** Sum of products of numbers and names. */
  static long eval(String expr, Map<String, Long> symbols, String src, int lineNo) {
    String e = expr.replace(" ", "");
    if (e.isEmpty()) {
      throw new AssemblyException(src, lineNo, "missing value");
    }
    long sum = 0;
    int sign = e.startsWith("-") ? -1 : 1;
    int start = e.startsWith("-") ? 1 : 0;
    for (int i = 0; i <= e.length(); i++) {
      if (i == e.length() || ((e.charAt(i) == '+' || e.charAt(i) == '-') && i > start)) {
        sum += sign * product(e.substring(start, i), symbols, src, lineNo);
        if (i < e.length()) {
          sign = e.charAt(i) == '+' ? 1 : -1;
        }
        start = i + 1;
      }
    }
    return sum;
  }

  private static long product(String term, Map<String, Long> symbols, String src, int lineNo) {
    long p = 1;
    for (String f : term.split("\\*")) {
      p *= atom(f, symbols, src, lineNo);
    }
    return p;
  }

  private static long atom(String a, Map<String, Long> symbols, String src, int lineNo) {
    try {
      if (a.startsWith("0x") || a.startsWith("0X")) {
        return Long.parseLong(a.substring(2).replace("_", ""), 16);
      }
      if (!a.isEmpty() && Character.isDigit(a.charAt(0))) {
        return Long.parseLong(a.replace("_", ""));
      }
    } catch (NumberFormatException ex) {
      throw new AssemblyException(src, lineNo, "'" + a + "' is not a number");
    }
    Long v = symbols.get(a);
    if (v == null) {
      throw new AssemblyException(src, lineNo, "'" + a + "' is not defined (constants must be defined before use)");
    }
    return v;
  }
}
