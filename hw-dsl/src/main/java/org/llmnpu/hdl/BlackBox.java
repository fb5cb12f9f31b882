package org.llmnpu.hdl;

import java.util.Map;

/**
 * A module whose Verilog already exists: declare its ports as fields as usual, give its
 * Verilog name, parameters and (optionally) source text. It is instanced with
 * {@code #(.P(v))} parameters and never emitted; its source, when given, is added to the
 * design's files. For loop checks its outputs are taken as not depending combinationally
 * on its inputs.
 */
public abstract class BlackBox extends HwModule {
  /** Parameter name to value (Integer, Long, String or Boolean), in order. */
  public abstract Map<String, Object> parameters();

  /** Verilog source text of the module, or null when the user supplies the file. */
  public String source() {
    return null;
  }

  /** The file name under which {@link #source()} is written into the design ({@code <module>.v} by default). */
  public String sourceFileName() {
    return moduleName() + ".v";
  }
}
