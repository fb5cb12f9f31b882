package org.llmnpu.isa.dsp;

/**
 * Where a kernel's operands live in the local buffer (see {@link DspKernel}): operand {@code i}
 * (inputs, then outputs) starts at row {@code i · inRows} for inputs; outputs follow the inputs,
 * each taking {@code ceil(outputLength / lanes)} rows.
 *
 * @param kernel the kernel
 * @param len the vector length
 * @param lanes the DSP lanes
 */
public record DspLayout(DspKernel kernel, int len, int lanes) {
  public DspLayout {
    kernel.checkLength(len);
  }

  /** Rows of one input operand (= loop iterations over the vector). */
  public int inputRows() {
    return ceilDiv(kernel.inputLength(len), lanes);
  }

  /** Rows of one output operand. */
  public int outputRows() {
    return ceilDiv(kernel.outputLength(len), lanes);
  }

  /** First row of input {@code i}. */
  public int inputBase(int i) {
    return i * inputRows();
  }

  /** First row of output {@code i}. */
  public int outputBase(int i) {
    return kernel.inputs().size() * inputRows() + i * outputRows();
  }

  /** Rows the kernel uses. */
  public int totalRows() {
    return outputBase(kernel.outputs().size());
  }

  private static int ceilDiv(int a, int b) {
    return (a + b - 1) / b;
  }
}
