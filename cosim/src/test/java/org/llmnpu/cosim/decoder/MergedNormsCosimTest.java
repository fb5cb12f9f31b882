package org.llmnpu.cosim.decoder;

import org.junit.jupiter.api.Test;
import org.llmnpu.rtl.npu.NpuConfig;
import org.llmnpu.sw.lower.LoweredModel;
import org.llmnpu.sw.model.ModelConfig;
import org.llmnpu.sw.model.SyntheticWeights;

/**
 * Two tokens' RMSNorms merged into one list-scheduled program with their static quantizations folded into its loops
 * ({@code DspRoutines#mergedNorms}, {@code DspLoopQuantizeFold}; sw-stack's {@code MergedNormsTest}) on the generated
 * default NPU in Verilator: a synthetic model whose RMSNorms loop on the default DSP (dim 128 over 16 lanes, hidden
 * 256 so that the fused feed-forward takes two tokens at a time), an 8-token prefill at {@code --fusion full}: memory
 * image, status and every counter equal to the golden's, RTL cycles = model.
 */
class MergedNormsCosimTest {
  @Test
  void mergedRmsNormPairsAreBitExactOnTheRtl() throws Exception {
    NpuConfig config = DecoderRun.defaultNpu("int8");
    LoweredModel model = new LoweredModel(SyntheticWeights.generate(new ModelConfig(128, 256, 2, 4, 2, 512, 4096), 3),
        config.machine(), 24, 8);
    DecoderRtlSteps.prefill(config, model, new int[] {1, 403, 407, 261, 378, 300, 12, 99});
  }
}
