package org.llmnpu.reports.npu;

import java.util.Collections;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.llmnpu.reports.energy.EnergyEstimate;
import org.llmnpu.reports.energy.EnergyTable;
import org.llmnpu.reports.ppa.NodeScaling;
import org.llmnpu.reports.ppa.PpaResult;

/**
 * Everything the whole-NPU report shows, gathered by the caller (the {@code npu report npu}
 * pipeline in {@code cosim}, {@code NpuReportPipeline}, which runs the co-simulations and the PPA flow); this module only
 * renders it ({@code org.llmnpu.reports.html.NpuReportWriter}), so it needs no dependency on
 * the co-simulation.
 *
 * @param title       page title
 * @param config      the NPU's parameters (generator and simulation), name to value, in order
 * @param clockNs     clock period the PPA flow constrained, ns
 * @param npu         PPA of the whole NPU top
 * @param units       PPA of each unit instantiated by the NPU top, synthesized on its own
 * @param areaSplit   the NPU's area by unit and the top's own logic (glue), and how each share was obtained
 *                    ({@link UnitAreaSplit})
 * @param cycles      cycle-model validation: model and RTL cycles per co-simulated program
 * @param energyTable the energy per action the estimates use
 * @param energyTableSource where that table came from (calibration run, file)
 * @param phases      energy of the prefill and decode phases from their counters
 * @param roofline    the NPU's roofline with the decoder's GEMMs placed on it
 * @param trends      the seed papers' findings against ours
 * @param notes       remarks for the reader (what is a proxy, what was skipped)
 * @param soc         the NPU inside a heterogeneous SoC (module {@code soc}), or null when not gathered
 * @param trendFigures recorded plots shown under the seed trends (such as the denoiser pass's staircase), maybe none
 */
public record NpuReport(String title, Map<String, String> config, double clockNs, PpaResult npu, List<Unit> units,
                        List<AreaSlice> areaSplit, List<CyclePoint> cycles, EnergyTable energyTable,
                        String energyTableSource, List<PhaseEnergy> phases, Roofline roofline, List<Trend> trends,
                        List<String> notes, SocSection soc, List<Figure> trendFigures) {
  /** A report without recorded trend figures. */
  public NpuReport(String title, Map<String, String> config, double clockNs, PpaResult npu, List<Unit> units,
                   List<AreaSlice> areaSplit, List<CyclePoint> cycles, EnergyTable energyTable,
                   String energyTableSource, List<PhaseEnergy> phases, Roofline roofline, List<Trend> trends,
                   List<String> notes, SocSection soc) {
    this(title, config, clockNs, npu, units, areaSplit, cycles, energyTable, energyTableSource, phases, roofline,
        trends, notes, soc, List.of());
  }

  /** A report without the SoC section. */
  public NpuReport(String title, Map<String, String> config, double clockNs, PpaResult npu, List<Unit> units,
                   List<AreaSlice> areaSplit, List<CyclePoint> cycles, EnergyTable energyTable,
                   String energyTableSource, List<PhaseEnergy> phases, Roofline roofline, List<Trend> trends,
                   List<String> notes) {
    this(title, config, clockNs, npu, units, areaSplit, cycles, energyTable, energyTableSource, phases, roofline,
        trends, notes, null);
  }

  public NpuReport {
    config = Collections.unmodifiableMap(new LinkedHashMap<>(config));
    units = List.copyOf(units);
    areaSplit = List.copyOf(areaSplit);
    cycles = List.copyOf(cycles);
    phases = List.copyOf(phases);
    trends = List.copyOf(trends);
    notes = List.copyOf(notes);
    trendFigures = List.copyOf(trendFigures);
  }

  /**
   * One unit of the NPU synthesized on its own.
   *
   * @param name      unit name (e.g. "GEMM engine")
   * @param block     what was synthesized: the Verilog module the top instantiates (or a registered block)
   * @param params    the generator parameters used (empty when they are the NPU's own, see the configuration)
   * @param instances the NPU top's instances of this unit (each costs {@code ppa}'s area); empty for a unit shown
   *                  beside the NPU but not part of its top
   * @param ppa       its PPA, one instance
   */
  public record Unit(String name, String block, Map<String, String> params, List<String> instances, PpaResult ppa) {
    public Unit {
      params = Collections.unmodifiableMap(new LinkedHashMap<>(params));
      instances = List.copyOf(instances);
    }

    /** Whether the NPU top instantiates this unit. */
    public boolean inTop() {
      return !instances.isEmpty();
    }
  }

  /** A share of the NPU's area, µm² at 180 nm, with how it was obtained. */
  public record AreaSlice(String name, double um2, String basis) {
  }

  /**
   * One co-simulated program.
   *
   * @param program      its name
   * @param kind         what kind (random, decoder proxy, example)
   * @param modelCycles  cycles of the analytical cycle model (golden ISA simulator)
   * @param rtlCycles    cycles the RTL counted in Verilator
   * @param bitExact     memory image after the run equal to the golden one
   * @param differingCounters the counters whose RTL value differs from the golden/model value
   */
  public record CyclePoint(String program, String kind, long modelCycles, long rtlCycles, boolean bitExact,
                           List<String> differingCounters) {
    public CyclePoint {
      differingCounters = List.copyOf(differingCounters);
    }

    public boolean countersEqual() {
      return differingCounters.isEmpty();
    }
  }

  /**
   * Counters of one inference phase and the energy they cost. This is where the decoder's
   * co-simulated counters plug in: {@code counters} uses the NPU's counter names ({@code macs},
   * {@code psumWritebacks}, {@code spadReads}, {@code spadWrites}, {@code dmaLoadBytes},
   * {@code dmaStoreBytes}, {@code cycles}, ...).
   *
   * @param phase     "prefill" or "decode"
   * @param tokens    tokens the counters cover (prompt length for prefill, 1 for a decode step)
   * @param source    what ran (e.g. "GEMM-only proxy of stories260K on the RTL")
   * @param proxy     true when the counters come from a proxy program rather than the decoder
   * @param counters  the NPU's counters over the phase
   * @param estimates the energy at each node
   */
  public record PhaseEnergy(String phase, int tokens, String source, boolean proxy, Map<String, Long> counters,
                            Map<NodeScaling.Node, EnergyEstimate> estimates) {
    public PhaseEnergy {
      counters = Collections.unmodifiableMap(new LinkedHashMap<>(counters));
      estimates = Collections.unmodifiableMap(new EnumMap<>(estimates));
    }

    /** Joules per token at a node. */
    public double energyPerTokenJ(NodeScaling.Node node) {
      return estimates.get(node).joules() / tokens;
    }
  }

  /**
   * The NPU's roofline: peak MACs per cycle and external-memory bytes per cycle at the clock.
   *
   * @param clockMhz     the clock the roofline assumes (the NPU's Fmax from the PPA flow)
   * @param macsPerCycle MACs the array can do per cycle (rows × cols)
   * @param bytesPerCycle external-memory bytes per cycle
   * @param points       the decoder's GEMMs, each run alone through the cycle model
   */
  public record Roofline(double clockMhz, int macsPerCycle, double bytesPerCycle, List<RoofPoint> points) {
    public Roofline {
      points = List.copyOf(points);
    }

    public double peakOpsPerSecond() {
      return 2.0 * macsPerCycle * clockMhz * 1e6;
    }

    public double bytesPerSecond() {
      return bytesPerCycle * clockMhz * 1e6;
    }
  }

  /**
   * One GEMM on the roofline.
   *
   * @param name   e.g. "decode w1 1x64x172"
   * @param phase  prefill or decode
   * @param macs   M·K·N
   * @param bytes  external-memory bytes moved (loads and stores of its program)
   * @param cycles cycles of its program
   */
  public record RoofPoint(String name, String phase, long macs, long bytes, long cycles) {
    public double opsPerByte() {
      return bytes == 0 ? 0 : 2.0 * macs / bytes;
    }
  }

  /**
   * A seed finding against ours.
   *
   * @param finding what the seed claims
   * @param seed    the seed's figure
   * @param ours    our figure, or empty when not measured
   * @param verdict "agrees", "disagrees", "partly" or "not measured"
   * @param why     the reason (or why it is not measured)
   * @param source  where our figure comes from (command, README section)
   */
  public record Trend(String finding, String seed, String ours, String verdict, String why, String source) {
  }

  /**
   * A recorded plot embedded as it was written.
   *
   * @param caption what it shows
   * @param source  where it was recorded (benchmark, file, date, command)
   * @param svg     a standalone SVG document
   */
  public record Figure(String caption, String source, String svg) {
  }
}
