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
 *   MAC array       = executed MACs · E(MAC or MAC_2_4)       (2:4 executes half the dense-equivalent MACs)
 *   PiM macro       = arrayVectors · rows · rows · E(PIM_COLUMN)   (instead of the MAC array on a PiM engine:
 *                     every input vector through each of the rows columns, per row of the column)
 *   psum write-back = psumWritebacks · E(PSUM_WRITEBACK)
 *   PPM             = ppmElements · (E(PPM_ELEMENT) + E(PPU_LOOKUP) when the NPU has the PPU)
 *   PPM inputs off the read port = (spadReads − ppmElements·4/lineBytes) · ppmInputLanes · the same per element
 *                     (lanes the NPU wires to the scratchpad read port without isolation take every other
 *                     unit's line read through their pipelines: registers without enables)
 *   scratchpad SRAM = (spadReads + spadWrites) · E_sram(line bits, bank words)
 *   external memory = (dmaLoadBytes + dmaStoreBytes) · E(DRAM_BYTE)
 *   NPU commands    = commands · E(NPU_COMMAND)                        (fetch, queue, decode)
 *   NPU DMA         = (dmaLoadBytes + dmaStoreBytes) · E(NPU_DMA_BYTE)   (DMA engine, memory port)
 *   NPU scratchpad port = (spadReads + spadWrites) · line bytes · E(NPU_SPAD_BYTE)   (muxing, line registers,
 *                     operand-load ports; the NPU terms are charged when the table has them)
 *   Vector DSP      = dspInstructions · dspLanes · mean E(DSP_FP16, DSP_FP32, DSP_CONVERT, DSP_MEMORY)
 *                     (only when the table measured those; a program's mix of classes is not counted)
 *   clock, leakage  = cycles · flipFlops · E(IDLE_FLIP_FLOP)   (the whole NPU, every cycle; the action
 *                     energies are above idle). Without the NPU's flip-flops (0): cycles · E(MAC_IDLE),
 *                     the GEMM engine's idle alone, a lower bound. With gated units (clock gating): the
 *                     flip-flops of a gated unit are charged only in the cycles its clock ran (its enable
 *                     counter, e.g. gemmCycles), the others every cycle, and each gating cell
 *                     GATE_CELL_FLIP_FLOPS flip-flops' idle every cycle (its latch and AND take every clock edge):
 *                     (flipFlops − Σ gated) · cycles · E + Σ gated_u · enabled_u · E + gates · cycles · 2 · E
 * </pre>
 *
 * Counter names are the NPU's JSON keys ({@code macs}, {@code psumWritebacks}, {@code spadReads},
 * {@code spadWrites}, {@code commands}, {@code dmaLoadBytes}, {@code dmaStoreBytes}, {@code dspInstructions},
 * {@code ppmElements}, {@code cycles}); a missing counter counts zero. {@code arrayVectors} is not a
 * hardware counter: the input vectors the GEMM engine takes, {@code M · ceil(K/rows) · ceil(N/rows)}
 * per GEMM command, derived from the shapes of the GEMM commands the program executed (the PiM macro
 * computes every column of every vector, so ragged tiles cost whole column operations); a PiM
 * estimate without it is refused. The PPM terms are charged when the table has them.
 *
 * @param node         the process node of the figures
 * @param byUnitPj     energy per unit, pJ, in the order above
 * @param totalPj      their sum, pJ
 * @param denseOps     operations done, 2 per dense-equivalent MAC
 * @param seconds      the run's duration at the clock
 */
public record EnergyEstimate(NodeScaling.Node node, Map<String, Double> byUnitPj, double totalPj, double denseOps,
                             double seconds) {
  /**
   * The NPU's shape as far as energy needs it.
   *
   * @param flipFlops the NPU's flip-flops (the PPA flow's synthesis of its top), 0 if unknown
   * @param ppu       the NPU's PPM has the PPU (every PPM element passes its table)
   * @param pimRows   rows (= columns) of the PiM engine, 0 for the systolic MAC array
   * @param ppmInputLanes PPM lanes whose inputs the NPU wires to the scratchpad read port without isolation:
   *                  their pipelines (registers without enables) take every line read as if it were an element
   */
  public record Shape(int spadLineBits, int spadBankWords, boolean sparse24, double clockNs, int dspLanes,
                      long flipFlops, boolean ppu, int pimRows, int ppmInputLanes,
                      java.util.List<GatedUnit> gatedUnits) {
    /** A shape of a systolic NPU without its flip-flops or PPU. */
    public Shape(int spadLineBits, int spadBankWords, boolean sparse24, double clockNs, int dspLanes) {
      this(spadLineBits, spadBankWords, sparse24, clockNs, dspLanes, 0, false, 0, 0, java.util.List.of());
    }

    /** A shape without gated units. */
    public Shape(int spadLineBits, int spadBankWords, boolean sparse24, double clockNs, int dspLanes,
                 long flipFlops, boolean ppu, int pimRows, int ppmInputLanes) {
      this(spadLineBits, spadBankWords, sparse24, clockNs, dspLanes, flipFlops, ppu, pimRows, ppmInputLanes,
          java.util.List.of());
    }

    /** The same shape with these units on gated clocks (their flip-flops are among {@link #flipFlops}). */
    public Shape withGatedUnits(java.util.List<GatedUnit> units) {
      return new Shape(spadLineBits, spadBankWords, sparse24, clockNs, dspLanes, flipFlops, ppu, pimRows,
          ppmInputLanes, units);
    }

    /** A shape without a Vector DSP term. */
    public Shape(int spadLineBits, int spadBankWords, boolean sparse24, double clockNs) {
      this(spadLineBits, spadBankWords, sparse24, clockNs, 0);
    }

    public Shape {
      gatedUnits = java.util.List.copyOf(gatedUnits);
      if (flipFlops < 0 || pimRows < 0 || ppmInputLanes < 0) {
        throw new IllegalArgumentException("flipFlops, pimRows and ppmInputLanes must be >= 0, got " + flipFlops + ", "
            + pimRows + ", " + ppmInputLanes);
      }
      if (pimRows > 0 && sparse24) {
        throw new IllegalArgumentException("a PiM engine holds dense weights: sparse24 must be false with pimRows "
            + pimRows);
      }
    }

    /** The same shape with the NPU's flip-flops (idle is then charged for the whole NPU). */
    public Shape withFlipFlops(long ffs) {
      return new Shape(spadLineBits, spadBankWords, sparse24, clockNs, dspLanes, ffs, ppu, pimRows,
          ppmInputLanes, gatedUnits);
    }

    /** The same shape with or without the PPU. */
    public Shape withPpu(boolean on) {
      return new Shape(spadLineBits, spadBankWords, sparse24, clockNs, dspLanes, flipFlops, on, pimRows,
          ppmInputLanes, gatedUnits);
    }

    /** The same shape with a {@code rows × rows} PiM engine (0: the systolic array). */
    public Shape withPimRows(int rows) {
      return new Shape(spadLineBits, spadBankWords, sparse24, clockNs, dspLanes, flipFlops, ppu, rows,
          ppmInputLanes, gatedUnits);
    }

    /** The same shape with {@code lanes} PPM lanes wired to the scratchpad read port without isolation. */
    public Shape withPpmInputLanes(int lanes) {
      return new Shape(spadLineBits, spadBankWords, sparse24, clockNs, dspLanes, flipFlops, ppu, pimRows,
          lanes, gatedUnits);
    }

    /** The same shape with the 2:4 array or the dense one. */
    public Shape withSparse24(boolean on) {
      return new Shape(spadLineBits, spadBankWords, on, clockNs, dspLanes, flipFlops, ppu, pimRows,
          ppmInputLanes, gatedUnits);
    }
  }

  /**
   * A unit on a gated clock: its flip-flops and the counter of the cycles its clock ran.
   *
   * @param name          the gated bank (as the generator named it)
   * @param flipFlops     its flip-flops (among the shape's {@code flipFlops})
   * @param enableCounter the counter key of the cycles its enable was high (a missing counter counts zero)
   */
  public record GatedUnit(String name, long flipFlops, String enableCounter) {
    public GatedUnit {
      if (flipFlops < 0) {
        throw new IllegalArgumentException("flipFlops of gated unit " + name + " must be >= 0, got " + flipFlops);
      }
    }
  }

  /**
   * The idle of a clock-gating cell (latch and AND on the clock) in flip-flops' idle: an assumption, see the class
   * ({@code GatedIdleBench}: the tiny NPU with its three gates shut draws 0.2224 pJ per ungated flip-flop and cycle,
   * the table's figure, so the gates' own share is within that rounding).
   */
  public static final double GATE_CELL_FLIP_FLOPS = 2;

  private static final java.util.List<EnergyAction> DSP_CLASSES = java.util.List.of(EnergyAction.DSP_FP16,
      EnergyAction.DSP_FP32, EnergyAction.DSP_CONVERT, EnergyAction.DSP_MEMORY);

  public EnergyEstimate {
    byUnitPj = Collections.unmodifiableMap(new LinkedHashMap<>(byUnitPj));
  }

  public static EnergyEstimate of(EnergyTable t, NodeScaling.Node node, Map<String, Long> counters, Shape shape) {
    Map<String, Double> u = new LinkedHashMap<>();
    double macs = get(counters, "macs");
    if (shape.pimRows() > 0) {
      if (!counters.containsKey(ARRAY_VECTORS) && macs > 0) {
        throw new IllegalArgumentException("the energy of a PiM engine needs '" + ARRAY_VECTORS + "' (input vectors "
            + "the engine took, M*ceil(K/rows)*ceil(N/rows) per executed GEMM command) among the counters; got "
            + counters.keySet());
      }
      double rows = shape.pimRows();
      u.put("PiM macro", get(counters, ARRAY_VECTORS) * rows * rows * t.pj(EnergyAction.PIM_COLUMN, node));
    } else {
      double executed = shape.sparse24() ? macs / 2 : macs;
      u.put("MAC array", executed * t.pj(shape.sparse24() ? EnergyAction.MAC_2_4 : EnergyAction.MAC, node));
    }
    u.put("psum write-back", get(counters, "psumWritebacks") * t.pj(EnergyAction.PSUM_WRITEBACK, node));
    double ppmElements = get(counters, "ppmElements");
    if (t.entries().containsKey(EnergyAction.PPM_ELEMENT)) {
      double perElement = t.pj(EnergyAction.PPM_ELEMENT, node);
      if (shape.ppu() && t.entries().containsKey(EnergyAction.PPU_LOOKUP)) {
        perElement += t.pj(EnergyAction.PPU_LOOKUP, node);
      }
      if (ppmElements > 0) {
        u.put("PPM", ppmElements * perElement);
      }
      // the other units' line reads reach the unisolated PPM lanes (a ppm reads 4 bytes per element itself)
      double otherReads = Math.max(0, get(counters, "spadReads") - ppmElements * 4 / (shape.spadLineBits() / 8.0));
      if (shape.ppmInputLanes() > 0 && otherReads > 0) {
        u.put("PPM inputs off the read port", otherReads * shape.ppmInputLanes() * perElement);
      }
    }
    double line = EnergyTable.sramAccessPj(shape.spadLineBits(), shape.spadBankWords(), node);
    double lines = get(counters, "spadReads") + get(counters, "spadWrites");
    double dmaBytes = get(counters, "dmaLoadBytes") + get(counters, "dmaStoreBytes");
    u.put(SRAM_UNIT, lines * line);
    u.put(DRAM_UNIT, dmaBytes * t.pj(EnergyAction.DRAM_BYTE, node));
    if (t.entries().containsKey(EnergyAction.NPU_COMMAND)) {
      u.put("NPU commands", get(counters, "commands") * t.pj(EnergyAction.NPU_COMMAND, node));
    }
    if (t.entries().containsKey(EnergyAction.NPU_DMA_BYTE)) {
      u.put("NPU DMA", dmaBytes * t.pj(EnergyAction.NPU_DMA_BYTE, node));
    }
    if (t.entries().containsKey(EnergyAction.NPU_SPAD_BYTE)) {
      u.put("NPU scratchpad port", lines * shape.spadLineBits() / 8.0 * t.pj(EnergyAction.NPU_SPAD_BYTE, node));
    }
    double dspInstructions = get(counters, "dspInstructions");
    if (dspInstructions > 0 && shape.dspLanes() > 0
        && DSP_CLASSES.stream().allMatch(a -> t.entries().containsKey(a))) {
      double mean = DSP_CLASSES.stream().mapToDouble(a -> t.pj(a, node)).average().orElse(0);
      u.put("Vector DSP", dspInstructions * shape.dspLanes() * mean);
    }
    double cycles = get(counters, "cycles");
    u.put(IDLE_UNIT, shape.flipFlops() > 0 ? idleFlipFlops(shape, counters, cycles)
        * t.pj(EnergyAction.IDLE_FLIP_FLOP, node) : cycles * t.pj(EnergyAction.MAC_IDLE, node));
    double total = u.values().stream().mapToDouble(Double::doubleValue).sum();
    return new EnergyEstimate(node, u, total, 2 * macs, cycles * shape.clockNs() * 1e-9);
  }

  /**
   * Flip-flop cycles with a running clock: the ungated flip-flops every cycle, each gated unit's in the cycles of
   * its enable counter (at most every cycle), and the gating cells' share ({@link #idleByBank} summed).
   */
  static double idleFlipFlops(Shape shape, Map<String, Long> counters, double cycles) {
    return idleByBank(shape, counters, cycles).values().stream().mapToDouble(Double::doubleValue).sum();
  }

  /** The key of the flip-flops clocked every cycle in {@link #idleByBank}. */
  public static final String ALWAYS_CLOCKED = "clocked every cycle";
  /** The key of the gating cells' own idle in {@link #idleByBank}. */
  public static final String GATE_CELLS = "gating cells";

  /**
   * Where the idle ({@code clock, leakage}) goes: flip-flop cycles with a running clock by register bank, in the
   * order {@link #ALWAYS_CLOCKED} (the flip-flops on no gate, every cycle), each gated unit by its name (its
   * flip-flops times its enable counter, at most {@code cycles}; units of the same name summed), and
   * {@link #GATE_CELLS} ({@link #GATE_CELL_FLIP_FLOPS} per cell, every cycle). Times {@code E(IDLE_FLIP_FLOP)} it is
   * the idle energy of each.
   */
  public static Map<String, Double> idleByBank(Shape shape, Map<String, Long> counters, double cycles) {
    long gated = shape.gatedUnits().stream().mapToLong(GatedUnit::flipFlops).sum();
    if (gated > shape.flipFlops()) {
      throw new IllegalArgumentException("gated units hold " + gated + " flip-flops, more than the NPU's "
          + shape.flipFlops());
    }
    Map<String, Double> out = new LinkedHashMap<>();
    out.put(ALWAYS_CLOCKED, (shape.flipFlops() - gated) * cycles);
    for (GatedUnit g : shape.gatedUnits()) {
      out.merge(g.name(), g.flipFlops() * Math.min(cycles, get(counters, g.enableCounter())), Double::sum);
    }
    out.put(GATE_CELLS, shape.gatedUnits().size() * GATE_CELL_FLIP_FLOPS * cycles);
    return out;
  }

  /** The unit names of idle, the scratchpad's SRAM macros and the external memory in {@link #byUnitPj}. */
  public static final String IDLE_UNIT = "clock, leakage";
  public static final String SRAM_UNIT = "scratchpad SRAM";
  public static final String DRAM_UNIT = "external memory";

  /** The derived count of input vectors the GEMM engine took (see the class comment). */
  public static final String ARRAY_VECTORS = org.llmnpu.rtl.npu.NpuClockGates.ARRAY_VECTORS;

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
