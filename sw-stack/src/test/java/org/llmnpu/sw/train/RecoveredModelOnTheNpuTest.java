package org.llmnpu.sw.train;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.llmnpu.sw.compress.CompressionSpec;
import org.llmnpu.sw.compress.PruneMethod;
import org.llmnpu.sw.compress.QuantMethod;
import org.llmnpu.sw.eval.LogitComparison;
import org.llmnpu.sw.eval.SampledSequences;
import org.llmnpu.sw.io.ModelCatalog;
import org.llmnpu.sw.lower.LoweredModel;
import org.llmnpu.sw.lower.NpuDecoder;
import org.llmnpu.sw.lower.NpuEngine;
import org.llmnpu.sw.lower.NpuTargets;
import org.llmnpu.sw.lower.WeightFormats;
import org.llmnpu.sw.model.ModelWeights;
import org.llmnpu.sw.model.Transformer;

/**
 * A recovered 2:4 model goes through the whole chain unchanged: INT8 quantization and the s2_4 lowering (whose
 * magnitude re-pruning keeps the recovered weights' mask), run on the golden ISA simulator of an NPU built for 2:4.
 */
class RecoveredModelOnTheNpuTest {
    private static final int[] PROMPT = {1, 403, 407, 261, 378};

    @Test
    void aRecovered24ModelLowersAndRunsOnTheGoldenIsaSimulator() throws Exception {
        ModelWeights fp32 = ModelCatalog.load("stories260K", 1);
        int[][] calibration = SampledSequences.sample(new Transformer(fp32), 2, 32, SampledSequences.CALIBRATION_SEED);
        RecoveryOptions o = RecoveryTest.quick(RecoveryMethod.LORA, 4);
        ModelWeights recovered = RecoveredCompression.compress(fp32, CompressionSpec.parse("2:4", QuantMethod.MINMAX,
                PruneMethod.SPARSEGPT), calibration, o, Optional.empty(), Optional.empty()).model().effectiveWeights();
        LoweredModel lowered = WeightFormats.lower(recovered, "s2_4", NpuTargets.sparse24(), 16, 16);
        NpuDecoder.Step npu = new NpuDecoder(lowered, 16, NpuEngine.GOLDEN).prefill(PROMPT, true);
        Transformer reference = new Transformer(WeightFormats.prepare(recovered, "s2_4"));
        LogitComparison c = LogitComparison.compare(reference.forwardAll(PROMPT, reference.newCache(16)), npu.logits());
        // a few recovery steps leave the 2:4 model's next-token distributions nearly flat, so argmax agreement on 5
        // positions says little; KL and SNR of the integer path against its FP32 reference do
        assertTrue(c.klDivergence() < 0.05 && c.snrDb() > 15, c.toString());
        // the s2_4 preparation keeps the recovered mask: it differs from the recovered model only by INT8 rounding
        Transformer fp = new Transformer(recovered);
        LogitComparison q = LogitComparison.compare(fp.forwardAll(PROMPT, fp.newCache(16)),
                reference.forwardAll(PROMPT, reference.newCache(16)));
        assertTrue(q.klDivergence() < 0.05, q.toString());
    }
}
