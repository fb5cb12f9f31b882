package org.llmnpu.cosim.bench;

import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.llmnpu.hdl.HwModule;
import org.llmnpu.hdl.bench.BenchRecord;
import org.llmnpu.hdl.emit.Verilog;
import org.llmnpu.hdl.emit.VerilogDesign;
import org.llmnpu.hdl.ir.Signal;
import org.llmnpu.rtl.npu.Npu;
import org.llmnpu.rtl.npu.NpuConfig;

/**
 * Where the default NPU's flip-flops are, by unit and by register bank (a benchmark, not a test: {@code mvn -q -o
 * -pl cosim -am test -Dbench -Dtest=RegisterBanksBenchmark -Dsurefire.failIfNoSpecifiedTests=false}; no tools): the
 * generator's register bits (memories are SRAM macros, not counted) of every instance of the NPU top, of the Vector
 * DSP's lanes and their execution units, which clock gate each is on (a gate's bits exclude those of the gates nested
 * inside it: the lanes' pipelined units inside the DSP's), and the widest registers of the units clocked every cycle. The idle model ({@code NpuEnergyShape.gatedUnits}) charges each gate's synthesized flip-flops in
 * this share, so these are the banks a finer gate (issue 31's "per register bank") would take off the clock.
 */
@ExtendWith(BenchRecord.class)
class RegisterBanksBenchmark {
  /** Registers at least this wide are listed one by one for the units clocked every cycle. */
  static final int WIDE = 64;

  @Test
  void registerBitsByUnitAndBankOfTheDefaultNpu() {
    Npu top = new Npu(NpuConfig.defaults());
    VerilogDesign emitted = Verilog.emit(top);
    long total = top.registerBitsOfDesign();
    System.out.printf(Locale.ROOT, "default NPU: %,d register bits (generator), clockGating %s%n", total,
        NpuConfig.defaults().clockGating());
    long gated = 0;
    // the lanes' gates of one unit on one line (lane_<i> becomes lane_*), the PE wavefronts' and row shadows' too
    Map<String, long[]> byGate = new java.util.LinkedHashMap<>();
    for (VerilogDesign.GatedBankInfo b : emitted.gatedBanks()) {
      byGate.merge(DecodeEnergyBenchmark.bankGroup(b.path()), new long[] {1, b.registerBits()},
          (x, y) -> new long[] {x[0] + y[0], x[1] + y[1]});
      gated += b.registerBits();
    }
    byGate.forEach((gate, n) -> System.out.printf(Locale.ROOT, "  %s %-30s %,7d bits (%4.1f %%)%n",
        n[0] == 1 ? "gate    " : String.format(Locale.ROOT, "%2d gates", n[0]), gate, n[1], 100.0 * n[1] / total));
    System.out.printf(Locale.ROOT, "  clocked every cycle                     %,7d bits (%4.1f %%)%n", total - gated,
        100.0 * (total - gated) / total);
    System.out.println("by instance of the top (bits, own registers, module):");
    for (HwModule child : top.ir().children()) {
      long bits = child.registerBitsOfDesign();
      if (bits > 0) {
        System.out.printf(Locale.ROOT, "  %-22s %,7d  own %,6d  %s%n", child.ir().instanceName(), bits, own(child),
            child.moduleName());
      }
    }
    HwModule dsp = find(top, "VectorDsp");
    HwModule lane = find(dsp, "DspLane");
    long lanes = dsp.ir().children().stream().filter(c -> c.moduleName().startsWith("DspLane")).count();
    System.out.printf(Locale.ROOT, "Vector DSP: %,d bits, own %,d (control, decode, table), %d lanes of %,d bits:%n",
        dsp.registerBitsOfDesign(), own(dsp), lanes, lane.registerBitsOfDesign());
    System.out.printf(Locale.ROOT, "  lane's own (operands, forwarding, stage flags) %,6d bits, x%d = %,d%n", own(lane),
        lanes, own(lane) * lanes);
    for (HwModule unit : lane.ir().children()) {
      long bits = unit.registerBitsOfDesign();
      if (bits == 0) {
        continue;
      }
      System.out.printf(Locale.ROOT, "  %-12s %-28s %,6d bits, x%d = %,d%n", unit.ir().instanceName(),
          unit.moduleName(), bits, lanes, bits * lanes);
    }
    System.out.println("registers of " + WIDE + " bits or more in the units clocked every cycle:");
    for (HwModule child : top.ir().children()) {
      if (List.of("gemm", "dspPath_dsp", "ppmPath_ppm").contains(child.ir().instanceName())) {
        continue;
      }
      Map<String, Integer> wide = new TreeMap<>();
      for (Signal s : child.ir().signals()) {
        if (s.role == Signal.Role.REG && s.width >= WIDE) {
          wide.put(s.name, s.width);
        }
      }
      if (!wide.isEmpty()) {
        System.out.println("  " + child.ir().instanceName() + ": " + wide);
      }
    }
  }

  private static long own(HwModule m) {
    long sum = m.registerBitsOfDesign();
    for (HwModule c : m.ir().children()) {
      sum -= c.registerBitsOfDesign();
    }
    return sum;
  }

  /** The first instance, depth first, whose module name starts with {@code prefix}. */
  private static HwModule find(HwModule m, String prefix) {
    HwModule f = findOrNull(m, prefix);
    if (f == null) {
      throw new IllegalStateException("no instance of " + prefix + " in " + m.moduleName());
    }
    return f;
  }

  private static HwModule findOrNull(HwModule m, String prefix) {
    for (HwModule c : m.ir().children()) {
      if (c.moduleName().startsWith(prefix)) {
        return c;
      }
      HwModule f = findOrNull(c, prefix);
      if (f != null) {
        return f;
      }
    }
    return null;
  }
}
