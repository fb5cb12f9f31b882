package org.llmnpu.hdl;

import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Tokens of a Verilog file for {@link VerilogHeader}, read on demand from the start of one module's header:
 * comments are removed first (line breaks kept, so lines stay true), attributes {@code (* ... *)} and the
 * directives {@code `timescale}, {@code `default_nettype}, {@code `resetall} are skipped, any other directive
 * is an error.
 */
final class VerilogTokens {
  /** One token and the line it is on (1-based). */
  record Token(String text, int line) {
  }

  private static final java.util.Set<String> SKIPPED_DIRECTIVES = java.util.Set.of("timescale", "default_nettype",
      "resetall");
  private final String file;
  private final String text;
  private int pos;

  private VerilogTokens(String file, String text) {
    this.file = file;
    this.text = text;
  }

  static VerilogTokens of(String file, String source) {
    return new VerilogTokens(file, withoutComments(source));
  }

  String file() {
    return file;
  }

  /** Moves to the keyword {@code module} of {@code name}; false when the file has no such module. */
  boolean seekModule(String name) {
    Matcher m = Pattern.compile("(?<![A-Za-z0-9_$])(?:macro)?module\\s+" + Pattern.quote(name) + "(?![A-Za-z0-9_$])")
        .matcher(text);
    if (!m.find()) {
      return false;
    }
    pos = m.start();
    return true;
  }

  /** The next token, or null at the end of the file. */
  Token next() {
    skipBlanks();
    if (pos >= text.length()) {
      return null;
    }
    int line = lineAt(pos);
    char c = text.charAt(pos);
    int start = pos;
    if (Character.isLetter(c) || c == '_' || c == '$') {
      while (pos < text.length() && (Character.isLetterOrDigit(text.charAt(pos)) || text.charAt(pos) == '_'
          || text.charAt(pos) == '$')) {
        pos++;
      }
    } else if (Character.isDigit(c) || c == '\'') {
      while (pos < text.length() && (Character.isLetterOrDigit(text.charAt(pos)) || text.charAt(pos) == '\''
          || text.charAt(pos) == '_')) {
        pos++;
      }
    } else if (c == '"') {
      pos = text.indexOf('"', pos + 1);
      if (pos < 0) {
        throw error(line, "unterminated string");
      }
      pos++;
    } else if (c == '\\') {
      throw error(line, "escaped identifiers are not supported");
    } else if (text.startsWith("**", pos) || text.startsWith("<<", pos) || text.startsWith(">>", pos)) {
      pos += 2;
    } else {
      pos++;
    }
    return new Token(text.substring(start, pos), line);
  }

  /** The next token without consuming it. */
  Token peek() {
    int saved = pos;
    Token t = next();
    pos = saved;
    return t;
  }

  IllegalArgumentException error(int line, String message) {
    return new IllegalArgumentException(file + ":" + line + ": " + message);
  }

  private void skipBlanks() {
    while (pos < text.length()) {
      char c = text.charAt(pos);
      if (Character.isWhitespace(c)) {
        pos++;
      } else if (text.startsWith("(*", pos) && !text.startsWith("(*)", pos)) {
        int end = text.indexOf("*)", pos + 2);
        pos = end < 0 ? text.length() : end + 2;
      } else if (c == '`') {
        int end = pos + 1;
        while (end < text.length() && (Character.isLetterOrDigit(text.charAt(end)) || text.charAt(end) == '_')) {
          end++;
        }
        String directive = text.substring(pos + 1, end);
        if (!SKIPPED_DIRECTIVES.contains(directive)) {
          throw error(lineAt(pos), "directive `" + directive + " is not supported in an imported module's header "
              + "(only `timescale, `default_nettype, `resetall)");
        }
        int eol = text.indexOf('\n', end);
        pos = eol < 0 ? text.length() : eol;
      } else {
        return;
      }
    }
  }

  private int lineAt(int offset) {
    int line = 1;
    for (int i = 0; i < offset; i++) {
      if (text.charAt(i) == '\n') {
        line++;
      }
    }
    return line;
  }

  /** The text with comments replaced by spaces (line breaks kept); strings are left alone. */
  static String withoutComments(String s) {
    StringBuilder out = new StringBuilder(s.length());
    int i = 0;
    while (i < s.length()) {
      char c = s.charAt(i);
      if (c == '"') {
        int end = s.indexOf('"', i + 1);
        end = end < 0 ? s.length() : end + 1;
        out.append(s, i, end);
        i = end;
      } else if (s.startsWith("//", i)) {
        while (i < s.length() && s.charAt(i) != '\n') {
          i++;
        }
      } else if (s.startsWith("/*", i)) {
        int end = s.indexOf("*/", i + 2);
        end = end < 0 ? s.length() : end + 2;
        for (int k = i; k < end; k++) {
          out.append(s.charAt(k) == '\n' ? '\n' : ' ');
        }
        i = end;
      } else {
        out.append(c);
        i++;
      }
    }
    return out.toString();
  }
}
