package org.llmnpu.cosim.decoder;

import org.llmnpu.rtl.npu.NpuConfig;

/**
 * The one full-size NPU that the decoder feature tests share on the RTL: the default NPU built with the PPM's SwiGLU
 * gate ({@code ppmGate}), the Vector DSP's permutations ({@code dspPermute}), maxN 32 (stories260K's QKV GEMM in four
 * tiles), a 1024-row DSP buffer (room for two token blocks' buffers), the MX block decoder ({@code mxLoad}) and the
 * kept X buffer ({@code xKeep}: the lowering's GEMMs on the N tiles after the first of one X copy no X;
 * {@code org.llmnpu.cosim.KeptXCosimTest} runs its random programs on this model too).
 * {@link GatedSwigluDecoderCosimTest}, {@link KeyBlocksCosimTest}, {@link TiledQkvPostCosimTest},
 * {@link TwoBlocksCosimTest} and {@link DecoderMxCosimTest} each used to Verilate a variant of the default NPU with one
 * of these; one configuration gives one Verilog and so one key of the harness's model cache, so a test run builds this
 * model once, in whichever test JVM asks first (the other waits on the cache's lock and reuses it).
 *
 * <p>What each test proves stays its own. The lowering uses every feature the NPU offers where its program can, so
 * the tests' programs combine them (more combinations on the RTL, not fewer), and each test that measures its feature
 * compares with a golden run on the same NPU that differs only in that feature: without the gate, without the
 * permutations (Kᵀ by pairs), the per-token QKV post, the sequential blocks. On the RTL every program stays bit-exact
 * (memory, status, every counter) with RTL cycles = the cycle model's.
 */
public final class FeaturedNpu {
  /** The shared configuration. */
  public static final NpuConfig CONFIG = NpuConfig.defaults().toBuilder().ppmGate(true).dspPermute(true).maxN(32)
      .dspRows(1024).mxLoad(true).xKeep(true).build();

  private FeaturedNpu() {
  }
}
