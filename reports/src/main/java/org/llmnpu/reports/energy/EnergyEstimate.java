package org.llmnpu.reports.energy;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import org.llmnpu.reports.ppa.NodeScaling;

/**
 * The energy of a co-simulated run: the NPU's performance counters times the energy table.
 *
 * <pre>
 *   MAC array      = executed MACs · E(MAC or MAC_2_4)        (2:4 executes half the dense-equivalent MACs)
 *   psum write-back = psumWritebacks · E(PSUM_WRITEBACK)
 *   scratchpad     = (spadReads + spadWrites) · E_sram(line bits, bank words)
 *   external memory = (dmaLoadBytes + dmaStoreBytes) · E(DRAM_BYTE)
 *   Vector DSP     = dspInstructions · dspLanes · mean E(DSP_FP16, DSP_FP32, DSP_CONVERT, DSP_MEMORY)
 *                    (only when the table measured those; a program's mix of classes is not counted)
 *   clock, leakage = cycles · E(MAC_IDLE)                     (every cycle: the action energies are above idle)
 * </pre>
 *
 * Counter names are the NPU's JSON keys ({@code macs}, {@code psumWritebacks}, {@code spadReads},
 * {@code spadWrites}, {@code dmaLoadBytes}, {@code dmaStoreBytes}, {@code cycles}); a missing
 * counter counts zero. The table's action energies are above idle (see {@link Calibration}), so
 * the idle energy is charged for every cycle of the run.
 *
 * @param node         the process node of the figures
 * @param byUnitPj     energy per unit, pJ, in the order above
 * @param totalPj      their sum, pJ
 * @param denseOps     operations done, 2 per dense-equivalent MAC
 * @param seconds      the run's duration at the clock
 */
public record EnergyEstimate(NodeScaling.Node node, Map<String, Double> byUnitPj, double totalPj, double denseOps,
                             double seconds) {
  /** The NPU's shape as far as energy needs it. */
  public record Shape(int spadLineBits, int spadBankWords, boolean sparse24, double clockNs, int dspLanes) {
    /** A shape without a Vector DSP term. */
    public Shape(int spadLineBits, int spadBankWords, boolean sparse24, double clockNs) {
      this(spadLineBits, spadBankWords, sparse24, clockNs, 0);
    }
  }

  private static final java.util.List<EnergyAction> DSP_CLASSES = java.util.List.of(EnergyAction.DSP_FP16,
      EnergyAction.DSP_FP32, EnergyAction.DSP_CONVERT, EnergyAction.DSP_MEMORY);

  public EnergyEstimate {
    byUnitPj = Collections.unmodifiableMap(new LinkedHashMap<>(byUnitPj));
  }

  public static EnergyEstimate of(EnergyTable t, NodeScaling.Node node, Map<String, Long> counters, Shape shape) {
    Map<String, Double> u = new LinkedHashMap<>();
    double macs = get(counters, "macs");
    double executed = shape.sparse24() ? macs / 2 : macs;
    u.put("MAC array", executed * t.pj(shape.sparse24() ? EnergyAction.MAC_2_4 : EnergyAction.MAC, node));
    u.put("psum write-back", get(counters, "psumWritebacks") * t.pj(EnergyAction.PSUM_WRITEBACK, node));
    double line = EnergyTable.sramAccessPj(shape.spadLineBits(), shape.spadBankWords(), node);
    u.put("scratchpad SRAM", (get(counters, "spadReads") + get(counters, "spadWrites")) * line);
    u.put("external memory", (get(counters, "dmaLoadBytes") + get(counters, "dmaStoreBytes"))
        * t.pj(EnergyAction.DRAM_BYTE, node));
    double dspInstructions = get(counters, "dspInstructions");
    if (dspInstructions > 0 && shape.dspLanes() > 0
        && DSP_CLASSES.stream().allMatch(a -> t.entries().containsKey(a))) {
      double mean = DSP_CLASSES.stream().mapToDouble(a -> t.pj(a, node)).average().orElse(0);
      u.put("Vector DSP", dspInstructions * shape.dspLanes() * mean);
    }
    u.put("clock, leakage", get(counters, "cycles") * t.pj(EnergyAction.MAC_IDLE, node));
    double total = u.values().stream().mapToDouble(Double::doubleValue).sum();
    return new EnergyEstimate(node, u, total, 2 * macs, get(counters, "cycles") * shape.clockNs() * 1e-9);
  }

  private static double get(Map<String, Long> c, String key) {
    Long v = c.get(key);
    return v == null ? 0 : v;
  }

  /** Energy in joules. */
  public double joules() {
    return totalPj * 1e-12;
  }

  /** Dense-equivalent tera-operations per second per watt over the run (ops / energy). */
  public double topsPerWatt() {
    return totalPj == 0 ? 0 : denseOps / (totalPj * 1e-12) / 1e12;
  }

  /** A line per unit: pJ and share. */
  public String text() {
    StringBuilder s = new StringBuilder();
    byUnitPj.forEach((k, v) -> s.append(String.format(Locale.ROOT, "  %-22s %12.4g pJ  %5.1f %%%n", k, v,
        totalPj == 0 ? 0 : 100 * v / totalPj)));
    s.append(String.format(Locale.ROOT, "  %-22s %12.4g pJ  (%s nm; %.3g TOPS/W dense-equivalent)%n", "total", totalPj,
        node.nm, topsPerWatt()));
    return s.toString();
  }
}
