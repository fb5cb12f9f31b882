package org.llmnpu.reports.energy;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.llmnpu.reports.activity.SimulatedActivity;
import org.llmnpu.rtl.npu.NpuConfig;

/**
 * The NPU data-path calibration's simulations ({@link Calibration#npuActivity}): the NPU clocked idle and its three
 * programs run on the RTL in Verilator with their waves, before any power run — the half of the calibration that needs
 * no synthesis. Each run's power on the NPU's netlist can then be made on its own ({@link Calibration#npuPower}),
 * and {@link Calibration#npu(NpuConfig, int, long, NpuDataPathActivity)} takes the whole from it, so a job graph
 * simulates while the NPU is synthesized and runs the four OpenSTA runs side by side.
 *
 * @param config the NPU simulated
 * @param seed   the programs' data seed
 * @param runs   the runs, in {@link #RUNS} order
 */
public record NpuDataPathActivity(NpuConfig config, long seed, List<Run> runs) {
  /** The runs' names, in order: the NPU idle, then the fences, the loads and stores and the GEMMs. */
  public static final List<String> RUNS = NpuDataPathCalibration.RUNS;

  /** One run: its activity and, for a program, the RTL's counters (checked against the golden ISA simulator's). */
  public record Run(String name, SimulatedActivity activity, Map<String, Long> counters) {
    public Run {
      counters = Collections.unmodifiableMap(new LinkedHashMap<>(counters));
    }
  }

  public NpuDataPathActivity {
    runs = List.copyOf(runs);
    if (runs.size() != RUNS.size()) {
      throw new IllegalArgumentException("runs: " + runs.size() + " given, the calibration makes " + RUNS.size());
    }
  }
}
