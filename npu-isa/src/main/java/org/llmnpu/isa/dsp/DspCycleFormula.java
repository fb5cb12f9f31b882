package org.llmnpu.isa.dsp;

/**
 * Cycles from {@code start} to {@code done} of each compiled kernel on the {@code vector-dsp}:
 * {@code cycles = a + b·log2(lanes) + c·R} with {@code R = ceil(n / lanes)} rows of one operand
 * (n = len, or len/2 for RoPE). The DSP issues one instruction per cycle and holds an instruction
 * one cycle when it uses the FP result of the instruction just before it ({@link DspPipeline}), so
 * each term counts instructions plus such stalls: {@code a} the straight-line code (13 prologue,
 * loop headers, scalar exp/reciprocal/rsqrt, HALT), {@code b} the reduction trees per level,
 * {@code c} the loop bodies per row. The "before" columns are the two-stage DSP without stalls
 * (every result forwarded the next cycle), whose execute stage held a whole FP operation.
 *
 * <table>
 *   <caption>Cycle formula per kernel (before: two-stage DSP)</caption>
 *   <tr><th>kernel</th><th>a</th><th>b</th><th>c</th><th>before a, b, c</th></tr>
 *   <tr><td>softmax</td><td>48</td><td>6</td><td>34</td><td>39, 4, 25</td></tr>
 *   <tr><td>rmsnorm</td><td>55</td><td>3</td><td>15</td><td>45, 2, 10</td></tr>
 *   <tr><td>layernorm</td><td>60</td><td>6</td><td>28</td><td>49, 4, 18</td></tr>
 *   <tr><td>silu</td><td>15</td><td>0</td><td>58</td><td>15, 0, 42</td></tr>
 *   <tr><td>gelu</td><td>15</td><td>0</td><td>66</td><td>15, 0, 46</td></tr>
 *   <tr><td>swiglu</td><td>15</td><td>0</td><td>61</td><td>15, 0, 44</td></tr>
 *   <tr><td>residual</td><td>15</td><td>0</td><td>5</td><td>15, 0, 4</td></tr>
 *   <tr><td>rope</td><td>15</td><td>0</td><td>24</td><td>15, 0, 18</td></tr>
 *   <tr><td>exp</td><td>15</td><td>0</td><td>23</td><td>15, 0, 17</td></tr>
 *   <tr><td>reciprocal</td><td>15</td><td>0</td><td>25</td><td>15, 0, 19</td></tr>
 *   <tr><td>rsqrt</td><td>15</td><td>0</td><td>28</td><td>15, 0, 22</td></tr>
 *   <tr><td>max</td><td>19</td><td>3</td><td>2</td><td>18, 2, 2</td></tr>
 *   <tr><td>sum</td><td>21</td><td>3</td><td>4</td><td>19, 2, 3</td></tr>
 * </table>
 */
public final class DspCycleFormula {
  private DspCycleFormula() {
  }

  /** The {a, b, c} of the class table. */
  public static int[] coefficients(DspKernel kernel) {
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

  /** Cycles of {@code kernel} at vector length {@code len} on {@code lanes} lanes. */
  public static long cycles(DspKernel kernel, int len, int lanes) {
    int[] abc = coefficients(kernel);
    long rows = new DspLayout(kernel, len, lanes).inputRows();
    return abc[0] + (long) abc[1] * Integer.numberOfTrailingZeros(lanes) + abc[2] * rows;
  }
}
