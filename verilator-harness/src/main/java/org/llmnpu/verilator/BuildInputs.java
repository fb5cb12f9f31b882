package org.llmnpu.verilator;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.llmnpu.hdl.emit.VerilogDesign;

/**
 * Everything a model build depends on: the Verilog, the generated harness, the Verilator
 * flags. Its {@link #key} (with the toolchain's version) names the cached model.
 *
 * <p>Flags: {@code --x-assign 0 --x-initial 0} make every X and every initial value zero,
 * so two runs are identical; lint is done separately ({@code -Wno-lint -Wno-style}); the
 * generated C++ is compiled at {@code -O1} ({@code OPT_FAST}/{@code OPT_SLOW}; Verilator's default is
 * {@code -Os}, the runtime library keeps it): measured on 2 cores, -O1 compiles our models in about half the
 * time of -Os (an MX quantizer 7.9 → 3.8 s) and the models run as fast (a decoder co-simulation on the NPU
 * within noise), while -O0 compiles faster still but runs the long co-simulations about 20 % slower; -O3
 * costs much more compile time for little speed. No {@code --threads} (models run on 2 cores beside the
 * JVM).
 */
record BuildInputs(String top, Map<String, String> files, String harness, List<String> flags) {

  static BuildInputs of(VerilogDesign design, SimOptions.Waves waves) {
    if (design.ports().isEmpty()) {
      throw new IllegalArgumentException("design " + design.top() + " has no port list: emit it with Verilog.emit");
    }
    List<String> flags = new ArrayList<>(List.of("--cc", "--exe", "--build", "-j", "2", "-Wno-fatal", "-Wno-lint",
        "-Wno-style", "--x-assign", "0", "--x-initial", "0", "--top-module", design.top(), "-o", "sim",
        "-MAKEFLAGS", "OPT_FAST=-O1", "-MAKEFLAGS", "OPT_SLOW=-O1"));
    if (waves == SimOptions.Waves.VCD || waves == SimOptions.Waves.VCD_OFF) {
      flags.add("--trace");
    } else if (waves == SimOptions.Waves.FST) {
      flags.add("--trace-fst");
    }
    return new BuildInputs(design.top(), new TreeMap<>(design.files()),
        HarnessSource.generate(design.top(), design.ports()), List.copyOf(flags));
  }

  /** SHA-256 over files, harness, flags and the toolchain version. */
  String key(String toolchainVersion) {
    try {
      MessageDigest md = MessageDigest.getInstance("SHA-256");
      for (var e : files.entrySet()) {
        update(md, e.getKey());
        update(md, e.getValue());
      }
      update(md, harness);
      update(md, String.join(" ", flags));
      update(md, toolchainVersion);
      return top + "-" + HexFormat.of().formatHex(md.digest()).substring(0, 24);
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }

  private static void update(MessageDigest md, String s) {
    md.update(s.getBytes(StandardCharsets.UTF_8));
    md.update((byte) 0);
  }

  /** The Verilator command line, run in the directory holding the sources. */
  List<String> command() {
    List<String> cmd = new ArrayList<>(List.of("verilator"));
    cmd.addAll(flags);
    cmd.add("--Mdir");
    cmd.add("obj");
    cmd.addAll(files.keySet());
    cmd.add("harness.cpp");
    return cmd;
  }
}
