package org.llmnpu.hdl;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/** Parses one module header into a {@link VerilogHeader}; what it accepts is listed there. */
final class HeaderParser {
  private static final Set<String> NET_TYPES = Set.of("wire", "reg", "logic");
  private final VerilogTokens tokens;
  private final String module;
  private final Map<String, String> parameters = new LinkedHashMap<>();
  private final List<VerilogHeader.PortDecl> ports = new ArrayList<>();

  HeaderParser(String file, VerilogTokens tokens, String module) {
    this.tokens = tokens;
    this.module = module;
  }

  VerilogHeader parse() {
    if (!tokens.seekModule(module)) {
      throw new IllegalArgumentException(tokens.file() + " has no module `" + module + "`");
    }
    next();  // module
    next();  // its name
    if (accept("#")) {
      expect("(");
      parameterList();
    }
    if (accept("(")) {
      portList();
    }
    expect(";");
    return new VerilogHeader(tokens.file(), module, java.util.Collections.unmodifiableMap(parameters),
        List.copyOf(ports));
  }

  private void parameterList() {
    if (accept(")")) {
      return;
    }
    do {
      accept("parameter");
      VerilogTokens.Token t = tokens.peek();
      if (t != null && (t.text().equals("real") || t.text().equals("string") || t.text().equals("type"))) {
        throw refuse(t, t.text() + " parameters are not supported");
      }
      accept("integer");
      accept("int");
      accept("signed");
      accept("unsigned");
      if (accept("[")) {
        expression("]");
      }
      String name = identifier("parameter name");
      expect("=");
      parameters.put(name, expression(",", ")"));
    } while (accept(","));
    expect(")");
  }

  private void portList() {
    if (accept(")")) {
      return;
    }
    Boolean output = null;
    boolean signed = false;
    String msb = null;
    String lsb = null;
    do {
      VerilogTokens.Token t = tokens.peek();
      String word = t == null ? "" : t.text();
      if (word.equals("inout")) {
        throw refuse(t, "inout ports are not supported");
      }
      if (word.equals("input") || word.equals("output")) {
        next();
        output = word.equals("output");
        if (tokens.peek() != null && NET_TYPES.contains(tokens.peek().text())) {
          next();
        }
        signed = accept("signed");
        msb = null;
        lsb = null;
        if (accept("[")) {
          msb = expression(":");
          expect(":");
          lsb = expression("]");
          expect("]");
        }
      } else if (output == null) {
        throw refuse(t, "the port list is not ANSI (`" + word + "` has no direction; ports declared in the "
            + "module's body are not supported)");
      }
      String name = identifier("port name");
      if (tokens.peek() != null && tokens.peek().text().equals("[")) {
        throw refuse(tokens.peek(), "port `" + name + "` has an unpacked dimension; not supported");
      }
      ports.add(new VerilogHeader.PortDecl(name, output, signed, msb, lsb));
    } while (accept(","));
    expect(")");
  }

  /** The tokens up to (not including) one of {@code ends} at bracket depth 0, joined by spaces. */
  private String expression(String... ends) {
    List<String> parts = new ArrayList<>();
    int depth = 0;
    while (true) {
      VerilogTokens.Token t = tokens.peek();
      if (t == null) {
        throw new IllegalArgumentException(tokens.file() + ": module " + module + ": header ends inside an "
            + "expression");
      }
      if (depth == 0 && List.of(ends).contains(t.text())) {
        break;
      }
      if (t.text().equals("(") || t.text().equals("[") || t.text().equals("{")) {
        depth++;
      } else if (t.text().equals(")") || t.text().equals("]") || t.text().equals("}")) {
        depth--;
      }
      parts.add(next().text());
    }
    if (parts.isEmpty()) {
      throw refuse(tokens.peek(), "expression expected");
    }
    return String.join(" ", parts);
  }

  private String identifier(String what) {
    VerilogTokens.Token t = next();
    if (t == null || !(Character.isLetter(t.text().charAt(0)) || t.text().charAt(0) == '_')) {
      throw refuse(t, what + " expected");
    }
    return t.text();
  }

  private boolean accept(String text) {
    VerilogTokens.Token t = tokens.peek();
    if (t != null && t.text().equals(text)) {
      next();
      return true;
    }
    return false;
  }

  private void expect(String text) {
    VerilogTokens.Token t = next();
    if (t == null || !t.text().equals(text)) {
      throw refuse(t, "`" + text + "` expected");
    }
  }

  private VerilogTokens.Token next() {
    return tokens.next();
  }

  private IllegalArgumentException refuse(VerilogTokens.Token at, String message) {
    String found = at == null ? "end of file" : "`" + at.text() + "`";
    return tokens.error(at == null ? 0 : at.line(), "module " + module + ": " + message + " (found " + found
        + "); the importer reads ANSI headers only, see VerilogHeader");
  }
}
