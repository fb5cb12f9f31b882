package org.llmnpu.reports.ppa;

import java.util.Map;
import org.llmnpu.hdl.emit.VerilogDesign;

/** Produces the Verilog of a design for one set of generator parameters (name to value). */
@FunctionalInterface
public interface DesignSource {
  VerilogDesign design(Map<String, String> params);
}
