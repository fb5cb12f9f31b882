package org.llmnpu.hdl.bench;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.zip.GZIPInputStream;
import org.llmnpu.hdl.bench.HandWrittenArray.PeForm;
import org.llmnpu.hdl.emit.Verilog;
import org.llmnpu.hdl.emit.VerilogDesign;
import org.llmnpu.hdl.emit.VerilogDesign.PortInfo;
import org.llmnpu.hdl.examples.MacArrayExample;
import org.llmnpu.hdl.gen.BlockGenerator;
import org.llmnpu.hdl.gen.BlockRegistry;
import org.llmnpu.hdl.gen.Params;

/**
 * Verilator speed (and, with {@code --area}, Yosys area) of the emitted Verilog against
 * hand-written Verilog of the same design and against other forms of the emission: a 16x16
 * weight-stationary INT8 PE array ({@link MacArrayExample}) in every form, all driven with the
 * same pseudo-random inputs and required to give the same outputs on every cycle, runs
 * interleaved round by round on one pinned CPU. Extra arguments {@code block=dir} also compare
 * a registered block (default parameters) with the Verilog of the same block in {@code dir}
 * written by an earlier build, e.g. {@code gemm-engine=/tmp/old/gemm-engine}.
 *
 * <p>Run after {@code mvn -q -pl hw-dsl -am test-compile} (add npu-rtl's classes to the class
 * path for its blocks): {@code java -cp <classes> org.llmnpu.hdl.bench.VerilatorSpeedBenchmark
 * [--cycles N] [--rounds R] [--area] [--blocks-only] [block=dir ...]}; {@code --blocks-only} skips
 * the PE array.
 */
public final class VerilatorSpeedBenchmark {
  private VerilatorSpeedBenchmark() {
  }

  /** One form of the design; {@code area}: also synthesized with {@code --area}. */
  private record Variant(String label, VerilogDesign design, boolean area) {
  }

  public static void main(String[] args) throws IOException {
    long cycles = 200_000;
    int rounds = 5;
    boolean area = false;
    boolean array = true;
    List<String> blocks = new ArrayList<>();
    for (int i = 0; i < args.length; i++) {
      switch (args[i]) {
        case "--cycles" -> cycles = Long.parseLong(args[++i]);
        case "--rounds" -> rounds = Integer.parseInt(args[++i]);
        case "--area" -> area = true;
        case "--blocks-only" -> array = false;
        default -> blocks.add(args[i]);
      }
    }
    Path work = Files.createTempDirectory("llmnpu-speed");
    System.out.println("work directory " + work + "; Verilator " + String.join(" ", SpeedRig.VERILATOR_OPTIONS));
    if (array) {
      int n = 16;
      VerilogDesign emitted = Verilog.emit(new MacArrayExample(new MacArrayExample.Config(n, n)));
      System.out.printf("%n%dx%d INT8 PE array, %d cycles per run, %d rounds%n", n, n, cycles, rounds);
      compare(arrayVariants(n, emitted), emitted.ports(), work.resolve("array"), cycles, rounds);
    }
    if (area) {
      int a = 8;
      VerilogDesign small = Verilog.emit(new MacArrayExample(new MacArrayExample.Config(a, a)));
      System.out.printf("%n%dx%d INT8 PE array, Yosys synth -flatten + abc on osu018%n", a, a);
      System.out.printf("%-52s %14s %8s%n", "form", "area [um^2]", "ratio");
      double base = 0;
      for (Variant v : arrayVariants(a, small)) {
        if (!v.area()) {
          continue;
        }
        double um2 = org.llmnpu.hdl.SynthesisProbe.area(v.design(), work.resolve("area").resolve(slug(v.label())));
        base = base == 0 ? um2 : base;
        System.out.printf("%-52s %14.0f %8.3f%n", v.label(), um2, um2 / base);
      }
    }
    for (String spec : blocks) {
      String[] kv = spec.split("=", 2);
      BlockGenerator g = BlockRegistry.find(kv[0]);
      VerilogDesign now = Verilog.emit(g.build(Params.resolve(g, Map.of())));
      VerilogDesign before = fromDirectory(now.top(), Path.of(kv[1]));
      System.out.printf("%n%s (%s), %d cycles per run, %d rounds%n", kv[0], now.top(), cycles, rounds);
      compare(List.of(new Variant("earlier build (" + kv[1] + ")", before, false), new Variant("this build", now, false)),
          now.ports(), work.resolve(kv[0]), cycles, rounds);
    }
  }

  private static List<Variant> arrayVariants(int n, VerilogDesign emitted) {
    String top = emitted.top();
    return List.of(
        new Variant("hand-written: signed ports, p + a*w", HandWrittenArray.of(n, PeForm.SIGNED, top), true),
        new Variant("hand-written: unsigned, sign extension written out",
            HandWrittenArray.of(n, PeForm.EXPLICIT_16, top), true),
        new Variant("hw-dsl before: 16-bit a*w on signed wires", legacy(top), true),
        new Variant("hw-dsl now", emitted, true),
        new Variant("variant: 16-bit $signed(a)*$signed(w)",
            peProduct(emitted, "wire signed [15:0] _psum_q_mul = $signed(actIn) * $signed(weight);",
                "psumIn + {{16{_psum_q_mul[15]}}, _psum_q_mul}"), false),
        new Variant("hw-dsl until 2026-12-03: sign extension written out",
            peProduct(emitted, "wire signed [15:0] _psum_q_mul = {{8{actIn[7]}}, actIn} * {{8{weight[7]}}, weight};",
                "psumIn + {{16{_psum_q_mul[15]}}, _psum_q_mul}"), true),
        new Variant("variant: 32-bit $signed product inline", peProduct(emitted, "",
            "psumIn + $signed({{24{actIn[7]}}, actIn}) * $signed({{24{weight[7]}}, weight})"), false));
  }

  /**
   * The emitted array with the PE's product declaration replaced by {@code declaration} (none
   * when empty) and the accumulator's next value by {@code next}: other forms the emitter
   * could write for the same multiply-accumulate.
   */
  private static VerilogDesign peProduct(VerilogDesign d, String declaration, String next) {
    String pe = d.files().get("MacPe.v");
    String[] lines = pe.split("\n", -1);
    StringBuilder out = new StringBuilder();
    int replaced = 0;
    for (String line : lines) {
      if (line.contains(" _psum_q_mul = ")) {
        replaced++;
        if (!declaration.isEmpty()) {
          out.append("  ").append(declaration).append('\n');
        }
      } else if (line.contains("psum_q <= ")) {
        replaced++;
        out.append("    psum_q <= ").append(next).append(";\n");
      } else {
        out.append(line).append('\n');
      }
    }
    if (replaced != 2) {
      throw new IllegalStateException("MacPe.v no longer has the product and accumulator lines:\n" + pe);
    }
    Map<String, String> files = new LinkedHashMap<>(d.files());
    files.put("MacPe.v", out.substring(0, out.length() - 1));
    return new VerilogDesign(d.top(), files, d.memories(), d.ports());
  }

  private static void compare(List<Variant> variants, List<PortInfo> ports, Path dir, long cycles, int rounds) {
    List<SpeedRig> rigs = new ArrayList<>();
    for (Variant v : variants) {
      rigs.add(SpeedRig.build(v.label(), v.design(), ports, dir.resolve(slug(v.label()))));
    }
    double[][] times = new double[variants.size()][rounds];
    String[] hashes = new String[variants.size()];
    int cpu = Runtime.getRuntime().availableProcessors() - 1;
    for (int r = 0; r < rounds; r++) {
      for (int i = 0; i < rigs.size(); i++) {
        SpeedRig.Run run = rigs.get(i).run(cycles, cpu);
        times[i][r] = run.seconds();
        if (hashes[i] != null && !hashes[i].equals(run.hash())) {
          throw new IllegalStateException(variants.get(i).label() + " is not deterministic");
        }
        hashes[i] = run.hash();
      }
    }
    System.out.printf("%-52s %10s %10s %12s %10s%n", "form", "best [s]", "median [s]", "kcycles/s", "speed");
    System.out.println("(seconds of CPU time of the cycle loop, so other load on the machine does not count)");
    double reference = best(times[0]);
    for (int i = 0; i < variants.size(); i++) {
      double best = best(times[i]);
      System.out.printf("%-52s %10.3f %10.3f %12.1f %10.3f%n", variants.get(i).label(), best, median(times[i]),
          cycles / best / 1e3, reference / best);
    }
    for (int i = 1; i < hashes.length; i++) {
      if (!hashes[i].equals(hashes[0])) {
        throw new IllegalStateException("outputs differ: " + variants.get(0).label() + " hash " + hashes[0] + ", "
            + variants.get(i).label() + " hash " + hashes[i]);
      }
    }
    System.out.println("outputs identical on every cycle (hash " + hashes[0] + "); speed is relative to the first row");
  }

  private static double best(double[] t) {
    return Arrays.stream(t).min().orElseThrow();
  }

  private static double median(double[] t) {
    double[] s = t.clone();
    Arrays.sort(s);
    return s[s.length / 2];
  }

  /** The array as the emitter wrote it before this benchmark chose the unsigned form (kept as a file). */
  private static VerilogDesign legacy(String top) {
    String name = "legacy-" + top + ".v.gz";
    try (InputStream in = VerilatorSpeedBenchmark.class.getResourceAsStream(name)) {
      if (in == null) {
        throw new IllegalStateException("no " + name + " next to the benchmark");
      }
      String text = new String(new GZIPInputStream(in).readAllBytes(), StandardCharsets.UTF_8);
      return new VerilogDesign(top, Map.of(top + ".v", text), List.of());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  static VerilogDesign fromDirectory(String top, Path dir) throws IOException {
    Map<String, String> files = new LinkedHashMap<>();
    for (String f : Files.readAllLines(dir.resolve(top + ".f"))) {
      if (!f.isBlank()) {
        files.put(f, Files.readString(dir.resolve(f)));
      }
    }
    return new VerilogDesign(top, files, List.of());
  }

  private static String slug(String label) {
    return label.replaceAll("[^A-Za-z0-9]+", "-").replaceAll("^-|-$", "");
  }
}
