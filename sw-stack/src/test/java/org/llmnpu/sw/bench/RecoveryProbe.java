package org.llmnpu.sw.bench;

import java.util.Optional;
import org.llmnpu.sw.compress.CompressionSpec;
import org.llmnpu.sw.compress.ModelCompressor;
import org.llmnpu.sw.compress.PruneMethod;
import org.llmnpu.sw.compress.QuantMethod;
import org.llmnpu.sw.eval.HeldOutEvaluation;
import org.llmnpu.sw.eval.SampledSequences;
import org.llmnpu.sw.io.ModelCatalog;
import org.llmnpu.sw.model.ModelWeights;
import org.llmnpu.sw.model.Transformer;
import org.llmnpu.sw.train.RecoveredCompression;
import org.llmnpu.sw.train.RecoveryMethod;
import org.llmnpu.sw.train.RecoveryOptions;

/** Tuning probe (not a recorded benchmark): one pruning, one recovery, before/after on a small held-out set. */
public final class RecoveryProbe {
    public static void main(String[] args) throws Exception {
        ModelWeights fp32 = ModelCatalog.load("stories260K", 1);
        Transformer ref = new Transformer(fp32);
        int[][] cal = SampledSequences.sample(ref, 8, 128, SampledSequences.CALIBRATION_SEED);
        int[][] held = SampledSequences.sample(ref, 8, 129, SampledSequences.EVALUATION_SEED);
        HeldOutEvaluation.Reference r = HeldOutEvaluation.Reference.of(ref, held);
        CompressionSpec spec = CompressionSpec.parse(args[0], QuantMethod.MINMAX, PruneMethod.MAGNITUDE);
        HeldOutEvaluation before = HeldOutEvaluation.evaluate(r, new Transformer(ModelCompressor.compress(fp32, spec, cal).effectiveWeights()), "b");
        System.out.println("before " + before);
        RecoveryOptions o = RecoveryOptions.defaults(RecoveryMethod.parse(args[1]), Integer.parseInt(args[2]), 0);
        if (args.length > 3) {
            o = o.withLearningRate(Double.parseDouble(args[3]));
        }
        RecoveredCompression.Result res = RecoveredCompression.compress(fp32, spec, cal, o, Optional.empty(), Optional.empty());
        System.out.println(res.report() + " tok/s " + res.report().tokensPerSecond());
        System.out.println("after " + HeldOutEvaluation.evaluate(r, new Transformer(res.model().effectiveWeights()), "a"));
    }
}
