package org.llmnpu.hdl.examples;

import static org.llmnpu.hdl.Hw.bool;
import static org.llmnpu.hdl.Hw.sint;
import static org.llmnpu.hdl.Hw.sintLit;

import java.util.List;
import org.llmnpu.hdl.Bool;
import org.llmnpu.hdl.HwModule;
import org.llmnpu.hdl.SInt;
import org.llmnpu.hdl.Vec;
import org.llmnpu.hdl.gen.DeclaredGenerator;
import org.llmnpu.hdl.gen.ParamSpec;

/**
 * A {@code rows x cols} grid of {@link MacPe}: activations enter at the left of each row
 * and move right, partial sums start at zero at the top and move down, weights shift down
 * the columns while {@code load} is high. One PE definition serves every position
 * (deduplicated). The systolic timing (skew) is the driver's job; this is the structural
 * example used to measure elaboration and emission speed.
 */
public final class MacArrayExample extends HwModule {
  /** {@code rows} and {@code cols} in 1..128. */
  public record Config(int rows, int cols) {
    public Config {
      if (rows < 1 || rows > 128 || cols < 1 || cols > 128) {
        throw new IllegalArgumentException("rows and cols must be in 1..128, got " + rows + "x" + cols);
      }
    }
  }

  public final Vec<SInt> acts;
  public final Vec<SInt> weights;
  public final Bool load = in(bool());
  public final Vec<SInt> psums;
  private final Config config;

  public MacArrayExample(Config c) {
    config = c;
    acts = in(Vec.of(c.rows(), () -> sint(8)));
    weights = in(Vec.of(c.cols(), () -> sint(8)));
    psums = out(Vec.of(c.cols(), () -> sint(32)));
    MacPe[][] pe = new MacPe[c.rows()][c.cols()];
    for (int r = 0; r < c.rows(); r++) {
      for (int col = 0; col < c.cols(); col++) {
        MacPe p = instance("pe_" + r + "_" + col, new MacPe());
        pe[r][col] = p;
        p.actIn.set(col == 0 ? acts.get(r) : pe[r][col - 1].actOut);
        p.weightIn.set(r == 0 ? weights.get(col) : pe[r - 1][col].weightOut);
        p.psumIn.set(r == 0 ? sintLit(0, 32) : pe[r - 1][col].psumOut);
        p.load.set(load);
      }
    }
    for (int col = 0; col < c.cols(); col++) {
      psums.get(col).set(pe[c.rows() - 1][col].psumOut);
    }
  }

  @Override
  public String moduleName() {
    return "MacArray_" + config.rows() + "x" + config.cols();
  }

  /** Registers {@code pe-array}. */
  public static final class Generator extends DeclaredGenerator {
    public Generator() {
      super("pe-array", "example grid of 8x8->32-bit weight-stationary MAC PEs",
          List.of(
            ParamSpec.integer("rows", 8, 1, 128, "PE rows"),
            ParamSpec.integer("cols", 8, 1, 128, "PE columns")),
          p -> new MacArrayExample(new Config(p.getInt("rows"), p.getInt("cols"))));
    }
  }
}
