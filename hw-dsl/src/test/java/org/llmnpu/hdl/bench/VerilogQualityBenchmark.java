package org.llmnpu.hdl.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import org.llmnpu.hdl.SynthesisProbe;
import org.llmnpu.hdl.bench.HandWrittenArray.PeForm;
import org.llmnpu.hdl.emit.Verilog;
import org.llmnpu.hdl.emit.VerilogDesign;
import org.llmnpu.hdl.emit.VerilogDesign.PortInfo;
import org.llmnpu.hdl.examples.MacArrayExample;
import org.llmnpu.hdl.gen.BlockGenerator;
import org.llmnpu.hdl.gen.BlockRegistry;
import org.llmnpu.hdl.gen.Params;

/**
 * The Verilog quality goal measured in one run: simulation speed in Verilator and area after Yosys
 * synthesis onto osu018, side by side, of the generated Verilog against a reference. The reference
 * of the N x N weight-stationary INT8 PE array ({@link MacArrayExample}) is the same array written
 * by hand ({@code psumOut <= psumIn + actIn * weight}, signed 8-bit operands); the goal there is
 * speed >= 1.00x and area <= 1.02x. A registered block named {@code block=dir} is compared with
 * the Verilog of the same block (default parameters) that an earlier build wrote into {@code dir}
 * (its filelist {@code <top>.f} and files); the goal there is speed >= 1.00x and area <= 1.00x.
 *
 * <p>Speed: both models are driven with the same pseudo-random inputs and must give the same
 * outputs on every cycle ({@link SpeedRig}); each round runs both on one pinned CPU, alternating
 * which goes first, and the speed ratio is the median over rounds of the reference's CPU time over
 * the generated one's, so load that other processes put on a shared machine cancels out.
 *
 * <p>Run after {@code mvn -q -pl npu-rtl -am test-compile} (npu-rtl's classes on the class path
 * only for its blocks): {@code java -cp <classes> org.llmnpu.hdl.bench.VerilogQualityBenchmark
 * [--n 16] [--area-n N] [--cycles 200000] [--rounds 7] [--no-area] [--no-array] [--cxx-opt -O1]
 * [--area-per-module] [block=dir ...]}; {@code --cxx-opt} compiles the models' C++ at another level than
 * verilator-harness's -O1; {@code --area-per-module} synthesizes each module once instead of the flattened design.
 */
public final class VerilogQualityBenchmark {
  private VerilogQualityBenchmark() {
  }

  /** One comparison's result. */
  private record Row(String design, String reference, double speed, double area, double refArea, double genArea,
                     double areaLimit) {
    boolean met() {
      return speed >= 1.0 && (Double.isNaN(area) || area <= areaLimit);
    }
  }

  public static void main(String[] args) throws IOException {
    int n = 16;
    int areaN = -1;
    long cycles = 200_000;
    int rounds = 7;
    boolean area = true;
    boolean array = true;
    String cxxOpt = SpeedRig.HARNESS_CXX_OPT;
    boolean flatten = true;
    List<String> blocks = new ArrayList<>();
    for (int i = 0; i < args.length; i++) {
      switch (args[i]) {
        case "--n" -> n = Integer.parseInt(args[++i]);
        case "--area-n" -> areaN = Integer.parseInt(args[++i]);
        case "--cycles" -> cycles = Long.parseLong(args[++i]);
        case "--rounds" -> rounds = Integer.parseInt(args[++i]);
        case "--no-area" -> area = false;
        case "--no-array" -> array = false;
        case "--cxx-opt" -> cxxOpt = args[++i];
        case "--area-per-module" -> flatten = false;
        default -> {
          if (!args[i].contains("=")) {
            throw new IllegalArgumentException("unknown argument " + args[i] + "; allowed: --n, --area-n, --cycles, "
                + "--rounds, --no-area, --no-array, --cxx-opt, --area-per-module, block=dir");
          }
          blocks.add(args[i]);
        }
      }
    }
    areaN = areaN < 0 ? n : areaN;
    Path work = Files.createTempDirectory("llmnpu-quality");
    System.out.printf("work directory %s; Verilator %s, C++ %s; %d cycles per run, %d rounds%n", work,
        String.join(" ", SpeedRig.VERILATOR_OPTIONS), cxxOpt, cycles, rounds);
    List<Row> rows = new ArrayList<>();
    if (array) {
      VerilogDesign gen = Verilog.emit(new MacArrayExample(new MacArrayExample.Config(n, n)));
      VerilogDesign hand = HandWrittenArray.of(n, PeForm.SIGNED, gen.top());
      String label = n + "x" + n + " INT8 PE array";
      double speed = speed(label, hand, gen, gen.ports(), work.resolve("array"), cxxOpt, cycles, rounds);
      double[] areas = {Double.NaN, Double.NaN};
      if (area) {
        VerilogDesign genA = areaN == n ? gen : Verilog.emit(new MacArrayExample(new MacArrayExample.Config(areaN,
            areaN)));
        areas = areas(areaN + "x" + areaN + " INT8 PE array", HandWrittenArray.of(areaN, PeForm.SIGNED, genA.top()),
            genA, work.resolve("array-area"), flatten);
      }
      rows.add(new Row(label, "hand-written", speed, areas[1] / areas[0], areas[0], areas[1], 1.02));
    }
    for (String spec : blocks) {
      String[] kv = spec.split("=", 2);
      BlockGenerator g = BlockRegistry.find(kv[0]);
      VerilogDesign gen = Verilog.emit(g.build(Params.resolve(g, Map.of())));
      VerilogDesign before = VerilatorSpeedBenchmark.fromDirectory(gen.top(), Path.of(kv[1]));
      double speed = speed(kv[0], before, gen, gen.ports(), work.resolve(kv[0]), cxxOpt, cycles, rounds);
      double[] areas = area ? areas(kv[0], before, gen, work.resolve(kv[0] + "-area"), flatten) : new double[] {Double.NaN,
          Double.NaN};
      rows.add(new Row(kv[0] + " (" + gen.top() + ")", "earlier build", speed, areas[1] / areas[0], areas[0], areas[1],
          1.0));
    }
    System.out.printf("%nsummary (speed: reference CPU time / generated, median of %d rounds; area: generated / "
        + "reference)%n", rounds);
    System.out.printf("%-58s %-14s %8s %14s %14s %8s %6s%n", "design", "reference", "speed", "ref [um^2]",
        "gen [um^2]", "area", "goal");
    for (Row r : rows) {
      System.out.printf("%-58s %-14s %7.3fx %14.0f %14.0f %7.3fx %6s%n", r.design(), r.reference(), r.speed(),
          r.refArea(), r.genArea(), r.area(), r.met() ? "met" : "MISSED");
    }
  }

  /** Median over rounds of the reference's CPU time over the generated design's; prints each round. */
  private static double speed(String label, VerilogDesign reference, VerilogDesign gen, List<PortInfo> ports, Path dir,
      String cxxOpt, long cycles, int rounds) {
    System.out.printf("%n%s: speed%n", label);
    SpeedRig ref = SpeedRig.build("reference", reference, ports, dir.resolve("reference"), cxxOpt);
    SpeedRig now = SpeedRig.build("generated", gen, ports, dir.resolve("generated"), cxxOpt);
    int cpu = Runtime.getRuntime().availableProcessors() - 1;
    double[] ratios = new double[rounds];
    String hash = null;
    for (int r = 0; r < rounds; r++) {
      SpeedRig.Run a;
      SpeedRig.Run b;
      if (r % 2 == 0) {
        a = ref.run(cycles, cpu);
        b = now.run(cycles, cpu);
      } else {
        b = now.run(cycles, cpu);
        a = ref.run(cycles, cpu);
      }
      if (!a.hash().equals(b.hash()) || hash != null && !hash.equals(a.hash())) {
        throw new IllegalStateException(label + ": outputs differ (reference hash " + a.hash() + ", generated "
            + b.hash() + ")");
      }
      hash = a.hash();
      ratios[r] = a.seconds() / b.seconds();
      System.out.printf("  round %d: reference %.3f s, generated %.3f s, speed %.3fx%n", r + 1, a.seconds(),
          b.seconds(), ratios[r]);
    }
    double[] sorted = ratios.clone();
    Arrays.sort(sorted);
    double median = rounds % 2 == 1 ? sorted[rounds / 2] : (sorted[rounds / 2 - 1] + sorted[rounds / 2]) / 2;
    System.out.printf("  outputs identical on every cycle (hash %s); median speed %.3fx%n", hash, median);
    return median;
  }

  /** Areas of reference and generated design in square micrometres. */
  private static double[] areas(String label, VerilogDesign reference, VerilogDesign gen, Path dir, boolean flatten) {
    System.out.printf("%n%s: Yosys synth%s, dfflibmap + abc onto osu018%n", label, flatten ? " -flatten"
        : " per module, stat -top");
    double ref = SynthesisProbe.area(reference, dir.resolve("reference"), flatten);
    double now = SynthesisProbe.area(gen, dir.resolve("generated"), flatten);
    System.out.printf("  reference %.0f um^2, generated %.0f um^2, ratio %.3f%n", ref, now, now / ref);
    return new double[] {ref, now};
  }
}
