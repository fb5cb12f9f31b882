package org.llmnpu.pim;

import java.util.List;
import org.llmnpu.hdl.gen.DeclaredGenerator;
import org.llmnpu.hdl.gen.ParamException;
import org.llmnpu.hdl.gen.ParamSpec;
import org.llmnpu.hdl.gen.Params;

/**
 * Registers {@code pim-macro}: the digital SRAM compute-in-memory macro ({@link PimMacro}; its
 * Javadoc states numerics and timing, {@link PimCycleModel} the cycle formula).
 */
public final class PimMacroGenerator extends DeclaredGenerator {
  public PimMacroGenerator() {
    super("pim-macro",
        "digital SRAM compute-in-memory macro: INT8/INT4 or FP8 weights with FP8/BF16/MX inputs (pre/post-alignment), bit-serial inputs, periphery-latched psums",
        List.of(
            ParamSpec.integer("rows", 64, 1, 256, "weight rows = K per row group"),
            ParamSpec.integer("cols", 64, 1, 256, "columns = N per pass (adder tree + psum bank each)"),
            ParamSpec.choice("precision", "int8", PimPrecision.cliNames(), "weight (and FP input) element type"),
            ParamSpec.choice("alignment", "pre", List.of("pre", "post"), "FP exponent alignment (ignored for INT)"),
            ParamSpec.integer("inBits", 8, 1, 8, "INT input bits (signed); FP uses the format"),
            ParamSpec.integer("bitsPerCycle", 1, 1, 16, "input bits per cycle: 1 = bit-serial, serial width = parallel"),
            ParamSpec.integer("alignBits", 8, 1, 16, "PRE: magnitude bits kept per aligned element (mantissa+1..16)"),
            ParamSpec.integer("accWidth", 32, 2, 32, "INT psum bits (saturating); FP psums are exact-width"),
            ParamSpec.integer("mTile", 16, 2, 1024, "psum bank entries per column (input vectors per weight tile)"),
            ParamSpec.integer("icAccumDepth", 0, 0, 65536, "row groups folded before a psum write-back; 0 = all"),
            ParamSpec.integer("weightBanks", 1, 1, 2, "bitcell banks: 2 = write the next tile while computing"),
            ParamSpec.choice("input", "fp8", PimInput.cliNames(),
                "FP input elements: fp8 (weights' format), bf16, mxfp8 or mxint8 (E8M0 scale per 32)"),
            ParamSpec.integer("stages", PimMacroConfig.DEFAULT_STAGES, 0, PimMacroConfig.MAX_STAGES,
                "column pipeline registers: 1 latches the row inputs, 2..3 also cut the adder tree (+1 cycle each)")),
        p -> new PimMacro(config(p)));
  }

  /** The config for resolved parameters; a combination the macro cannot build names the parameter. */
  public static PimMacroConfig config(Params p) {
    PimPrecision precision = PimPrecision.parse(p.get("precision"));
    PimMacroConfig.Alignment alignment = precision.isFp()
        ? PimMacroConfig.Alignment.valueOf(p.get("alignment").toUpperCase(java.util.Locale.ROOT))
        : PimMacroConfig.Alignment.NONE;
    try {
      return new PimMacroConfig(p.getInt("rows"), p.getInt("cols"), precision, alignment, p.getInt("inBits"),
          p.getInt("bitsPerCycle"), p.getInt("alignBits"), p.getInt("accWidth"), p.getInt("mTile"),
          p.getInt("icAccumDepth"), p.getInt("weightBanks"), PimInput.parse(p.get("input")), p.getInt("stages"));
    } catch (IllegalArgumentException e) {
      throw new ParamException("pim-macro: " + e.getMessage());
    }
  }
}
