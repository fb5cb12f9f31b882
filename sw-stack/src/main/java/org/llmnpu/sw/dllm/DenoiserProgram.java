package org.llmnpu.sw.dllm;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.llmnpu.isa.CycleFormulas;
import org.llmnpu.isa.MachineParams;
import org.llmnpu.sw.model.ModelConfig;
import org.llmnpu.sw.shadow.EstimationProgram;

/**
 * One denoiser pass as an {@code npu-isa} program: the INT8 GEMMs {@code Y[M×N] = X[M×K]·W[K×N]} of {@code rows}
 * tokens through every layer — the Q, K, V projections (GQA widths), per query head the scores {@code Q·Kᵀ}
 * ({@code K = headDim}, {@code N = context}) and values {@code P·V} ({@code K = context}, {@code N = headDim}), the
 * output projection, the SwiGLU gate, up and down projections — then the classifier for the {@code logitRows} rows
 * whose tokens are predicted. A {@code K} above the engine's {@code maxK} is split into chunks whose INT32 partials
 * the host adds. Each GEMM is one task of an {@link EstimationProgram} (its X as the query codes, Wᵀ as the key
 * codes): per tile {@code load} X, {@code load} W, {@code gemm}, the previous tile's {@code store}, scores
 * double-buffered, so the NPU cycles are those of {@code npu-isa}'s RTL-validated cycle model
 * ({@link EstimationProgram#cycles}).
 *
 * <p><b>Staircase.</b> The engine takes M in chunks of {@code mTile} rows and loads each W tile once per chunk, and
 * a chunk of up to {@code mTile} rows streams in no more cycles than its W tile takes to load ({@code rows} cycles),
 * so the array's cycles ({@link #engineCycles}) are flat within a chunk and jump when {@code rows} crosses a multiple
 * of {@code mTile}. The whole program ({@link #gemmCycles}) adds each row's X load and Y store (DMA serial with the
 * GEMMs in this program): a staircase on a ramp — on the default NPU (16×16, mTile 16) a step of about four rows'
 * worth of DMA at every 16 rows.
 *
 * <p>The vector work the array cannot do (RMSNorm, RoPE, SoftMax, SiLU·up, residuals: {@link #vectorOps}) runs on
 * the Vector DSP at {@code lanes} operations a cycle ({@link #dspCycles}); the array does {@code rows²} MACs a cycle.
 */
public final class DenoiserProgram {
  private DenoiserProgram() {
  }

  /** The GEMM tasks of a pass: {@code (m, n, d = K chunk)}. */
  public static List<EstimationProgram.Shape> gemms(MachineParams p, ModelConfig c, int rows, int context,
                                                    int logitRows) {
    return gemms(p, c, rows, context, logitRows, c.layers());
  }

  private static List<EstimationProgram.Shape> gemms(MachineParams p, ModelConfig c, int rows, int context,
                                                     int logitRows, int layers) {
    if (rows < 1 || context < 1 || logitRows < 0 || logitRows > rows) {
      throw new IllegalArgumentException("a denoiser pass needs rows >= 1, context >= 1 and 0 <= logitRows <= rows, "
          + "got " + rows + ", " + context + ", " + logitRows);
    }
    List<EstimationProgram.Shape> out = new ArrayList<>();
    for (int l = 0; l < layers; l++) {
      add(p, out, rows, c.dim(), c.dim());
      add(p, out, rows, c.dim(), c.kvDim());
      add(p, out, rows, c.dim(), c.kvDim());
      for (int h = 0; h < c.heads(); h++) {
        add(p, out, rows, c.headDim(), context);
        add(p, out, rows, context, c.headDim());
      }
      add(p, out, rows, c.dim(), c.dim());
      add(p, out, rows, c.dim(), c.hiddenDim());
      add(p, out, rows, c.dim(), c.hiddenDim());
      add(p, out, rows, c.hiddenDim(), c.dim());
    }
    if (logitRows > 0) {
      add(p, out, logitRows, c.dim(), c.vocabSize());
    }
    return out;
  }

  private static void add(MachineParams p, List<EstimationProgram.Shape> out, int m, int k, int n) {
    for (int k0 = 0; k0 < k; k0 += p.maxK()) {
      out.add(new EstimationProgram.Shape(m, n, Math.min(p.maxK(), k - k0)));
    }
  }

  /** The pass's program and layout (memory not checked: for timing only). */
  public static EstimationProgram.Plan plan(MachineParams p, ModelConfig c, int rows, int context, int logitRows) {
    return EstimationProgram.plan(p, gemms(p, c, rows, context, logitRows), false);
  }

  /**
   * The pass's GEMM cycles on {@code p}'s cycle model: one program, or — when the pass's operands would pass the
   * ISA's 32-bit addresses (a LLaMA-sized model) — one program of a layer times the layers (the layers are alike)
   * plus the classifier's program.
   */
  public static long gemmCycles(MachineParams p, ModelConfig c, int rows, int context, int logitRows) {
    EstimationProgram.Plan layer = EstimationProgram.plan(p, gemms(p, c, rows, context, 0, 1), false);
    if ((long) c.layers() * layer.end() < (1L << 31)) {
      return EstimationProgram.cycles(p, plan(p, c, rows, context, logitRows).program());
    }
    long cycles = c.layers() * EstimationProgram.cycles(p, layer.program());
    if (logitRows > 0) {
      cycles += EstimationProgram.cycles(p, EstimationProgram.plan(p, gemms(p, c, rows, context, logitRows, 0),
          false).program());
    }
    return cycles;
  }

  /**
   * The MAC array's own cycles for the pass's GEMMs ({@code CycleFormulas.engineCycles}: W in at the start, no DMA): the
   * array's staircase without the rows' loads and stores, which the program's {@link #gemmCycles} adds per row.
   */
  public static long engineCycles(MachineParams p, ModelConfig c, int rows, int context, int logitRows) {
    long sum = 0;
    for (EstimationProgram.Shape s : gemms(p, c, rows, context, logitRows)) {
      sum += CycleFormulas.engineCycles(p.rows(), p.rows(), p.mTile(), s.m(), s.d(), s.n());
    }
    return sum;
  }

  /**
   * Vector operations of a pass: per layer and row two RMSNorms (4 an element), RoPE on Q and K (4 an element),
   * SoftMax over each head's scores (4 an element), SiLU·up (5 an element of the hidden width), two residual adds.
   */
  public static long vectorOps(ModelConfig c, int rows, int context) {
    long perRow = 2L * 4 * c.dim() + 4L * (c.dim() + c.kvDim()) + 4L * c.heads() * context + 5L * c.hiddenDim()
        + 2L * c.dim();
    return c.layers() * rows * perRow;
  }

  /** The Vector DSP's cycles for {@link #vectorOps}: its lanes each do an operation a cycle. */
  public static long dspCycles(MachineParams p, ModelConfig c, int rows, int context) {
    return (vectorOps(c, rows, context) + p.dsp().lanes() - 1) / p.dsp().lanes();
  }

  /** A pass's image filled with seeded random INT8 codes (for running it on the golden simulator or the RTL). */
  public static byte[] image(MachineParams p, EstimationProgram.Plan plan, long seed) {
    Random rnd = new Random(seed);
    List<byte[][]> x = new ArrayList<>();
    List<byte[][]> w = new ArrayList<>();
    for (EstimationProgram.Placement pl : plan.placements()) {
      x.add(codes(rnd, pl.shape().m(), pl.shape().d()));
      w.add(codes(rnd, pl.shape().n(), pl.shape().d()));
    }
    return EstimationProgram.image(p, plan, x, w);
  }

  private static byte[][] codes(Random rnd, int rows, int cols) {
    byte[][] out = new byte[rows][cols];
    for (byte[] r : out) {
      rnd.nextBytes(r);
    }
    return out;
  }
}
