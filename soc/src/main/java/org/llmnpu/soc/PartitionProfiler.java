package org.llmnpu.soc;

import java.util.HashMap;
import java.util.Map;

/**
 * HeteroInfer's offline profiler over our backend models: the seconds of a matrix product part on the GPU (its
 * roofline, launch included) and on the NPU (the cycle model of the product in the better order,
 * {@link NpuGemmCost#bestOrder}, at the NPU's clock, plus a graph submission), and its DRAM bytes. Every shape is
 * profiled once and looked up afterwards, as the paper's profiler fills its table before the solver runs.
 */
public final class PartitionProfiler {
  private final RooflineBackend gpu;
  private final NpuBackend npu;
  private final double submissionS;
  private final Map<String, Double> gpuTable = new HashMap<>();
  private final Map<String, NpuGemmCost.Choice> npuTable = new HashMap<>();

  public PartitionProfiler(RooflineBackend gpu, NpuBackend npu, HostCosts host) {
    this.gpu = gpu;
    this.npu = npu;
    this.submissionS = host.submissionUs().value() * 1e-6;
  }

  /** GPU seconds of {@code [m,k]×[k,n]}. */
  public double gpuS(int m, int k, int n) {
    return gpuTable.computeIfAbsent(m + "x" + k + "x" + n, s -> gpu.matmulS(m, k, n));
  }

  /** The NPU's better order for {@code [m,k]×[k,n]}. */
  public NpuGemmCost.Choice npuChoice(int m, int k, int n) {
    return npuTable.computeIfAbsent(m + "x" + k + "x" + n, s -> npu.gemm().bestOrder(m, k, n));
  }

  /** NPU seconds of {@code [m,k]×[k,n]} in its better order, one graph submission included. */
  public double npuS(int m, int k, int n) {
    return npuChoice(m, k, n).cycles() / npu.clockHz() + submissionS;
  }

  /** DRAM bytes of {@code [m,k]×[k,n]}: the weight part once, activations and outputs (either backend). */
  public double bytes(int m, int k, int n) {
    return gpu.matmulBytes(m, k, n);
  }

  /** Shapes profiled so far (GPU and NPU). */
  public int profiled() {
    return gpuTable.size() + npuTable.size();
  }
}
