package org.llmnpu.cli.cosim;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import org.llmnpu.cli.NpuParameters;
import org.llmnpu.cosim.ProgramCosim;
import org.llmnpu.cosim.ProgramRun;
import org.llmnpu.cosim.WaveCapture;
import org.llmnpu.cosim.axi.NpuAxiComparison;
import org.llmnpu.cosim.axi.NpuAxiHost;
import org.llmnpu.cosim.axi.NpuAxiProgramRun;
import org.llmnpu.isa.Assembler;
import org.llmnpu.isa.Counter;
import org.llmnpu.isa.ErrorCause;
import org.llmnpu.rtl.npu.NpuConfig;
import org.llmnpu.rtl.npu.axi.NpuAxiStatus;
import org.llmnpu.verilator.axi.Axi4MemoryConfig;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code npu cosim program FILE.npu [--config npu.yaml] [-p name=value]...}: assembles the program, runs it on the
 * generated NPU in Verilator (free-running, the memory model in C++) and on the golden ISA simulator, and prints
 * bit-exactness of the memory image (first differing address), the status, RTL cycles next to the
 * cycle model and every counter.
 */
@Command(name = "program", mixinStandardHelpOptions = true,
    description = "An NPU program (.npu) on the generated NPU vs the golden ISA simulator: bit-exact memory, "
        + "status, cycles vs the cycle model, counters.")
public final class CosimProgramCommand implements Callable<Integer> {
  @Parameters(index = "0", paramLabel = "FILE.npu", description = "The program (npu-isa/README.md).")
  Path file;
  @Option(names = "--memory", description = "Binary image loaded at address 0 (the rest is zero); without it the "
      + "memory holds seeded random bytes.")
  Path memory;
  @Mixin
  NpuParameters npu;
  @Option(names = "--latency", description = "External-memory latency in cycles, 1..1000000 (default: the config's).")
  Integer latency;
  @Option(names = "--bytes-per-cycle", description = "External-memory bandwidth, 1..1024 (default: the config's).")
  Integer bytesPerCycle;
  @Option(names = "--seed", defaultValue = "1", description = "Seed of the random memory (default ${DEFAULT-VALUE}).")
  long seed;
  @Option(names = "--json", description = "Print one JSON object instead of text.")
  boolean json;
  @Option(names = "--vcd", paramLabel = "FILE", description = "Keep the run's waves (VCD) at FILE, for "
      + "'npu report ppa npu --activity-vcd FILE' (power from this program's switching activity).")
  Path vcd;

  @Override
  public Integer call() throws Exception {
    NpuConfig config;
    ProgramRun.Prepared prepared;
    WaveCapture capture;
    try {
      config = npu.npu(NpuConfig.defaults());
      if (latency != null || bytesPerCycle != null) {
        config = config.withMemory(latency == null ? config.memLatency() : latency,
            bytesPerCycle == null ? config.memBytesPerCycle() : bytesPerCycle);
      }
      if (!Files.isReadable(file)) {
        throw new IllegalArgumentException("FILE.npu: cannot read " + file);
      }
      prepared = ProgramRun.prepare(config, Files.readString(file), file.toString(),
          memory == null ? null : Files.readAllBytes(memory), String.valueOf(memory), seed);
      capture = WaveCapture.to(vcd);
    } catch (IllegalArgumentException e) {
      System.err.println(e.getMessage().replace("memLatency must", "--latency must")
          .replace("memBytesPerCycle must", "--bytes-per-cycle must"));
      return 2;
    }
    if (config.axiBus()) {
      return axi(config, prepared, capture);
    }
    ProgramCosim.Outcome o = ProgramRun.run(config, prepared, capture);
    Assembler.Assembled program = prepared.program();
    byte[] image = prepared.image();
    Path waves = capture.keep();
    if (json) {
      ObjectMapper m = new ObjectMapper();
      ObjectNode root = m.createObjectNode();
      root.put("program", file.toString());
      root.put("bus", "native");
      root.put("comparison", FULL);
      root.put("bitExact", o.bitExact());
      if (!o.bitExact()) {
        root.put("firstDifference", o.firstDifference());
      }
      root.put("status", o.rtl().error().name());
      root.put("errorCommand", o.rtl().errorCommand());
      root.put("goldenStatus", o.golden().error().name());
      root.put("rtlCycles", o.rtlCycles());
      root.put("modelCycles", o.modelCycles());
      if (waves != null) {
        root.put("vcd", waves.toString());
      }
      ObjectNode counters = root.putObject("counters");
      for (Counter c : Counter.values()) {
        ObjectNode n = counters.putObject(c.key());
        n.put("rtl", o.rtl().counters().get(c));
        n.put(c.golden() ? "golden" : "model", o.golden().counter(c));
      }
      System.out.println(m.writerWithDefaultPrettyPrinter().writeValueAsString(root));
    } else {
      System.out.printf("npu %s: %s (%d commands) on the RTL (Verilator) vs the golden ISA simulator%n",
          config.rows() + "x" + config.rows(), file, program.program().size());
      System.out.printf("  comparison: %s%n", FULL);
      System.out.printf("  bit-exact memory image: %s%n", o.bitExact() ? "yes (" + image.length + " bytes)"
          : "NO, first difference at 0x" + Long.toHexString(o.firstDifference()));
      System.out.printf("  status: %s%s (golden: %s)%n", o.rtl().error() == ErrorCause.NONE ? "done" : o.rtl().error(),
          o.rtl().error() == ErrorCause.NONE ? "" : " at command " + o.rtl().errorCommand() + ": "
              + o.rtl().error().meaning(), o.golden().error() == ErrorCause.NONE ? "done" : o.golden().error());
      System.out.printf("  cycles: RTL %,d, cycle model %,d (%s)%n", o.rtlCycles(), o.modelCycles(),
          o.rtlCycles() == o.modelCycles() ? "equal" : String.format("%+.2f %%",
              100.0 * (o.modelCycles() - o.rtlCycles()) / Math.max(1, o.rtlCycles())));
      if (waves != null) {
        System.out.printf("  waves: %s (for npu report ppa npu --activity-vcd)%n", waves);
      }
      System.out.printf("  %-18s %14s %14s%n", "counter", "RTL", "golden/model");
      for (Counter c : Counter.values()) {
        System.out.printf("  %-18s %,14d %,14d%s%n", c.key(), o.rtl().counters().get(c), o.golden().counter(c),
            o.rtl().counters().get(c).longValue() == o.golden().counter(c) ? "" : "  differs");
      }
      System.out.printf("  simulation: %.3f s for %,d cycles (%.2f M cycles/s)%n", o.rtl().wallSeconds(),
          o.rtlCycles(), o.rtlCycles() / Math.max(1e-9, o.rtl().wallSeconds()) / 1e6);
    }
    return o.passes() ? 0 : 1;
  }

  /** The native NPU's comparison, as the CLI names it. */
  static final String FULL = "full comparison on the native port: memory image, status and failing command, every "
      + "counter, cycles equal to the cycle model";

  /** The AXI NPU ({@code bus=axi}) through its register map ({@link NpuAxiProgramRun}), with the reduced comparison. */
  private int axi(NpuConfig config, ProgramRun.Prepared prepared, WaveCapture capture) throws Exception {
    Assembler.Assembled program = prepared.program();
    NpuAxiProgramRun.Outcome o = NpuAxiProgramRun.run(config, prepared.image(), program.origin(),
        program.program().bytes().length, capture);
    Path waves = capture.keep();
    NpuAxiComparison cmp = o.comparison();
    NpuAxiHost.Run r = o.rtl();
    Axi4MemoryConfig mem = o.memory();
    String memory = String.format("AXI memory: read latency %d, write latency %d, a beat every %d cycle(s), no "
        + "back-pressure, reordering on", mem.readLatency(), mem.writeLatency(), mem.cyclesPerBeat());
    long firstDifference = NpuAxiComparison.firstDifference(NpuAxiComparison.withoutSnapshots(r.memory(),
        o.golden(), prepared.image(), program.origin()), o.golden().memory());
    if (json) {
      ObjectMapper m = new ObjectMapper();
      ObjectNode root = m.createObjectNode();
      root.put("program", file.toString());
      root.put("bus", "axi");
      root.put("comparison", NpuAxiComparison.DESCRIPTION);
      root.put("memory", memory);
      root.put("bitExact", firstDifference < 0);
      if (firstDifference >= 0) {
        root.put("firstDifference", firstDifference);
      }
      root.put("status", r.done() ? "NONE" : "cause " + r.errorCause());
      root.put("goldenStatus", o.golden().error().name());
      root.put("rtlCycles", cmp.rtlCycles());
      root.put("modelCycles", o.golden().counter(Counter.CYCLES));
      root.put("boundModelCycles", cmp.boundCycles());
      root.put("boundChecked", cmp.boundChecked());
      root.put("passes", o.passes());
      cmp.differences().forEach(root.withArray("differences")::add);
      root.put("startToFetch", r.startToFetch());
      root.put("lastStoreToIrq", r.lastStoreToIrq());
      if (waves != null) {
        root.put("vcd", waves.toString());
      }
      ObjectNode counters = root.putObject("counters");
      for (Counter c : NpuAxiStatus.SHOWN) {
        ObjectNode n = counters.putObject(c.key());
        n.put("rtl", r.counter(c));
        n.put(c.golden() ? "golden" : "model", o.golden().counter(c));
      }
      System.out.println(m.writerWithDefaultPrettyPrinter().writeValueAsString(root));
    } else {
      System.out.printf("npu %s over AXI: %s (%d commands) on the RTL (Verilator, through the register map) vs the "
          + "golden ISA simulator%n", config.rows() + "x" + config.rows(), file, program.program().size());
      System.out.printf("  comparison: %s%n  %s%n", NpuAxiComparison.DESCRIPTION, memory);
      System.out.printf("  bit-exact memory image: %s%n", firstDifference < 0 ? "yes (" + r.memory().length
          + " bytes)" : "NO, first difference at 0x" + Long.toHexString(firstDifference));
      System.out.printf("  status: %s (golden: %s)%n", r.status(),
          o.golden().error() == ErrorCause.NONE ? "done" : o.golden().error() + " (cause "
              + o.golden().error().code() + ")");
      System.out.printf("  cycles: RTL %,d; cycle model %,d at memLatency %d, %,d at La + %d = %d; bound %s%n",
          cmp.rtlCycles(), o.golden().counter(Counter.CYCLES), config.memLatency(), cmp.boundCycles(),
          NpuAxiComparison.BOUND_EXTRA, mem.readLatency() + NpuAxiComparison.BOUND_EXTRA, !cmp.boundChecked()
              ? "not checked (stated for a beat a cycle)" : String.format("[%,d, %,d] %s", cmp.boundCycles(),
              (long) (NpuAxiComparison.BOUND_FACTOR * cmp.boundCycles()), cmp.rtlCycles() >= cmp.boundCycles()
                  && cmp.rtlCycles() <= NpuAxiComparison.BOUND_FACTOR * cmp.boundCycles() ? "holds" : "BROKEN"));
      System.out.printf("  dispatch: %d cycles from the START write to the first fetch, %d from the last store to "
          + "irq%n", r.startToFetch(), r.lastStoreToIrq());
      if (waves != null) {
        System.out.printf("  waves: %s%n", waves);
      }
      System.out.printf("  %-18s %14s %14s%n", "counter", "RTL", "golden/model");
      for (Counter c : NpuAxiStatus.SHOWN) {
        System.out.printf("  %-18s %,14d %,14d%s%n", c.key(), r.counter(c), o.golden().counter(c),
            !c.golden() || r.counter(c) == o.golden().counter(c) ? "" : "  differs");
      }
      cmp.differences().forEach(d -> System.out.printf("  differs: %s%n", d));
      System.out.printf("  simulation: %.3f s for %,d cycles%n", r.wallSeconds(), r.cycles());
    }
    return o.passes() ? 0 : 1;
  }
}
