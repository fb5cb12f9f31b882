package org.llmnpu.soc;

import org.llmnpu.isa.CycleModel;
import org.llmnpu.isa.MachineParams;

/**
 * Cycles of one matrix product {@code [M,K] × [K,N]} as a program of its own on our NPU, timed command by command
 * on {@code npu-isa}'s RTL-validated {@link CycleModel}: per chunk of up to {@code maxM} rows a {@code load} of the
 * chunk's INT8 activations, then per tile of up to {@code maxN} columns a {@code gemm wStream=1} whose weights
 * (INT8, or INT4 with {@code wInt4=1}) stream from memory into the array, and a {@code store} of the tile's INT32
 * results; a final {@code halt}. The array is weight-stationary: the weight streams once per row chunk, so a long
 * activation re-reads it.
 *
 * <p>The order swap ({@link #bestOrder}): {@code [M,N]×[N,K] = ([K,N]×[N,M])ᵀ} — the product computed with the
 * activation as the streamed operand and the weight as the rows, whichever the cycle model finds shorter (the
 * transpose of the result is free in the layout: the store writes the other operand's rows). Swapped, the activation
 * streams as INT8 and the weight's rows are loaded as INT8 lines (an INT4 weight expanded: conservative).
 */
public final class NpuGemmCost {
  private final MachineParams p;
  private final boolean int4;

  public NpuGemmCost(MachineParams p, boolean int4) {
    this.p = p;
    this.int4 = int4;
  }

  public MachineParams machine() {
    return p;
  }

  /** Cycles of {@code [m,k] × [k,n]} with the {@code [k,n]} operand streamed as weights. */
  public long cycles(int m, int k, int n) {
    if (m < 1 || k < 1 || n < 1) {
      throw new IllegalArgumentException("a GEMM needs m, k, n >= 1, got " + m + "x" + k + "x" + n);
    }
    CycleModel model = new CycleModel(p);
    int line = p.lineBytes();
    for (int m0 = 0; m0 < m; m0 += p.maxM()) {
      int rows = Math.min(p.maxM(), m - m0);
      model.fetchAndDecode();
      model.dispatch(true);
      model.load((long) rows * ((k + line - 1) / line));
      for (int n0 = 0; n0 < n; n0 += p.maxN()) {
        int cols = Math.min(p.maxN(), n - n0);
        model.fetchAndDecode();
        model.dispatch(false);
        model.streamedGemm(rows, k, cols, int4, 0, 0, 0);
        model.fetchAndDecode();
        model.dispatch(false);
        model.store((long) rows * ((4L * cols + line - 1) / line));
      }
    }
    model.fetchAndDecode();
    model.dispatch(false);
    return model.now();
  }

  /** The shorter of {@code [m,k]×[k,n]} and its order swap {@code ([n,k]×[k,m])ᵀ}. */
  public Choice bestOrder(int m, int k, int n) {
    long direct = cycles(m, k, n);
    // swapped, the activation streams (INT8) and the weight rows are loaded as INT8 lines
    long swapped = int4 ? new NpuGemmCost(p, false).cycles(n, k, m) : cycles(n, k, m);
    return swapped < direct ? new Choice(swapped, true, direct) : new Choice(direct, false, swapped);
  }

  /** The chosen order: its cycles, whether it is the swapped one, and the other order's cycles. */
  public record Choice(long cycles, boolean swapped, long otherCycles) {
  }
}
