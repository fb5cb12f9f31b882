package org.llmnpu.reports.activity;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Switching activity of every signal bit of a simulated run, read from the VCD file the
 * Verilator harness writes ({@code SimOptions.Waves.VCD}).
 *
 * <p>For each bit: the number of toggles (0→1 or 1→0; changes to or from X/Z are not
 * toggles) and the time it spent at 1. Activity is toggles per clock cycle, the unit
 * OpenSTA's {@code set_power_activity -activity} takes; duty is the fraction of the dumped
 * time at 1. Cycles are the rising edges of the clock port seen in the file (a run whose
 * dumping was paused counts only the dumped cycles).
 *
 * <p>Names are relative to the design's top module, scopes joined by {@code .}, bits as
 * {@code name[i]} (one-bit signals without index): {@code count[2]}, {@code pe_0_1.psum_q[31]}.
 *
 * @param top    the top module's name (the scope below Verilator's {@code TOP})
 * @param cycles rising edges of the clock
 * @param bits   per bit: toggles and time at one, in file order of declaration
 */
public record SimulatedActivity(String top, long cycles, long duration, Map<String, BitStats> bits) {

  /** One bit's counts over the run. */
  public record BitStats(long toggles, long timeHigh) {
  }

  public SimulatedActivity {
    bits = Collections.unmodifiableMap(new TreeMap<>(bits));
  }

  /** Toggles per clock cycle of {@code bit}, or -1 when the run did not have it. */
  public double activity(String bit) {
    BitStats b = bits.get(bit);
    return b == null || cycles == 0 ? -1 : (double) b.toggles() / cycles;
  }

  /** Fraction of the run {@code bit} was 1, or -1 when unknown. */
  public double duty(String bit) {
    BitStats b = bits.get(bit);
    return b == null || duration == 0 ? -1 : (double) b.timeHigh() / duration;
  }

  /** Mean activity over the given bits that the run had (NaN if none). */
  public double meanActivity(Iterable<String> names) {
    double sum = 0;
    int n = 0;
    for (String s : names) {
      double a = activity(s);
      if (a >= 0) {
        sum += a;
        n++;
      }
    }
    return n == 0 ? Double.NaN : sum / n;
  }

  /**
   * Reads a VCD file. {@code clock} names the clock port of the top module.
   *
   * @throws IllegalArgumentException if the file is not a VCD of a Verilator run or has no
   *     edge of the clock
   */
  public static SimulatedActivity read(Path vcd, String clock) {
    try (BufferedReader in = Files.newBufferedReader(vcd, StandardCharsets.US_ASCII)) {
      return new Reader(vcd, clock).read(in);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read the VCD " + vcd + ": " + e.getMessage(), e);
    }
  }

  /** One VCD variable: a signal with its width and least-significant index. */
  private record Var(String name, int width, int lsb, boolean ranged, boolean descending) {
    String bit(int i) { // i: position from the least significant bit
      if (!ranged) {
        return name;
      }
      return name + "[" + (descending ? lsb + i : lsb - i) + "]";
    }
  }

  /** The state of one identifier code (all variables that share it see the same values). */
  private static final class Code {
    final List<Var> vars = new ArrayList<>();
    int width;
    char[] value; // index 0 = least significant bit
    long[] toggles;
    long[] high;
    long[] since; // time the bit last became 1
  }

  private static final class Reader {
    private final Path file;
    private final String clock;
    private final Map<String, Code> codes = new HashMap<>();
    private final List<String> scope = new ArrayList<>();
    private String top;
    private Code clockCode;
    private long time;
    private long start = -1;
    private long cycles;

    Reader(Path file, String clock) {
      this.file = file;
      this.clock = clock;
    }

    SimulatedActivity read(BufferedReader in) throws IOException {
      StringBuilder header = new StringBuilder();
      String line;
      boolean body = false;
      while ((line = in.readLine()) != null) {
        if (!body) {
          header.append(line).append(' ');
          if (line.contains("$enddefinitions")) {
            definitions(header.toString());
            body = true;
          }
          continue;
        }
        for (String tok : line.trim().split("\\s+")) {
          if (!tok.isEmpty()) {
            token(tok);
          }
        }
      }
      if (!body || top == null) {
        throw new IllegalArgumentException(file + " is not a VCD of a Verilator run (no $enddefinitions or top scope)");
      }
      if (clockCode == null) {
        throw new IllegalArgumentException(file + ": the top module " + top + " has no clock port '" + clock + "'");
      }
      if (cycles == 0) {
        throw new IllegalArgumentException(file + ": the clock '" + clock + "' never rose; no cycle was dumped");
      }
      Map<String, BitStats> out = new HashMap<>();
      for (Code c : codes.values()) {
        for (int i = 0; i < c.width; i++) {
          long high = c.high[i] + (c.value[i] == '1' ? time - c.since[i] : 0);
          for (Var v : c.vars) {
            out.put(v.bit(i), new BitStats(c.toggles[i], high));
          }
        }
      }
      return new SimulatedActivity(top, cycles, Math.max(0, time - Math.max(start, 0)), out);
    }

    private String pendingVectorValue;

    private void token(String tok) {
      if (pendingVectorValue != null) {
        change(tok, pendingVectorValue);
        pendingVectorValue = null;
        return;
      }
      char c0 = tok.charAt(0);
      switch (c0) {
        case '#' -> {
          time = Long.parseLong(tok.substring(1));
          if (start < 0) {
            start = time;
          }
        }
        case 'b', 'B' -> pendingVectorValue = tok.substring(1);
        case 'r', 'R' -> pendingVectorValue = null; // real values: not logic, ignored (next token is the code)
        case '$' -> { } // $dumpvars, $end, $dumpoff, ...: the values inside are ordinary changes
        case '0', '1', 'x', 'X', 'z', 'Z' -> change(tok.substring(1), String.valueOf(c0));
        default -> { }
      }
    }

    private void change(String id, String value) {
      Code c = codes.get(id);
      if (c == null) {
        return;
      }
      String v = value.toLowerCase();
      for (int i = 0; i < c.width; i++) {
        int k = v.length() - 1 - i;
        char b = k >= 0 ? v.charAt(k) : (v.charAt(0) == '1' ? '0' : v.charAt(0)); // VCD left-extension
        char old = c.value[i];
        if (old == b) {
          continue;
        }
        if ((old == '0' && b == '1') || (old == '1' && b == '0')) {
          c.toggles[i]++;
        }
        if (old == '1') {
          c.high[i] += time - c.since[i];
        }
        if (b == '1') {
          c.since[i] = time;
        }
        c.value[i] = b;
        if (c == clockCode && i == 0 && old == '0' && b == '1') {
          cycles++;
        }
      }
    }

    private void definitions(String text) {
      String[] t = text.trim().split("\\s+");
      for (int i = 0; i < t.length; i++) {
        switch (t[i]) {
          case "$scope" -> {
            scope.add(t[i + 2]);
            if (scope.size() == 2 && top == null) {
              top = t[i + 2];
            }
            i += 3;
          }
          case "$upscope" -> {
            scope.remove(scope.size() - 1);
            i += 1;
          }
          case "$var" -> {
            int width = Integer.parseInt(t[i + 2]);
            String id = t[i + 3];
            String name = t[i + 4];
            String range = t[i + 5].startsWith("[") ? t[i + 5] : null;
            addVar(id, width, name, range);
            i += range == null ? 5 : 6;
          }
          default -> { }
        }
      }
    }

    private void addVar(String id, int width, String name, String range) {
      if (scope.isEmpty() || (scope.size() > 1 && !scope.get(1).equals(top))) {
        return;
      }
      // TOP scope holds the ports; TOP.<top>.<instances> hold the design's signals
      String path = scope.size() <= 2 ? name : String.join(".", scope.subList(2, scope.size())) + "." + name;
      int lsb = 0;
      boolean descending = true;
      if (range != null) {
        String[] r = range.substring(1, range.length() - 1).split(":");
        int msb = Integer.parseInt(r[0]);
        lsb = r.length > 1 ? Integer.parseInt(r[1]) : msb;
        descending = msb >= lsb;
      }
      Code c = codes.computeIfAbsent(id, k -> new Code());
      if (c.value == null) {
        c.width = width;
        c.value = new char[width];
        java.util.Arrays.fill(c.value, 'x');
        c.toggles = new long[width];
        c.high = new long[width];
        c.since = new long[width];
      }
      c.vars.add(new Var(path, width, lsb, range != null, descending));
      if (scope.size() == 1 && name.equals(clock) && width == 1) {
        clockCode = c;
      }
    }
  }
}
