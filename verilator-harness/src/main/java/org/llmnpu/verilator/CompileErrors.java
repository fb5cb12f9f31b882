package org.llmnpu.verilator;

import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Turns Verilator's error output into a message that names the Verilog file:line and,
 * from the emitter's {@code // File.java:line} comments, the Java line that made it.
 */
final class CompileErrors {
  private static final Pattern LOCATION = Pattern.compile("^%Error[^:]*: ([^:\\s]+\\.s?v):(\\d+):(?:\\d+:)? ?(.*)$");
  private static final Pattern JAVA = Pattern.compile("// ([A-Za-z0-9_$]+\\.java:\\d+)");

  private CompileErrors() {
  }

  static String explain(String output, Map<String, String> files) {
    StringBuilder sb = new StringBuilder();
    for (String line : output.split("\n")) {
      Matcher m = LOCATION.matcher(line);
      if (m.matches()) {
        String file = m.group(1);
        int lineNo = Integer.parseInt(m.group(2));
        sb.append(file).append(':').append(lineNo).append(": ").append(m.group(3));
        String java = javaLine(files.get(file), lineNo);
        if (java != null) {
          sb.append(" (generated at ").append(java).append(')');
        }
        sb.append('\n');
      } else if (line.startsWith("%Error") || line.contains("error:")) {
        sb.append(line).append('\n');
      }
    }
    if (sb.length() == 0) {
      String[] lines = output.strip().split("\n");
      int from = Math.max(0, lines.length - 20);
      for (int i = from; i < lines.length; i++) {
        sb.append(lines[i]).append('\n');
      }
    }
    return sb.toString().strip();
  }

  /** The Java location on the given Verilog line, or the nearest one above it. */
  static String javaLine(String text, int lineNo) {
    if (text == null) {
      return null;
    }
    String[] lines = text.split("\n", -1);
    for (int i = Math.min(lineNo, lines.length) - 1; i >= 0 && i >= lineNo - 12; i--) {
      Matcher m = JAVA.matcher(lines[i]);
      if (m.find()) {
        return m.group(1);
      }
    }
    return null;
  }
}
