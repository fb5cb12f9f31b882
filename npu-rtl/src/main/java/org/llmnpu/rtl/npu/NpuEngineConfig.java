package org.llmnpu.rtl.npu;

import static org.llmnpu.rtl.npu.NpuParameter.ACC_WIDTH;
import static org.llmnpu.rtl.npu.NpuParameter.IC_ACCUM_DEPTH;
import static org.llmnpu.rtl.npu.NpuParameter.MAX_K;
import static org.llmnpu.rtl.npu.NpuParameter.MAX_M;
import static org.llmnpu.rtl.npu.NpuParameter.MAX_N;
import static org.llmnpu.rtl.npu.NpuParameter.M_TILE;
import static org.llmnpu.rtl.npu.NpuParameter.ROWS;

import java.util.ArrayList;
import java.util.List;
import org.llmnpu.rtl.mac.GemmEngineConfig;
import org.llmnpu.rtl.mac.MacArrayConfig;
import org.llmnpu.rtl.mac.WeightSparsity;

/**
 * The NPU's GEMM engine: its kind, the square MAC array ({@code rows × rows}, its accumulators and N:M mode), the
 * largest GEMM its buffers hold and how fast weights are copied into it. Allowed values and defaults:
 * {@link NpuParameter}; errors name the flat parameter. An N:M array needs the systolic engine, one W row a cycle and
 * {@code maxK ≤ 32768} (its buffers hold {@code 2·maxK}); {@code weightRowsPerCycle} is at most {@code min(rows, 16)}.
 *
 * @param kind               {@code engine}
 * @param rows               {@code rows}: MAC array rows = columns, also the bytes of a scratchpad line and a beat
 * @param mTile              {@code mTile}
 * @param accWidth           {@code accWidth}
 * @param icAccumDepth       {@code icAccumDepth}
 * @param maxM               {@code maxM}
 * @param maxK               {@code maxK}
 * @param maxN               {@code maxN}
 * @param sparsity           {@code sparsity}: {@code dense}, {@code 2:4} or {@code 4:8}
 * @param weightRowsPerCycle {@code weightRowsPerCycle}: W rows copied from the scratchpad into the engine a cycle
 * @param xKeep              {@code xKeep}: the X buffer is kept across GEMMs ({@code gemm xKeep=1}; systolic only)
 */
public record NpuEngineConfig(NpuEngineKind kind, int rows, int mTile, int accWidth, int icAccumDepth, int maxM,
                              int maxK, int maxN, WeightSparsity sparsity, int weightRowsPerCycle, boolean xKeep) {
  public NpuEngineConfig {
    if (xKeep && kind != NpuEngineKind.SYSTOLIC) {
      throw new IllegalArgumentException("xKeep needs engine systolic (the PiM macro's X path keeps no X buffer), got"
          + " engine " + (kind == null ? null : kind.key()));
    }
    if (kind == null) {
      throw new IllegalArgumentException("engine must be one of " + String.join(", ", NpuEngineKind.keys())
          + ", got null");
    }
    if (sparsity == null) {
      throw new IllegalArgumentException("sparsity must be " + NpuParameter.SPARSITY.domain().allowed() + ", got null");
    }
    ROWS.check(rows);
    M_TILE.check(mTile);
    ACC_WIDTH.check(accWidth);
    IC_ACCUM_DEPTH.check(icAccumDepth);
    MAX_M.check(maxM);
    MAX_K.check(maxK);
    MAX_N.check(maxN);
    String nm = sparsityKey(sparsity);
    if (sparsity.sparse() && kind != NpuEngineKind.SYSTOLIC) {
      throw new IllegalArgumentException("sparsity " + nm + " needs engine systolic (the PiM macro holds dense"
          + " weights); use sparsity dense with engine " + kind.key());
    }
    if (sparsity.sparse() && maxK > 32768) {
      throw new IllegalArgumentException("sparsity " + nm + " needs maxK in 1..32768 (the N:M engine's buffers"
          + " hold 2·maxK), got " + maxK);
    }
    if (sparsity.sparse() && weightRowsPerCycle != 1) {
      throw new IllegalArgumentException("sparsity " + nm + " needs weightRowsPerCycle 1 (the N:M W copy moves"
          + " one value or metadata row a cycle), got " + weightRowsPerCycle);
    }
    List<Integer> allowed = new ArrayList<>();
    for (int r = 1; r <= Math.min(rows, NpuConfig.MAX_WEIGHT_ROWS_PER_CYCLE); r *= 2) {
      allowed.add(r);
    }
    if (!allowed.contains(weightRowsPerCycle)) {
      throw new IllegalArgumentException("weightRowsPerCycle must be one of " + allowed + " (powers of two up to"
          + " min(rows, " + NpuConfig.MAX_WEIGHT_ROWS_PER_CYCLE + "), rows = " + rows + "), got " + weightRowsPerCycle);
    }
  }

  /**
   * The engine's parameters. An N:M engine gets {@code maxK·2}: it runs a dense GEMM of K as an N:M one of
   * {@code 2K} (see {@link NpuGemm}), and its K tiles of {@code 2·rows} then cover the dense tiles of {@code rows}.
   */
  public GemmEngineConfig gemm() {
    return new GemmEngineConfig(new MacArrayConfig(rows, rows, accWidth, mTile, icAccumDepth, sparsity), maxM,
        sparsity.sparse() ? 2 * maxK : maxK, maxN);
  }

  /** The ISA code of {@link #sparsity} ({@code Command.DENSE}, {@code S2_4}, {@code S4_8}). */
  public int sparsityCode() {
    return switch (sparsity) {
      case NONE -> org.llmnpu.isa.Command.DENSE;
      case S2_4 -> org.llmnpu.isa.Command.S2_4;
      case S4_8 -> org.llmnpu.isa.Command.S4_8;
    };
  }

  /** The configuration name of an N:M mode: {@code dense}, {@code 2:4} or {@code 4:8}. */
  public static String sparsityKey(WeightSparsity s) {
    return switch (s) {
      case NONE -> "dense";
      case S2_4 -> "2:4";
      case S4_8 -> "4:8";
    };
  }

  /** The N:M mode of a configuration name (any spelling {@link NpuParameter#SPARSITY} accepts). */
  public static WeightSparsity sparsityOf(String text) {
    return switch (NpuParameter.SPARSITY.canonical(text)) {
      case "2:4" -> WeightSparsity.S2_4;
      case "4:8" -> WeightSparsity.S4_8;
      default -> WeightSparsity.NONE;
    };
  }
}
