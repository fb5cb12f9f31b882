package org.llmnpu.rtl.npu;

import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import org.llmnpu.isa.EngineTiming;

/**
 * The NPU's GEMM engine ({@code engine}): the systolic MAC array, or a {@code rows × rows} INT8 compute-in-memory
 * macro that takes its inputs bit-serially, 1, 2, 4 or 8 input bits a cycle ({@link PimGemmBackend}). Same results,
 * different cycles ({@link #timing()}).
 */
public enum NpuEngineKind {
  SYSTOLIC(0), PIM(1), PIM_K2(2), PIM_K4(4), PIM_K8(8);

  /** Input bits a cycle of the PiM macro; 0 for the systolic array. */
  private final int pimBitsPerCycle;

  NpuEngineKind(int pimBitsPerCycle) {
    this.pimBitsPerCycle = pimBitsPerCycle;
  }

  /** The name in configurations: {@code systolic}, {@code pim}, {@code pim-k2}, {@code pim-k4}, {@code pim-k8}. */
  public String key() {
    return name().toLowerCase(Locale.ROOT).replace('_', '-');
  }

  /** Every {@link #key()}, in declaration order. */
  public static List<String> keys() {
    return Arrays.stream(values()).map(NpuEngineKind::key).toList();
  }

  /** The kind named {@code key} (one of {@link #keys()}). */
  public static NpuEngineKind of(String key) {
    for (NpuEngineKind k : values()) {
      if (k.key().equals(key)) {
        return k;
      }
    }
    throw new IllegalArgumentException("engine must be one of " + String.join(", ", keys()) + ", got '" + key + "'");
  }

  /** The engine's timing for the golden cycle model ({@code npu-isa}). */
  public EngineTiming timing() {
    return this == SYSTOLIC ? EngineTiming.SYSTOLIC : EngineTiming.pim(pimBitsPerCycle);
  }
}
