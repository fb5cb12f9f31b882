package org.llmnpu.reports.ppa;

import org.llmnpu.hdl.emit.Verilog;
import org.llmnpu.hdl.gen.BlockGenerator;
import org.llmnpu.hdl.gen.Params;

/** The Verilog of a registered block generator for given parameters, for the PPA flow. */
public final class BlockDesigns {
  private BlockDesigns() {
  }

  /** Resolves the parameters against the generator (defaults, validation), builds and emits. */
  public static DesignSource of(BlockGenerator gen) {
    return params -> Verilog.emit(gen.build(Params.resolve(gen, params)));
  }
}
