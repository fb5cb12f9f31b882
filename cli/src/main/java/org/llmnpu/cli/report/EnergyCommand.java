package org.llmnpu.cli.report;

import java.io.PrintWriter;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import org.llmnpu.cli.NpuParameters;
import org.llmnpu.cosim.report.NpuEnergyShape;
import org.llmnpu.reports.OutputDirectory;
import org.llmnpu.reports.energy.Calibration;
import org.llmnpu.reports.energy.EnergyTable;
import org.llmnpu.reports.ppa.PpaOptions;
import org.llmnpu.reports.ppa.ToolFailure;
import org.llmnpu.verilator.SimOptions;
import org.llmnpu.rtl.npu.NpuConfig;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;
import picocli.CommandLine.Model.CommandSpec;

/**
 * {@code npu report energy [--rows R --cols C --lanes L --clock-ns N] [-p name=value]... [--config npu.yaml] -o DIR}:
 * calibrates the energy per action from the blocks' own workloads simulated in Verilator (activity onto the
 * synthesized netlists, OpenSTA power) and writes {@code energy.json}, {@code energy.csv} and
 * {@code energy.txt}: pJ per action at 180 nm and scaled to 45 and 7 nm, each with its basis. The NPU data-path
 * actions are calibrated on {@link Calibration#referenceNpu} of {@code --rows}, or on the NPU that {@code --config}
 * and {@code -p} describe over it ({@link NpuParameters}).
 */
@Command(name = "energy", mixinStandardHelpOptions = true,
    description = "Energy per action (MAC dense/2:4, PiM column operation, psum write-back, PPM element, PPU lookup, "
        + "DSP instruction classes, idle per block and per flip-flop, the NPU's DMA, scratchpad port and command "
        + "fetch, SRAM, DRAM), calibrated from simulated "
        + "workloads with OpenSTA.")
public final class EnergyCommand implements Callable<Integer> {
  @Option(names = "--rows", defaultValue = "8", description = "MAC array rows, 2..32, even (default ${DEFAULT-VALUE})")
  int rows;
  @Option(names = "--cols", defaultValue = "8", description = "MAC array columns, 1..32 (default ${DEFAULT-VALUE})")
  int cols;
  @Option(names = "--lanes", defaultValue = "8", description = "Vector DSP lanes: 1, 2, 4, 8, 16 (default ${DEFAULT-VALUE})")
  int lanes;
  @Option(names = "--clock-ns", defaultValue = "10", description = "clock period, a decimal number in 0.1..1000 "
      + "(default ${DEFAULT-VALUE})")
  String clockNs;
  @Option(names = "--seed", defaultValue = "1", description = "seed of the random workloads (default ${DEFAULT-VALUE})")
  long seed;
  @Option(names = {"-o", "--output"}, required = true, paramLabel = "<dir>", description = "output directory")
  String output;
  @Option(names = "--force", description = "also write into a directory holding other files (they are kept)")
  boolean force;
  @Mixin
  NpuParameters npuOptions;
  @Spec
  CommandSpec spec;

  /** PPM lanes of the calibration (its energies are per element). */
  static final int PPM_LANES = 2;

  @Override
  public Integer call() {
    PrintWriter out = spec.commandLine().getOut();
    PrintWriter err = spec.commandLine().getErr();
    try {
      if (rows < 2 || rows > 32 || rows % 2 != 0) {
        throw new IllegalArgumentException("--rows: " + rows + " is not allowed; allowed: even numbers in 2..32");
      }
      if (cols < 1 || cols > 32) {
        throw new IllegalArgumentException("--cols: " + cols + " is not allowed; allowed: 1..32");
      }
      if (!List.of(1, 2, 4, 8, 16).contains(lanes)) {
        throw new IllegalArgumentException("--lanes: " + lanes + " is not allowed; allowed: 1, 2, 4, 8, 16");
      }
      PpaOptions o = PpaOptions.defaults().withClockNs(DecimalOption.parse("--clock-ns", clockNs,
          PpaOptions.MIN_CLOCK_NS, PpaOptions.MAX_CLOCK_NS));
      OutputDirectory.check("-o", output, force);
      NpuConfig npu = npuOptions.npu(Calibration.referenceNpu(rows));
      int m = 4 * rows;
      int k = 4 * rows;
      int n = 2 * cols;
      int pim = Math.min(8, Math.min(rows, cols));
      out.printf(Locale.ROOT, "calibrating on a %dx%d GEMM engine (GEMM %dx%dx%d, dense and 2:4), a %d-lane "
          + "Vector DSP, a %d-lane PPM with and without the PPU, a %dx%d bit-serial PiM macro and the data paths of "
          + "a %dx%d NPU (DMA, scratchpad port, commands) at %s ns; each run: Verilator with waves, Yosys, OpenSTA "
          + "with the run's activity%n", rows, cols, m, k, n, lanes, PPM_LANES, pim, pim, npu.rows(), npu.rows(), clockNs);
      out.flush();
      Calibration c = new Calibration(o, SimOptions.fromEnvironment(), line -> {
        out.println(line);
        out.flush();
      }).gemm(rows, cols, m, k, n, seed).dsp(lanes, 256, seed).ppm(PPM_LANES, seed).pim(pim, pim, 1, seed)
          .npu(npu, NpuEnergyShape.PPM_INPUT_LANES.applyAsInt(npu), seed);
      EnergyTable t = c.table();
      OutputDirectory dir = OutputDirectory.open("energy-table", "-o", output, force);
      dir.write("energy.json", t.json());
      dir.write("energy.csv", t.csv());
      dir.write("energy.txt", t.text());
      dir.finish();
      out.print(t.text());
      out.println("wrote " + dir.path().resolve("energy.json") + ", energy.csv, energy.txt");
      return 0;
    } catch (ToolFailure e) {
      err.println("npu report energy: " + e.getMessage());
      return 1;
    } catch (IllegalArgumentException e) {
      err.println("npu report energy: " + e.getMessage());
      return 2;
    }
  }
}
