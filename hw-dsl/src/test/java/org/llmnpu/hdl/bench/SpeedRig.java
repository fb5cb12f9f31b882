package org.llmnpu.hdl.bench;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.llmnpu.hdl.emit.VerilogDesign;
import org.llmnpu.hdl.emit.VerilogDesign.PortInfo;
import org.llmnpu.hdl.tools.ExternalTool;

/**
 * A Verilator model of one design driven by a generated C++ loop: every input that is not a
 * clock or reset takes a value from a fixed pseudo-random table each cycle, every output is
 * folded into an FNV-1a hash each cycle. Two designs with the same ports and the same hash
 * computed the same outputs on every cycle; the loop's CPU time (not wall time, which other
 * load on a shared machine inflates) compares their speed. The C++ is compiled at
 * {@link #HARNESS_CXX_OPT}, as verilator-harness compiles every model of the project, unless a
 * benchmark asks for another level (Verilator's own default is -Os, at which gcc does not inline
 * Verilator's signed-multiply helper and the ranking of forms can change).
 */
final class SpeedRig {
  /** Verilator options of every model the benchmarks build. */
  static final List<String> VERILATOR_OPTIONS = List.of("-O3", "--x-assign", "0", "--x-initial", "0");
  /** The C++ optimization verilator-harness builds models with (BuildInputs: OPT_FAST and OPT_SLOW). */
  static final String HARNESS_CXX_OPT = "-O1";
  private static final int TABLE_CYCLES = 4096;

  /** One timed run: CPU time of the cycle loop and the hash of all outputs. */
  record Run(double seconds, String hash) {
  }

  private final Path binary;

  private SpeedRig(Path binary) {
    this.binary = binary;
  }

  /** Writes {@code design} into {@code dir} and builds its model with the given ports at {@link #HARNESS_CXX_OPT}. */
  static SpeedRig build(String label, VerilogDesign design, List<PortInfo> ports, Path dir) {
    return build(label, design, ports, dir, HARNESS_CXX_OPT);
  }

  /** The same with the C++ compiled at {@code cxxOpt} (e.g. {@code -O1}, {@code -Os}). */
  static SpeedRig build(String label, VerilogDesign design, List<PortInfo> ports, Path dir, String cxxOpt) {
    design.writeTo(dir);
    try {
      Files.writeString(dir.resolve("rig.cpp"), harness(design.top(), ports));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    List<String> cmd = new ArrayList<>(List.of("verilator", "--cc", "--exe", "--build", "-j", "2",
        "-Wno-fatal", "--top-module", design.top(), "-Mdir", "obj", "-o", "rig"));
    cmd.addAll(VERILATOR_OPTIONS);
    cmd.addAll(List.of("-MAKEFLAGS", "OPT_FAST=" + cxxOpt, "-MAKEFLAGS", "OPT_SLOW=" + cxxOpt));
    cmd.addAll(design.files().keySet());
    cmd.add("rig.cpp");
    long t0 = System.nanoTime();
    ExternalTool.Result r = ExternalTool.run(cmd, dir, Duration.ofMinutes(20));
    if (!r.ok()) {
      throw new IllegalStateException("verilator failed on " + label + ":\n" + r.output());
    }
    System.out.printf("  built %-40s in %5.1f s%n", label, (System.nanoTime() - t0) / 1e9);
    return new SpeedRig(dir.resolve("obj").resolve("rig"));
  }

  /** Runs {@code cycles} clock cycles, pinned to CPU {@code cpu} when taskset exists. */
  Run run(long cycles, int cpu) {
    List<String> cmd = new ArrayList<>();
    if (ExternalTool.find("taskset").isPresent()) {
      cmd.addAll(List.of("taskset", "-c", Integer.toString(cpu)));
    }
    cmd.add(binary.toString());
    cmd.add(Long.toString(cycles));
    ExternalTool.Result r = ExternalTool.run(cmd, binary.getParent(), Duration.ofMinutes(20));
    String[] f = r.output().trim().split("\\s+");
    if (!r.ok() || f.length != 2) {
      throw new IllegalStateException(binary + " failed: " + r.output());
    }
    return new Run(Double.parseDouble(f[0]), f[1]);
  }

  private static boolean isClock(PortInfo p) {
    return p.input() && p.width() == 1 && (p.name().equals("clk") || p.name().endsWith("_clk"));
  }

  private static boolean isReset(PortInfo p) {
    return p.input() && p.width() == 1 && p.name().matches("(.*_)?(reset|rst)(_n)?");
  }

  static String harness(String top, List<PortInfo> ports) {
    String cls = "V" + top;
    List<PortInfo> stim = ports.stream().filter(p -> p.input() && !isClock(p) && !isReset(p)).toList();
    int words = 0;
    for (PortInfo p : stim) {
      words += (p.width() + 63) / 64;
    }
    StringBuilder drive = new StringBuilder();
    int w = 0;
    for (PortInfo p : stim) {
      if (p.width() <= 64) {
        drive.append("    top->").append(p.name()).append(" = row[").append(w++).append("] & ")
            .append(mask(p.width())).append(";\n");
      } else {
        for (int i = 0; i < (p.width() + 31) / 32; i++) {
          int bits = Math.min(32, p.width() - 32 * i);
          drive.append("    top->").append(p.name()).append("[").append(i).append("] = (uint32_t)(row[")
              .append(w + i / 2).append("] >> ").append(32 * (i % 2)).append(") & ").append(mask(bits)).append(";\n");
        }
        w += (p.width() + 63) / 64;
      }
    }
    StringBuilder sample = new StringBuilder();
    for (PortInfo p : ports) {
      if (p.input()) {
        continue;
      }
      if (p.width() <= 64) {
        sample.append("    h = (h ^ (uint64_t)top->").append(p.name()).append(") * 1099511628211ull;\n");
      } else {
        for (int i = 0; i < (p.width() + 31) / 32; i++) {
          sample.append("    h = (h ^ (uint64_t)top->").append(p.name()).append("[").append(i)
              .append("]) * 1099511628211ull;\n");
        }
      }
    }
    StringBuilder clocks = new StringBuilder();
    StringBuilder resetOn = new StringBuilder();
    StringBuilder resetOff = new StringBuilder();
    for (PortInfo p : ports) {
      if (isClock(p)) {
        clocks.append(p.name()).append(',');
      } else if (isReset(p)) {
        boolean low = p.name().endsWith("_n");
        resetOn.append("  top->").append(p.name()).append(" = ").append(low ? 0 : 1).append(";\n");
        resetOff.append("  top->").append(p.name()).append(" = ").append(low ? 1 : 0).append(";\n");
      }
    }
    String setClocks = clocks.toString().isEmpty() ? "" : clocks.toString().replaceAll("([A-Za-z0-9_]+),",
        "top->$1 = v; ");
    return """
        #include "%1$s.h"
        #include "verilated.h"
        #include <ctime>
        #include <cstdint>
        #include <cstdio>
        #include <cstdlib>
        #include <vector>
        int main(int argc, char** argv) {
          const long cycles = argc > 1 ? atol(argv[1]) : 100000;
          const int words = %2$d > 0 ? %2$d : 1;
          std::vector<uint64_t> table((size_t)%3$d * words);
          uint64_t s = 0x9E3779B97F4A7C15ull;
          for (auto& t : table) { s ^= s << 13; s ^= s >> 7; s ^= s << 17; t = s; }
          VerilatedContext ctx;
          %1$s* top = new %1$s{&ctx};
          auto clock = [&](int v) { %4$s(void)v; top->eval(); };
          const uint64_t* row = table.data();
          auto drive = [&]() {
        %5$s  };
          uint64_t h = 1469598103934665603ull;
          auto sample = [&]() {
        %6$s  };
        %7$s  drive();
          for (int i = 0; i < 4; i++) { clock(0); clock(1); }
        %8$s  const std::clock_t t0 = std::clock();
          for (long c = 0; c < cycles; c++) {
            row = table.data() + (size_t)(c %% %3$d) * words;
            drive();
            clock(0);
            clock(1);
            sample();
          }
          const double sec = double(std::clock() - t0) / CLOCKS_PER_SEC;
          printf("%%.6f %%016llx\\n", sec, (unsigned long long)h);
          top->final();
          delete top;
          return 0;
        }
        """.formatted(cls, words, TABLE_CYCLES, setClocks, drive, sample, resetOn, resetOff);
  }

  private static String mask(int bits) {
    return bits >= 64 ? "0xFFFFFFFFFFFFFFFFull" : "0x" + Long.toHexString((1L << bits) - 1) + "ull";
  }
}
