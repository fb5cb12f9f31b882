package org.llmnpu.hdl;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The header of one module in a Verilog file: its parameters with their default values and its ports with
 * direction, signedness and width, read by a small parser for {@link ImportedVerilog}.
 *
 * <p>Accepted, and nothing else: comments ({@code //}, {@code /* *}{@code /}), attributes {@code (* ... *)},
 * the directives {@code `timescale}, {@code `default_nettype}, {@code `resetall} anywhere in the file; a header
 * {@code module NAME #(parameter [integer|signed] [range] P = expr, ...) (PORTS);} with an ANSI port list whose
 * entries are {@code input|output [wire|reg|logic] [signed] [[msb:lsb]] name, ...} (a name without a direction
 * takes the previous entry's). Expressions in ranges and defaults are integers over numbers (decimal or sized
 * {@code 8'hff}), earlier parameters, {@code + - * / % ** << >>}, unary minus, parentheses and {@code $clog2}.
 * Refused with a message that names the file, the module and the construct: other directives before or inside
 * the header, non-ANSI port lists, {@code inout}, unpacked dimensions, interface or struct ports, string or real
 * parameters used in a width. The module's body is not read (Verilator and Yosys read the whole file).
 */
public record VerilogHeader(String file, String module, Map<String, String> parameterDefaults, List<PortDecl> ports) {
  /** A port as written: its width expressions are evaluated by {@link #resolve}. */
  public record PortDecl(String name, boolean output, boolean signed, String msb, String lsb) {
  }

  /** A port with its width for given parameter values. */
  public record Port(String name, boolean output, boolean signed, int width) {
  }

  /** Reads the header of {@code module} from {@code text} (the contents of {@code file}). */
  public static VerilogHeader parse(String file, String text, String module) {
    return new HeaderParser(file, VerilogTokens.of(file, text), module).parse();
  }

  /**
   * The parameter values of an instance: the defaults, overridden by {@code overrides} (each name must be a
   * parameter of the module); integers only where a width needs them.
   */
  public Map<String, Long> parameterValues(Map<String, ?> overrides) {
    for (String name : overrides.keySet()) {
      if (!parameterDefaults.containsKey(name)) {
        throw new IllegalArgumentException(where() + " has no parameter `" + name + "`; its parameters are "
            + (parameterDefaults.isEmpty() ? "none" : String.join(", ", parameterDefaults.keySet())));
      }
    }
    Map<String, Long> values = new LinkedHashMap<>();
    for (Map.Entry<String, String> p : parameterDefaults.entrySet()) {
      Object given = overrides.get(p.getKey());
      if (given == null) {
        Long v = HeaderExpr.tryEvaluate(p.getValue(), values);
        if (v != null) {
          values.put(p.getKey(), v);
        }
      } else if (given instanceof Number n) {
        values.put(p.getKey(), n.longValue());
      } else if (given instanceof Boolean b) {
        values.put(p.getKey(), b ? 1L : 0L);
      }
    }
    return values;
  }

  /** The ports with their widths for the given parameter values (see {@link #parameterValues}). */
  public List<Port> resolve(Map<String, ?> overrides) {
    Map<String, Long> values = parameterValues(overrides);
    List<Port> out = new ArrayList<>();
    for (PortDecl d : ports) {
      int width = 1;
      if (d.msb() != null) {
        long msb = evaluate(d.msb(), values, d.name());
        long lsb = evaluate(d.lsb(), values, d.name());
        if (lsb != 0 || msb < 0) {
          throw new IllegalArgumentException(where() + ": port `" + d.name() + "` has range [" + msb + ":" + lsb
              + "]; only [w-1:0] ranges are supported");
        }
        width = Math.toIntExact(msb + 1);
      }
      out.add(new Port(d.name(), d.output(), d.signed(), width));
    }
    return out;
  }

  private long evaluate(String expr, Map<String, Long> values, String port) {
    try {
      return HeaderExpr.evaluate(expr, values);
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException(where() + ": width of port `" + port + "`: " + e.getMessage(), e);
    }
  }

  private String where() {
    return "module " + module + " (" + file + ")";
  }
}
