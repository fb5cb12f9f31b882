package org.llmnpu.soc;

import org.llmnpu.sw.model.ModelConfig;

/**
 * A CPU or GPU costed as a roofline ({@link RooflineSpec}): an operator's op time is
 * {@code max(ops / peak, bytes / bandwidth)}, its call time adds the launch overhead; energy is
 * {@code ops · pJ/op + bytes · pJ/byte + callTime · activeW}.
 */
public final class RooflineBackend {
  private final RooflineSpec spec;
  private final double bitsPerWeight;

  public RooflineBackend(RooflineSpec spec, double bitsPerWeight) {
    this.spec = spec;
    this.bitsPerWeight = bitsPerWeight;
  }

  public String name() {
    return spec.name();
  }

  public RooflineSpec spec() {
    return spec;
  }

  /** One call of {@code op} of model {@code c}. */
  public OpCost call(Operator op, ModelConfig c) {
    double ops = op.ops(c.headDim(), c.heads());
    double bytes = op.bytes(bitsPerWeight, c.kvDim());
    String format = op.kind() == Operator.Kind.MATMUL ? spec.matmulFormat() : spec.vectorFormat();
    double opS = Math.max(ops / spec.opsPerS(format), bytes / (spec.bandwidthGBs().value() * 1e9));
    double callS = opS + spec.launchUs().value() * 1e-6;
    double energy = ops * spec.pjPerOp().value() * 1e-12 + bytes * spec.pjPerByte().value() * 1e-12
        + callS * spec.activeW().value();
    return new OpCost(opS, callS, 0, energy, spec.name());
  }

  /**
   * A matrix product of {@code m × k} activations by a {@code k × n} weight (a part of one, for partitions):
   * seconds, launch included.
   */
  public double matmulS(int m, int k, int n) {
    double ops = 2.0 * m * k * n;
    double bytes = matmulBytes(m, k, n);
    return Math.max(ops / spec.opsPerS(spec.matmulFormat()), bytes / (spec.bandwidthGBs().value() * 1e9))
        + spec.launchUs().value() * 1e-6;
  }

  /** DRAM bytes of that product. */
  public double matmulBytes(int m, int k, int n) {
    return k * (double) n * bitsPerWeight / 8 + 4.0 * m * k + 4.0 * m * n;
  }
}
