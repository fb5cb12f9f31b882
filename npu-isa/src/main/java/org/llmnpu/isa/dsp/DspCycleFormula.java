package org.llmnpu.isa.dsp;

/**
 * Cycles from {@code start} to {@code done} of each compiled kernel on the {@code vector-dsp}:
 * {@code cycles = a + b·log2(lanes) + c·R} with {@code R = ceil(n / lanes)} rows of one operand
 * (n = len, or len/2 for RoPE). The DSP issues one instruction per cycle with no stalls, so the
 * terms count instructions: {@code a} the straight-line ones (13 prologue, loop headers, scalar
 * exp/reciprocal/rsqrt, HALT), {@code b} the reduction trees (2 per level), {@code c} the loop
 * bodies per row.
 *
 * <table>
 *   <caption>Cycle formula per kernel</caption>
 *   <tr><th>kernel</th><th>a</th><th>b</th><th>c</th><th>row body</th></tr>
 *   <tr><td>softmax</td><td>39</td><td>4</td><td>25</td><td>max 2, exp pass 20, scale 3</td></tr>
 *   <tr><td>rmsnorm</td><td>45</td><td>2</td><td>10</td><td>sum of squares 4, scale 6</td></tr>
 *   <tr><td>layernorm</td><td>49</td><td>4</td><td>18</td><td>mean 3, variance 5, scale 10</td></tr>
 *   <tr><td>silu</td><td>15</td><td>0</td><td>42</td><td>x·sigmoid(x) 40</td></tr>
 *   <tr><td>gelu</td><td>15</td><td>0</td><td>46</td><td>cubic 4 + 40</td></tr>
 *   <tr><td>swiglu</td><td>15</td><td>0</td><td>44</td><td>40 + product</td></tr>
 *   <tr><td>residual</td><td>15</td><td>0</td><td>4</td><td></td></tr>
 *   <tr><td>rope</td><td>15</td><td>0</td><td>18</td><td>two FP32 two-term dot products</td></tr>
 *   <tr><td>exp</td><td>15</td><td>0</td><td>17</td><td>15</td></tr>
 *   <tr><td>reciprocal</td><td>15</td><td>0</td><td>19</td><td>17</td></tr>
 *   <tr><td>rsqrt</td><td>15</td><td>0</td><td>22</td><td>20</td></tr>
 *   <tr><td>max</td><td>18</td><td>2</td><td>2</td><td></td></tr>
 *   <tr><td>sum</td><td>19</td><td>2</td><td>3</td><td></td></tr>
 * </table>
 */
public final class DspCycleFormula {
  private DspCycleFormula() {
  }

  /** The {a, b, c} of the class table. */
  public static int[] coefficients(DspKernel kernel) {
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

  /** Cycles of {@code kernel} at vector length {@code len} on {@code lanes} lanes. */
  public static long cycles(DspKernel kernel, int len, int lanes) {
    int[] abc = coefficients(kernel);
    long rows = new DspLayout(kernel, len, lanes).inputRows();
    return abc[0] + (long) abc[1] * Integer.numberOfTrailingZeros(lanes) + abc[2] * rows;
  }
}
