package org.llmnpu.rtl.mac;

import java.util.List;
import org.llmnpu.hdl.HwModule;
import org.llmnpu.hdl.gen.BlockGenerator;
import org.llmnpu.hdl.gen.ParamSpec;
import org.llmnpu.hdl.gen.Params;

/**
 * Registers {@code mac-array}: the weight-stationary INT8 array with periphery accumulators
 * ({@link MacArray}; Javadoc there states numerics and timing). {@code icAccumDepth} 0 = all K tiles.
 */
public final class MacArrayGenerator implements BlockGenerator {
  /** The array parameters shared by {@code mac-array} and {@code gemm-engine}. */
  static List<ParamSpec> arrayParams() {
    return List.of(
        ParamSpec.integer("rows", 8, 1, 128, "PE rows (K per pass; a multiple of 2 with s2_4, of 4 with s4_8)"),
        ParamSpec.integer("cols", 8, 1, 128, "PE columns (N per pass)"),
        ParamSpec.integer("accWidth", 32, 2, 32, "periphery accumulator bits (saturating, sticky overflow)"),
        ParamSpec.integer("mTile", 16, 2, 1024, "accumulator bank depth per column (M rows per chunk)"),
        ParamSpec.integer("icAccumDepth", 0, 0, 65536, "K tiles folded locally before a psum write-back; 0 = all"),
        ParamSpec.choice("sparsity", "none", List.of("none", "s2_4", "s4_8"),
            "weight sparsity: dense, or 2:4 / 4:8 compressed along K"));
  }

  static MacArrayConfig arrayConfig(Params p) {
    return new MacArrayConfig(p.getInt("rows"), p.getInt("cols"), p.getInt("accWidth"), p.getInt("mTile"),
        p.getInt("icAccumDepth"), WeightSparsity.parse(p.get("sparsity")));
  }

  @Override
  public String name() {
    return "mac-array";
  }

  @Override
  public String description() {
    return "weight-stationary INT8 MAC array, double-buffered weights, IC-accumulating periphery, 2:4 and 4:8 skipping";
  }

  @Override
  public List<ParamSpec> params() {
    return arrayParams();
  }

  @Override
  public HwModule build(Params p) {
    MacArrayConfig a = arrayConfig(p);
    return new MacArray(a, 16);
  }
}
