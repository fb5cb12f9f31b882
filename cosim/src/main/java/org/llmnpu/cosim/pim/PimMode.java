package org.llmnpu.cosim.pim;

import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import org.llmnpu.numerics.fp.FloatFormat;
import org.llmnpu.numerics.pim.PimAlignment;
import org.llmnpu.pim.PimMacroConfig;
import org.llmnpu.pim.PimPrecision;

/** The macro modes a co-simulation can run: INT8/INT4 weights, or FP8 with pre- or post-alignment. */
public enum PimMode {
  INT8, INT4, FP8_PRE, FP8_POST;

  /** CLI spelling: {@code int8}, {@code int4}, {@code fp8-pre}, {@code fp8-post}. */
  public String cliName() {
    return name().toLowerCase(Locale.ROOT).replace('_', '-');
  }

  public static List<String> cliNames() {
    return Arrays.stream(values()).map(PimMode::cliName).toList();
  }

  public static PimMode parse(String s) {
    for (PimMode m : values()) {
      if (m.cliName().equals(s)) {
        return m;
      }
    }
    throw new IllegalArgumentException("--mode: '" + s + "' is not allowed; allowed: " + String.join(", ", cliNames()));
  }

  public boolean isFp() {
    return this == FP8_PRE || this == FP8_POST;
  }

  /** The macro configuration of this mode. {@code fp8} is {@code e4m3} or {@code e5m2} (FP modes only). */
  public PimMacroConfig config(int rows, int cols, String fp8, int inBits, int bitsPerCycle, int alignBits,
                               int accWidth, int mTile, int icAccumDepth) {
    return switch (this) {
      case INT8, INT4 -> new PimMacroConfig(rows, cols, this == INT8 ? PimPrecision.INT8 : PimPrecision.INT4,
          PimMacroConfig.Alignment.NONE, inBits, bitsPerCycle, 0, accWidth, mTile, icAccumDepth);
      case FP8_PRE, FP8_POST -> new PimMacroConfig(rows, cols, fpPrecision(fp8),
          this == FP8_PRE ? PimMacroConfig.Alignment.PRE : PimMacroConfig.Alignment.POST, 8, bitsPerCycle,
          alignBits, 32, mTile, icAccumDepth);
    };
  }

  static PimPrecision fpPrecision(String fp8) {
    return switch (fp8) {
      case "e4m3" -> PimPrecision.FP8_E4M3;
      case "e5m2" -> PimPrecision.FP8_E5M2;
      default -> throw new IllegalArgumentException("--fp8: '" + fp8 + "' is not allowed; allowed: e4m3, e5m2");
    };
  }

  /** The numerics element format of an FP macro config. */
  public static FloatFormat format(PimMacroConfig c) {
    return c.precision() == PimPrecision.FP8_E5M2 ? FloatFormat.FP8_E5M2 : FloatFormat.FP8_E4M3;
  }

  /** The numerics alignment of an FP macro config. */
  public static PimAlignment alignment(PimMacroConfig c) {
    return c.alignment() == PimMacroConfig.Alignment.PRE ? PimAlignment.PRE : PimAlignment.POST;
  }
}
