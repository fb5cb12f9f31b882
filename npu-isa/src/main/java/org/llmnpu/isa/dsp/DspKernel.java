package org.llmnpu.isa.dsp;

import java.util.Arrays;
import java.util.List;

/**
 * The kernels {@link DspKernels} compiles, with their operands in the local buffer. Each operand
 * occupies its own region of {@code ceil(n / lanes)} rows (n = the operand's element count),
 * inputs first, then outputs, in the order listed ({@link DspLayout}). {@code len} is the vector
 * length; for {@link #ROPE} it is the head dimension d and every operand holds d/2 elements
 * (x_lo = x[0, d/2), x_hi = x[d/2, d), cos, sin; outputs y_lo, y_hi). {@link #MAX} and
 * {@link #SUM} write one element.
 */
public enum DspKernel {
  SOFTMAX("softmax", List.of("x"), List.of("y")),
  RMSNORM("rmsnorm", List.of("x", "gamma"), List.of("y")),
  LAYERNORM("layernorm", List.of("x", "gamma", "beta"), List.of("y")),
  SILU("silu", List.of("x"), List.of("y")),
  GELU("gelu", List.of("x"), List.of("y")),
  SWIGLU("swiglu", List.of("gate", "up"), List.of("y")),
  RESIDUAL("residual", List.of("a", "b"), List.of("y")),
  ROPE("rope", List.of("x_lo", "x_hi", "cos", "sin"), List.of("y_lo", "y_hi")),
  EXP("exp", List.of("x"), List.of("y")),
  RECIPROCAL("reciprocal", List.of("x"), List.of("y")),
  RSQRT("rsqrt", List.of("x"), List.of("y")),
  MAX("max", List.of("x"), List.of("y")),
  SUM("sum", List.of("x"), List.of("y"));

  private final String cliName;
  private final List<String> inputs;
  private final List<String> outputs;

  DspKernel(String cliName, List<String> inputs, List<String> outputs) {
    this.cliName = cliName;
    this.inputs = inputs;
    this.outputs = outputs;
  }

  /** Name on the command line. */
  public String cliName() {
    return cliName;
  }

  /** Input operand names. */
  public List<String> inputs() {
    return inputs;
  }

  /** Output operand names. */
  public List<String> outputs() {
    return outputs;
  }

  /** Elements per input operand for vector length {@code len}. */
  public int inputLength(int len) {
    return this == ROPE ? len / 2 : len;
  }

  /** Elements per output operand. */
  public int outputLength(int len) {
    return this == MAX || this == SUM ? 1 : inputLength(len);
  }

  /** Whether the kernel uses eps (the norms). */
  public boolean usesEps() {
    return this == RMSNORM || this == LAYERNORM;
  }

  /** Checks {@code len}: ≥ 1, and even for RoPE. */
  public void checkLength(int len) {
    if (len < 1 || (this == ROPE && len % 2 != 0)) {
      throw new IllegalArgumentException("len must be " + (this == ROPE ? "an even head dimension ≥ 2" : "≥ 1")
          + " for " + cliName + ", got " + len);
    }
  }

  /** The kernel with the given command-line name. */
  public static DspKernel byName(String name) {
    return Arrays.stream(values()).filter(k -> k.cliName.equals(name)).findFirst()
        .orElseThrow(() -> new IllegalArgumentException("kernel must be one of " + names() + ", got '" + name + "'"));
  }

  /** All command-line names. */
  public static List<String> names() {
    return Arrays.stream(values()).map(DspKernel::cliName).toList();
  }
}
