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
 * drops for RMSNorm by 1 (one execute stage), 2 (two), 3 (three) or 4 (four) and for RoPE by 1; every
 * other kernel is unchanged.
 *
 * <p>With {@link DspKernels.Options#interleave()} the row-independent passes handle K rows per
 * iteration ({@link DspInterleave}; K = {@link DspKernels#rowsPerIteration}), so the row term depends
 * on R mod K: {@code cycles = a + b·log2(lanes) + p·floor(R/K) + t[R mod K]} with {@code t[0] = 0}.
 * Coefficients {a, b, p, t[1], …, t[K−1]} for K = 2 (the pair term {@code p} is the same for one and
 * two execute stages in every map kernel: the interleaving hides every stall):
 *
 * <table>
 *   <caption>Cycle formula of the programs interleaved by 2 rows (a, b, p, o = t[1])</caption>
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
 *
 * <p>Three and four execute stages ({@link DspPipeline#THREE_STAGE_EXECUTE},
 * {@link DspPipeline#FOUR_STAGE_EXECUTE}): the same formulas with the coefficients of {@link #TABLES}
 * (listed in npu-rtl/README.md), for the plain programs, the programs interleaved by 2 rows and
 * those interleaved by N rows ({@link DspKernels.Options#forPipeline}; SoftMax, SiLU, GeLU and SwiGLU
 * fit only 2 copies in the registers, exp, reciprocal and rsqrt 3). Every table is the static count
 * of the compiled programs ({@link DspProgram#cycles(DspPipeline)}), which equals the RTL's counter.
 *
 * <p>With {@link DspKernels.Options#rotateSumOfSquares()}, where it applies (RMSNorm without {@code fma32}, a whole
 * number R ≥ 3 of rows: {@link DspSumOfSquares}), RMSNorm's cycles are those of the same options without it plus
 * {@code d0 + d1·R}: {@code (0, 0)} with one execute stage (1 + 4·R instructions either way, no stall),
 * {@code (1, −2)} with two, {@code (4, −4)} with three and {@code (4, −5)} with four (10 → 5 cycles a row).
 */
public final class DspCycleFormula {
  private DspCycleFormula() {
  }

  /** [pipeline][mode][kernel]: modes plain, plain + fma32, 2 rows, 2 rows + fma32, N rows, N rows + fma32 (null: none). */
  private static final int[][][][] TABLES = {
    { // ONE_STAGE_EXECUTE
      {{39, 4, 25}, {45, 2, 10}, {49, 4, 18}, {15, 0, 42}, {15, 0, 46}, {15, 0, 44}, {15, 0, 4},
          {15, 0, 18}, {15, 0, 17}, {15, 0, 19}, {15, 0, 22}, {18, 2, 2}, {19, 2, 3}}, // plain
      {{39, 4, 25}, {45, 2, 9}, {49, 4, 18}, {15, 0, 42}, {15, 0, 46}, {15, 0, 44}, {15, 0, 4},
          {15, 0, 17}, {15, 0, 17}, {15, 0, 19}, {15, 0, 22}, {18, 2, 2}, {19, 2, 3}}, // plainf
      {{37, 4, 52, 28}, {40, 2, 20, 11}, {44, 4, 36, 19}, {11, 0, 84, 43}, {13, 0, 92, 47}, {11, 0, 88, 45}, {6, 0, 8, 5},
          {6, 0, 36, 19}, {9, 0, 34, 18}, {7, 0, 38, 20}, {8, 0, 44, 23}, {7, 2, 4, 2}, {8, 2, 6, 3}}, // i2
      {{37, 4, 52, 28}, {40, 2, 18, 10}, {44, 4, 36, 19}, {11, 0, 84, 43}, {13, 0, 92, 47}, {11, 0, 88, 45}, {6, 0, 8, 5},
          {6, 0, 34, 18}, {9, 0, 34, 18}, {7, 0, 38, 20}, {8, 0, 44, 23}, {7, 2, 4, 2}, {8, 2, 6, 3}}, // i2f
      null,
      null,
    },
    { // TWO_STAGE_EXECUTE
      {{48, 6, 34}, {55, 3, 15}, {60, 6, 28}, {15, 0, 58}, {15, 0, 66}, {15, 0, 61}, {15, 0, 5},
          {15, 0, 24}, {15, 0, 23}, {15, 0, 25}, {15, 0, 28}, {19, 3, 2}, {21, 3, 4}}, // plain
      {{48, 6, 34}, {55, 3, 13}, {60, 6, 28}, {15, 0, 58}, {15, 0, 66}, {15, 0, 61}, {15, 0, 5},
          {15, 0, 23}, {15, 0, 23}, {15, 0, 25}, {15, 0, 28}, {19, 3, 2}, {21, 3, 4}}, // plainf
      {{46, 6, 54, 37}, {50, 3, 24, 16}, {55, 6, 44, 29}, {11, 0, 84, 59}, {13, 0, 92, 67}, {11, 0, 88, 62}, {6, 0, 8, 6},
          {6, 0, 36, 25}, {9, 0, 34, 24}, {7, 0, 38, 26}, {8, 0, 44, 29}, {8, 3, 4, 2}, {10, 3, 8, 4}}, // i2
      {{46, 6, 54, 37}, {50, 3, 20, 14}, {55, 6, 44, 29}, {11, 0, 84, 59}, {13, 0, 92, 67}, {11, 0, 88, 62}, {6, 0, 8, 6},
          {6, 0, 34, 24}, {9, 0, 34, 24}, {7, 0, 38, 26}, {8, 0, 44, 29}, {8, 3, 4, 2}, {10, 3, 8, 4}}, // i2f
      null,
      null,
    },
    { // THREE_STAGE_EXECUTE
      {{57, 8, 45}, {67, 4, 20}, {73, 8, 38}, {15, 0, 76}, {15, 0, 88}, {15, 0, 80}, {15, 0, 6},
          {15, 0, 31}, {15, 0, 30}, {15, 0, 32}, {15, 0, 36}, {19, 4, 3}, {23, 4, 5}}, // plain
      {{57, 8, 45}, {67, 4, 17}, {73, 8, 38}, {15, 0, 76}, {15, 0, 88}, {15, 0, 80}, {15, 0, 6},
          {15, 0, 30}, {15, 0, 30}, {15, 0, 32}, {15, 0, 36}, {19, 4, 3}, {23, 4, 5}}, // plainf
      {{55, 8, 66, 48}, {62, 4, 31, 21}, {68, 8, 58, 39}, {11, 0, 100, 77}, {13, 0, 112, 89}, {11, 0, 105, 81}, {6, 0, 9, 7},
          {6, 0, 42, 32}, {9, 0, 40, 31}, {7, 0, 44, 33}, {8, 0, 50, 37}, {8, 4, 6, 3}, {12, 4, 10, 5}}, // i2
      {{55, 8, 66, 48}, {62, 4, 25, 18}, {68, 8, 58, 39}, {11, 0, 100, 77}, {13, 0, 112, 89}, {11, 0, 105, 81}, {6, 0, 9, 7},
          {6, 0, 40, 31}, {9, 0, 40, 31}, {7, 0, 44, 33}, {8, 0, 50, 37}, {8, 4, 6, 3}, {12, 4, 10, 5}}, // i2f
      {{55, 8, 66, 48}, {62, 4, 42, 21, 32}, {68, 8, 78, 39, 59}, {11, 0, 100, 77}, {13, 0, 112, 89}, {11, 0, 105, 81}, {6, 0, 12, 7, 10},
          {6, 0, 54, 32, 43}, {9, 0, 51, 31, 41}, {7, 0, 57, 33, 45}, {8, 0, 66, 37, 51}, {8, 4, 9, 3, 6}, {12, 4, 15, 5, 10}}, // iN
      {{55, 8, 66, 48}, {62, 4, 33, 18, 26}, {68, 8, 78, 39, 59}, {11, 0, 100, 77}, {13, 0, 112, 89}, {11, 0, 105, 81}, {6, 0, 12, 7, 10},
          {6, 0, 51, 31, 41}, {9, 0, 51, 31, 41}, {7, 0, 57, 33, 45}, {8, 0, 66, 37, 51}, {8, 4, 9, 3, 6}, {12, 4, 15, 5, 10}}, // iNf
    },
    { // FOUR_STAGE_EXECUTE
      {{67, 10, 57}, {80, 5, 25}, {87, 10, 48}, {15, 0, 96}, {15, 0, 112}, {15, 0, 101}, {15, 0, 7},
          {15, 0, 38}, {15, 0, 38}, {15, 0, 40}, {15, 0, 45}, {19, 5, 4}, {25, 5, 6}}, // plain
      {{67, 10, 57}, {80, 5, 21}, {87, 10, 48}, {15, 0, 96}, {15, 0, 112}, {15, 0, 101}, {15, 0, 7},
          {15, 0, 37}, {15, 0, 38}, {15, 0, 40}, {15, 0, 45}, {19, 5, 4}, {25, 5, 6}}, // plainf
      {{65, 10, 78, 60}, {75, 5, 38, 26}, {82, 10, 72, 49}, {11, 0, 116, 97}, {13, 0, 132, 113}, {11, 0, 122, 102}, {6, 0, 10, 8},
          {6, 0, 48, 39}, {9, 0, 46, 39}, {7, 0, 50, 41}, {8, 0, 56, 46}, {8, 5, 8, 4}, {14, 5, 12, 6}}, // i2
      {{65, 10, 78, 60}, {75, 5, 30, 22}, {82, 10, 72, 49}, {11, 0, 116, 97}, {13, 0, 132, 113}, {11, 0, 122, 102}, {6, 0, 10, 8},
          {6, 0, 46, 38}, {9, 0, 46, 39}, {7, 0, 50, 41}, {8, 0, 56, 46}, {8, 5, 8, 4}, {14, 5, 12, 6}}, // i2f
      {{65, 10, 78, 60}, {75, 5, 64, 26, 39, 52}, {82, 10, 120, 49, 73, 97}, {11, 0, 116, 97}, {13, 0, 132, 113}, {11, 0, 122, 102}, {6, 0, 16, 8, 11, 14},
          {6, 0, 72, 39, 49, 61}, {9, 0, 57, 39, 47}, {7, 0, 63, 41, 51}, {8, 0, 72, 46, 57}, {8, 5, 16, 4, 8, 12}, {14, 5, 24, 6, 12, 18}}, // iN
      {{65, 10, 78, 60}, {75, 5, 48, 22, 31, 40}, {82, 10, 120, 49, 73, 97}, {11, 0, 116, 97}, {13, 0, 132, 113}, {11, 0, 122, 102}, {6, 0, 16, 8, 11, 14},
          {6, 0, 68, 38, 47, 58}, {9, 0, 57, 39, 47}, {7, 0, 63, 41, 51}, {8, 0, 72, 46, 57}, {8, 5, 16, 4, 8, 12}, {14, 5, 24, 6, 12, 18}}, // iNf
    },
  };

  /** [pipeline]: {d0, d1} of RMSNorm's rotated sum of squares (class comment). */
  private static final int[][] ROTATED_SUM = {{0, 0}, {1, -2}, {4, -4}, {4, -5}};

  /** The {a, b, c} of the class table for the default DSP. */
  public static int[] coefficients(DspKernel kernel) {
    return coefficients(kernel, DspPipeline.DEFAULT);
  }

  /** The {a, b, c} of the plain programs on a DSP with {@code pipeline}. */
  public static int[] coefficients(DspKernel kernel, DspPipeline pipeline) {
    return coefficients(kernel, pipeline, DspKernels.Options.DEFAULT);
  }

  /** Cycles of {@code kernel} at vector length {@code len} on {@code lanes} lanes (default DSP). */
  public static long cycles(DspKernel kernel, int len, int lanes) {
    return cycles(kernel, len, lanes, DspPipeline.DEFAULT);
  }

  /** The {a, b, c} for a DSP with {@code pipeline} running the plain programs compiled with {@code options}. */
  public static int[] coefficients(DspKernel kernel, DspPipeline pipeline, DspKernels.Options options) {
    return TABLES[pipeline.ordinal()][options.fma32() ? 1 : 0][kernel.ordinal()].clone();
  }

  /**
   * The {a, b, p, t[1], …, t[K−1]} of the interleaved programs ({@link DspKernels.Options#interleave()}),
   * K = length − 2: tabulated for 2 rows per iteration, and for 3 and 4 rows on three and four execute stages.
   */
  public static int[] interleavedCoefficients(DspKernel kernel, DspPipeline pipeline, DspKernels.Options options) {
    int rows = options.interleaveRows();
    int mode;
    if (rows == 2) {
      mode = 2;
    } else if (rows == pipeline.executeStages()) {
      mode = 4;
    } else {
      throw new IllegalArgumentException("no cycle formula for interleaveRows " + rows + " on " + pipeline
          + ": tabulated for 2, and for the execute stages (3 or 4)");
    }
    return TABLES[pipeline.ordinal()][mode + (options.fma32() ? 1 : 0)][kernel.ordinal()].clone();
  }

  /** Cycles of {@code kernel} at vector length {@code len} on {@code lanes} lanes with {@code pipeline}. */
  public static long cycles(DspKernel kernel, int len, int lanes, DspPipeline pipeline) {
    return cycles(kernel, len, lanes, pipeline, DspKernels.Options.DEFAULT);
  }

  /** Cycles of the program compiled with {@code options} on a DSP with {@code pipeline}. */
  public static long cycles(DspKernel kernel, int len, int lanes, DspPipeline pipeline, DspKernels.Options options) {
    long rows = new DspLayout(kernel, len, lanes).inputRows();
    long rotation = 0;
    if (DspSumOfSquares.rotates(kernel, len, lanes, options)) {
      int[] d = ROTATED_SUM[pipeline.ordinal()];
      rotation = d[0] + d[1] * rows;
    }
    return rotation + cyclesWithoutRotation(kernel, rows, lanes, pipeline, options);
  }

  private static long cyclesWithoutRotation(DspKernel kernel, long rows, int lanes, DspPipeline pipeline,
      DspKernels.Options options) {
    if (options.interleave()) {
      int[] c = interleavedCoefficients(kernel, pipeline, options);
      int k = c.length - 2;
      long remainder = rows % k;
      return c[0] + (long) c[1] * Integer.numberOfTrailingZeros(lanes) + c[2] * (rows / k)
          + (remainder == 0 ? 0 : c[2 + (int) remainder]);
    }
    int[] abc = coefficients(kernel, pipeline, options);
    return abc[0] + (long) abc[1] * Integer.numberOfTrailingZeros(lanes) + abc[2] * rows;
  }
}
