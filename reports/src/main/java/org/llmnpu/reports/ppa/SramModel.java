package org.llmnpu.reports.ppa;

/**
 * Area and access energy of an SRAM macro, from published figures rather than synthesis.
 *
 * <p>Area: bits × bitcell area ÷ array efficiency × port factor. Bitcell areas (6T, high
 * density): 5.59 µm² at 180 nm (Intel 0.18 µm, S. Yang et al., IEDM 1998), 0.346 µm² at 45 nm
 * (Intel 45 nm, K. Mistry et al., IEDM 2007), 0.027 µm² at 7 nm (TSMC N7, J. Chang et al.,
 * ISSCC 2017). Assumed array efficiency 0.70 (decoders, sense amplifiers and I/O take the other
 * 30 %) and a port factor of 1 + 0.3 per port beyond the first (8T-style multi-port cells).
 *
 * <p>Compute-in-memory bitcell arrays (a memory whose every word is read at once: at least as many
 * read ports as words, depth &ge; 4, e.g. the {@code pim-macro} bitcells) are not multi-port SRAMs:
 * each cell has one decoupled read port that feeds the in-array compute logic. They are modelled
 * as 8T read-decoupled cells, {@value #CIM_8T_FACTOR}× the 6T area at each node (L. Chang et al.,
 * "An 8T-SRAM for variability tolerance and low-voltage operation in high-performance caches",
 * IEEE JSSC 43(4), 2008, report the 8T cell about 30 % larger than 6T; assumed here at every node),
 * with the same array efficiency and no port factor.
 *
 * <p>Energy per access: M. Horowitz, "Computing's energy problem", ISSCC 2014 gives 10 pJ for a
 * 64-bit read of an 8 KB SRAM at 45 nm, 0.9 V (20 pJ at 32 KB, 100 pJ at 1 MB), i.e. energy grows
 * with the square root of capacity: E = 10 pJ × (width/64) × sqrt(bits/65536). It is scaled to
 * 180 nm and 7 nm with {@link NodeScaling#energy}. Outside 1 KB..1 MB this is an extrapolation.
 */
public final class SramModel {
  public static final double ARRAY_EFFICIENCY = 0.70;
  public static final double EXTRA_PORT_FACTOR = 0.30;
  /** 8T read-decoupled bitcell area relative to 6T (Chang et al., JSSC 2008), for compute-in-memory arrays. */
  public static final double CIM_8T_FACTOR = 1.3;
  private static final double HOROWITZ_VDD = 0.9;
  private static final double HOROWITZ_PJ = 10.0;
  private static final double HOROWITZ_BITS = 8 * 1024 * 8;

  public static final String SOURCES = "bitcell 5.59 um^2 at 180 nm (Yang et al., IEDM 1998), 0.346 um^2 "
      + "at 45 nm (Mistry et al., IEDM 2007), 0.027 um^2 at 7 nm (Chang et al., ISSCC 2017); array efficiency "
      + "0.70 and +30 % area per extra port assumed; access energy from Horowitz, ISSCC 2014 (10 pJ per 64-bit "
      + "read of 8 KB at 45 nm, 0.9 V), scaled with sqrt(capacity) and Stillmaker & Baas 2017; compute-in-memory "
      + "arrays (every word read at once) as 8T cells, 1.3x the 6T area (Chang et al., IEEE JSSC 2008)";

  private SramModel() {
  }

  /** 6T bitcell area at a node, µm². */
  public static double bitcellUm2(NodeScaling.Node node) {
    return switch (node) {
      case N180 -> 5.59;
      case N45 -> 0.346;
      case N7 -> 0.027;
    };
  }

  /** Whether the memory is a compute-in-memory bitcell array: every word read at once (see class comment). */
  public static boolean isComputeInMemory(SramMacro m) {
    return m.depth() >= 4 && m.readPorts() >= m.depth();
  }

  /** Area of one copy of the macro at a node, µm². */
  public static double areaUm2(SramMacro m, NodeScaling.Node node) {
    if (isComputeInMemory(m)) {
      return m.bits() * bitcellUm2(node) * CIM_8T_FACTOR / ARRAY_EFFICIENCY;
    }
    int ports = Math.max(1, m.readPorts() + m.writePorts());
    double portFactor = 1 + EXTRA_PORT_FACTOR * (ports - 1);
    return m.bits() * bitcellUm2(node) / ARRAY_EFFICIENCY * portFactor;
  }

  /** Energy of one access (one word read or written) of the macro at a node, pJ. */
  public static double accessEnergyPj(SramMacro m, NodeScaling.Node node) {
    double at45 = HOROWITZ_PJ * (m.width() / 64.0) * Math.sqrt(m.bits() / HOROWITZ_BITS);
    return at45 * NodeScaling.energy(NodeScaling.Node.N45, HOROWITZ_VDD, node);
  }
}
