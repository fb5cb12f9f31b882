package org.llmnpu.reports.ppa;

/**
 * A memory array of the design that is kept out of standard-cell synthesis and stands for an
 * SRAM macro: its shape as Yosys inferred it and how many copies the flattened design holds.
 *
 * @param cellType    the black-box cell type in the netlist, {@code LLMNPU_SRAM_<module>_<name>}
 * @param module      the Verilog module that declares the memory
 * @param name        the memory's name in that module
 * @param width       bits per word
 * @param depth       words
 * @param addressBits address width of each port
 * @param readPorts   read ports
 * @param writePorts  write ports
 * @param readClocked true when every read port is synchronous (registered address or data)
 * @param instances   copies in the flattened design
 */
public record SramMacro(String cellType, String module, String name, int width, int depth, int addressBits,
                        int readPorts, int writePorts, boolean readClocked, int instances) {

  /** Bits of one copy. */
  public long bits() {
    return (long) width * depth;
  }

  /** How every SRAM black-box cell type's name begins. */
  public static final String CELL_PREFIX = "LLMNPU_SRAM_";

  /** The black-box cell type name used for a memory {@code name} of {@code module}. */
  public static String cellTypeFor(String module, String name) {
    return CELL_PREFIX + (module + "_" + name).replaceAll("[^A-Za-z0-9_]", "_");
  }

  SramMacro withInstances(int n) {
    return new SramMacro(cellType, module, name, width, depth, addressBits, readPorts, writePorts, readClocked, n);
  }
}
