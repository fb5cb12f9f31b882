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

  /** Cycles of {@code kernel} at vector length {@code len} on {@code lanes} lanes with {@code pipeline}. */
  public static long cycles(DspKernel kernel, int len, int lanes, DspPipeline pipeline) {
    int[] abc = coefficients(kernel, pipeline);
    long rows = new DspLayout(kernel, len, lanes).inputRows();
    return abc[0] + (long) abc[1] * Integer.numberOfTrailingZeros(lanes) + abc[2] * rows;
  }
}
