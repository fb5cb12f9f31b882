package org.llmnpu.isa.dsp;

/**
 * Cycles from {@code start} to {@code done} of each compiled kernel on the {@code vector-dsp}:
 * {@code cycles = a + b·log2(lanes) + c·R} with {@code R = ceil(n / lanes)} rows of one operand
 * (n = len, or len/2 for RoPE). With the default one-stage execute ({@link DspPipeline}) the DSP
 * issues one instruction per cycle with no stalls, so the terms count instructions: {@code a} the
 * straight-line ones (13 prologue, loop headers, scalar exp/reciprocal/rsqrt, HALT), {@code b} the
 * reduction trees (2 per level), {@code c} the loop bodies per row. With the two-stage execute an
 * instruction that uses the FP result of the one just before it waits a cycle; the second set of
 * coefficients counts those stalls too.
 *
 * <table>
 *   <caption>Cycle formula per kernel</caption>
 *   <tr><th>kernel</th><th>a</th><th>b</th><th>c</th><th>two-stage execute: a, b, c</th></tr>
 *   <tr><td>softmax</td><td>39</td><td>4</td><td>25</td><td>48, 6, 34</td></tr>
 *   <tr><td>rmsnorm</td><td>45</td><td>2</td><td>10</td><td>55, 3, 15</td></tr>
 *   <tr><td>layernorm</td><td>49</td><td>4</td><td>18</td><td>60, 6, 28</td></tr>
 *   <tr><td>silu</td><td>15</td><td>0</td><td>42</td><td>15, 0, 58</td></tr>
 *   <tr><td>gelu</td><td>15</td><td>0</td><td>46</td><td>15, 0, 66</td></tr>
 *   <tr><td>swiglu</td><td>15</td><td>0</td><td>44</td><td>15, 0, 61</td></tr>
 *   <tr><td>residual</td><td>15</td><td>0</td><td>4</td><td>15, 0, 5</td></tr>
 *   <tr><td>rope</td><td>15</td><td>0</td><td>18</td><td>15, 0, 24</td></tr>
 *   <tr><td>exp</td><td>15</td><td>0</td><td>17</td><td>15, 0, 23</td></tr>
 *   <tr><td>reciprocal</td><td>15</td><td>0</td><td>19</td><td>15, 0, 25</td></tr>
 *   <tr><td>rsqrt</td><td>15</td><td>0</td><td>22</td><td>15, 0, 28</td></tr>
 *   <tr><td>max</td><td>18</td><td>2</td><td>2</td><td>19, 3, 2</td></tr>
 *   <tr><td>sum</td><td>19</td><td>2</td><td>3</td><td>21, 3, 4</td></tr>
 * </table>
 *
 * <p>With {@link DspKernels.Options#fma32()} (a DSP built with {@code fma32}) the per-row term {@code c}
 * drops for RMSNorm by 1 (one execute stage) or 2 (two: the fused step also removes a stall) and
 * for RoPE by 1; every other kernel is unchanged.
 *
 * <p>With {@link DspKernels.Options#interleave()} the row-independent passes handle two rows per
 * iteration ({@link DspInterleave}), so the row term depends on the parity of R:
 * {@code cycles = a + b·log2(lanes) + p·floor(R/2) + o·(R mod 2)}. The pair term {@code p} is the
 * same for both pipelines in every map kernel: the interleaving hides every stall.
 *
 * <table>
 *   <caption>Cycle formula of the interleaved programs (a, b, p, o)</caption>
 *   <tr><th>kernel</th><th>one execute stage</th><th>two execute stages</th></tr>
 *   <tr><td>softmax</td><td>37, 4, 52, 28</td><td>46, 6, 54, 37</td></tr>
 *   <tr><td>rmsnorm</td><td>40, 2, 20, 11</td><td>50, 3, 24, 16</td></tr>
 *   <tr><td>layernorm</td><td>44, 4, 36, 19</td><td>55, 6, 44, 29</td></tr>
 *   <tr><td>silu</td><td>11, 0, 84, 43</td><td>11, 0, 84, 59</td></tr>
 *   <tr><td>gelu</td><td>13, 0, 92, 47</td><td>13, 0, 92, 67</td></tr>
 *   <tr><td>swiglu</td><td>11, 0, 88, 45</td><td>11, 0, 88, 62</td></tr>
 *   <tr><td>residual</td><td>6, 0, 8, 5</td><td>6, 0, 8, 6</td></tr>
 *   <tr><td>rope</td><td>6, 0, 36, 19</td><td>6, 0, 36, 25</td></tr>
 *   <tr><td>exp</td><td>9, 0, 34, 18</td><td>9, 0, 34, 24</td></tr>
 *   <tr><td>reciprocal</td><td>7, 0, 38, 20</td><td>7, 0, 38, 26</td></tr>
 *   <tr><td>rsqrt</td><td>8, 0, 44, 23</td><td>8, 0, 44, 29</td></tr>
 *   <tr><td>max</td><td>7, 2, 4, 2</td><td>8, 3, 4, 2</td></tr>
 *   <tr><td>sum</td><td>8, 2, 6, 3</td><td>10, 3, 8, 4</td></tr>
 * </table>
 * With {@code fma32} as well, a per-row saving {@code δ} above (RMSNorm 1 or 2, RoPE 1) lowers
 * {@code p} by 2δ and {@code o} by δ.
 */
public final class DspCycleFormula {
  private DspCycleFormula() {
  }

  /** The {a, b, c} of the class table for the default DSP. */
  public static int[] coefficients(DspKernel kernel) {
    return coefficients(kernel, DspPipeline.DEFAULT);
  }

  /** The {a, b, c} of the class table for a DSP with {@code pipeline}. */
  public static int[] coefficients(DspKernel kernel, DspPipeline pipeline) {
    if (pipeline == DspPipeline.TWO_STAGE_EXECUTE) {
      return switch (kernel) {
        case SOFTMAX -> new int[] {48, 6, 34};
        case RMSNORM -> new int[] {55, 3, 15};
        case LAYERNORM -> new int[] {60, 6, 28};
        case SILU -> new int[] {15, 0, 58};
        case GELU -> new int[] {15, 0, 66};
        case SWIGLU -> new int[] {15, 0, 61};
        case RESIDUAL -> new int[] {15, 0, 5};
        case ROPE -> new int[] {15, 0, 24};
        case EXP -> new int[] {15, 0, 23};
        case RECIPROCAL -> new int[] {15, 0, 25};
        case RSQRT -> new int[] {15, 0, 28};
        case MAX -> new int[] {19, 3, 2};
        case SUM -> new int[] {21, 3, 4};
      };
    }
    return switch (kernel) {
      case SOFTMAX -> new int[] {39, 4, 25};
      case RMSNORM -> new int[] {45, 2, 10};
      case LAYERNORM -> new int[] {49, 4, 18};
      case SILU -> new int[] {15, 0, 42};
      case GELU -> new int[] {15, 0, 46};
      case SWIGLU -> new int[] {15, 0, 44};
      case RESIDUAL -> new int[] {15, 0, 4};
      case ROPE -> new int[] {15, 0, 18};
      case EXP -> new int[] {15, 0, 17};
      case RECIPROCAL -> new int[] {15, 0, 19};
      case RSQRT -> new int[] {15, 0, 22};
      case MAX -> new int[] {18, 2, 2};
      case SUM -> new int[] {19, 2, 3};
    };
  }

  /** Cycles of {@code kernel} at vector length {@code len} on {@code lanes} lanes (default DSP). */
  public static long cycles(DspKernel kernel, int len, int lanes) {
    return cycles(kernel, len, lanes, DspPipeline.DEFAULT);
  }

  /** The {a, b, c} for a DSP with {@code pipeline} running programs compiled with {@code options}. */
  public static int[] coefficients(DspKernel kernel, DspPipeline pipeline, DspKernels.Options options) {
    int[] abc = coefficients(kernel, pipeline);
    if (options.fma32()) {
      if (kernel == DspKernel.RMSNORM) {
        abc[2] -= pipeline == DspPipeline.TWO_STAGE_EXECUTE ? 2 : 1;
      } else if (kernel == DspKernel.ROPE) {
        abc[2] -= 1;
      }
    }
    return abc;
  }

  /** The {a, b, p, o} of the interleaved programs ({@link DspKernels.Options#interleave()}). */
  public static int[] interleavedCoefficients(DspKernel kernel, DspPipeline pipeline, DspKernels.Options options) {
    int[] abpo = pipeline == DspPipeline.TWO_STAGE_EXECUTE ? switch (kernel) {
      case SOFTMAX -> new int[] {46, 6, 54, 37};
      case RMSNORM -> new int[] {50, 3, 24, 16};
      case LAYERNORM -> new int[] {55, 6, 44, 29};
      case SILU -> new int[] {11, 0, 84, 59};
      case GELU -> new int[] {13, 0, 92, 67};
      case SWIGLU -> new int[] {11, 0, 88, 62};
      case RESIDUAL -> new int[] {6, 0, 8, 6};
      case ROPE -> new int[] {6, 0, 36, 25};
      case EXP -> new int[] {9, 0, 34, 24};
      case RECIPROCAL -> new int[] {7, 0, 38, 26};
      case RSQRT -> new int[] {8, 0, 44, 29};
      case MAX -> new int[] {8, 3, 4, 2};
      case SUM -> new int[] {10, 3, 8, 4};
    } : switch (kernel) {
      case SOFTMAX -> new int[] {37, 4, 52, 28};
      case RMSNORM -> new int[] {40, 2, 20, 11};
      case LAYERNORM -> new int[] {44, 4, 36, 19};
      case SILU -> new int[] {11, 0, 84, 43};
      case GELU -> new int[] {13, 0, 92, 47};
      case SWIGLU -> new int[] {11, 0, 88, 45};
      case RESIDUAL -> new int[] {6, 0, 8, 5};
      case ROPE -> new int[] {6, 0, 36, 19};
      case EXP -> new int[] {9, 0, 34, 18};
      case RECIPROCAL -> new int[] {7, 0, 38, 20};
      case RSQRT -> new int[] {8, 0, 44, 23};
      case MAX -> new int[] {7, 2, 4, 2};
      case SUM -> new int[] {8, 2, 6, 3};
    };
    int saved = coefficients(kernel, pipeline)[2] - coefficients(kernel, pipeline, options)[2];
    abpo[2] -= 2 * saved;
    abpo[3] -= saved;
    return abpo;
  }

  /** Cycles of {@code kernel} at vector length {@code len} on {@code lanes} lanes with {@code pipeline}. */
  public static long cycles(DspKernel kernel, int len, int lanes, DspPipeline pipeline) {
    return cycles(kernel, len, lanes, pipeline, DspKernels.Options.DEFAULT);
  }

  /** Cycles of the program compiled with {@code options} on a DSP with {@code pipeline}. */
  public static long cycles(DspKernel kernel, int len, int lanes, DspPipeline pipeline, DspKernels.Options options) {
    if (options.interleave()) {
      int[] abpo = interleavedCoefficients(kernel, pipeline, options);
      long rows = new DspLayout(kernel, len, lanes).inputRows();
      return abpo[0] + (long) abpo[1] * Integer.numberOfTrailingZeros(lanes) + abpo[2] * (rows / 2)
          + abpo[3] * (rows % 2);
    }
    int[] abc = coefficients(kernel, pipeline, options);
    long rows = new DspLayout(kernel, len, lanes).inputRows();
    return abc[0] + (long) abc[1] * Integer.numberOfTrailingZeros(lanes) + abc[2] * rows;
  }
}
