package org.llmnpu.cosim.decoder;

import org.llmnpu.cosim.NpuRtl;
import org.llmnpu.cosim.axi.NpuAxiHost;
import org.llmnpu.rtl.npu.NpuConfig;
import org.llmnpu.verilator.SimOptions;

/**
 * The RTL side of a decoding session: the native NPU ({@link NpuRtl}, the full comparison) or, for {@code bus=axi},
 * the AXI NPU through its register map ({@link NpuAxiHost}, the reduced comparison of
 * {@link org.llmnpu.cosim.axi.NpuAxiComparison}). Exactly one of the two is set.
 */
record DecoderRtl(NpuRtl nativeNpu, NpuAxiHost axi) implements AutoCloseable {
  /** The native model {@code rtl} (left open by {@link #close} of the caller), or null for null. */
  static DecoderRtl of(NpuRtl rtl) {
    return rtl == null ? null : new DecoderRtl(rtl, null);
  }

  /** Builds (or takes from the cache) and starts the model of {@code config}: the AXI NPU when its bus is AXI. */
  static DecoderRtl start(NpuConfig config, SimOptions options) {
    return config.axiBus() ? new DecoderRtl(null, NpuAxiHost.start(config, options))
        : new DecoderRtl(NpuRtl.start(config, options), null);
  }

  @Override
  public void close() {
    if (nativeNpu != null) {
      nativeNpu.close();
    }
    if (axi != null) {
      axi.close();
    }
  }
}
