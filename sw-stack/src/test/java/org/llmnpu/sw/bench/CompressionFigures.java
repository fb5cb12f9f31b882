package org.llmnpu.sw.bench;

import java.io.IOException;
import org.llmnpu.sw.compress.CompressedModel;
import org.llmnpu.sw.compress.CompressionSpec;
import org.llmnpu.sw.compress.ModelCompressor;
import org.llmnpu.sw.eval.AccuracyEvaluation;
import org.llmnpu.sw.eval.LogitComparison;
import org.llmnpu.sw.model.AttentionStatistics;
import org.llmnpu.sw.model.ModelConfig;
import org.llmnpu.sw.model.ModelWeights;
import org.llmnpu.sw.model.SyntheticPrompts;
import org.llmnpu.sw.model.SyntheticWeights;
import org.llmnpu.sw.model.Transformer;
import org.llmnpu.sw.sample.SamplerConfig;
import org.llmnpu.sw.spec.DraftFactory;
import org.llmnpu.sw.spec.DraftSpec;
import org.llmnpu.sw.spec.SpeculativeDecoder;
import org.llmnpu.sw.spec.SpeculativeResult;

/**
 * Figures of the sw-stack README (issue 6): weight compression vs FP32 and speculative decoding per
 * draft kind, for the tiny and medium synthetic models (seed 42). Run:
 * {@code java -cp ... org.llmnpu.sw.bench.CompressionFigures [tiny|medium]}.
 */
public final class CompressionFigures {

    private static final String[] SPECS = {"int8", "int4-g32", "2:4", "4:8", "int4-g32+2:4", "int4-g32+4:8",
        "int8+2:4", "int8+4:8", "mxint8", "mxfp8", "mxfp4"};
    private static final String[] DRAFTS = {"int8", "int4-g32", "int4-g32+2:4", "int4-g32+4:8", "skip%d"};

    public static void main(String[] args) throws IOException {
        for (String name : args.length == 0 ? new String[] {"tiny", "medium"} : args) {
            ModelConfig c = ModelConfig.named(name);
            ModelWeights w = SyntheticWeights.generate(c, 42);
            Transformer fp32 = new Transformer(w);
            int[] eval = SyntheticPrompts.prompt(c, 128, 7);
            int[] calibration = SyntheticPrompts.prompt(c, 64, 8);
            AttentionStatistics a = AttentionStatistics.measure(fp32, SyntheticPrompts.prompt(c, 256, 9), 16);
            System.out.printf("%n## %s: dim %d, hidden %d, %d layers, %d heads / %d KV heads, vocab %d%n", name, c.dim(),
                    c.hiddenDim(), c.layers(), c.heads(), c.kvHeads(), c.vocabSize());
            System.out.printf("attention (256-token context, last 16 queries): entropy %.2f of uniform, "
                    + "sink mass %.3f, last-8-token mass %.3f%n%n", a.relativeEntropy(), a.sinkMass(), a.recentMass());
            System.out.println("| weights | bytes vs FP32 | top-1 agreement | KL (nats) | logits SNR (dB) |");
            System.out.println("|---|---|---|---|---|");
            for (String spec : SPECS) {
                CompressedModel m = ModelCompressor.compress(w, CompressionSpec.parse(spec, true), calibration);
                LogitComparison r = AccuracyEvaluation.evaluate(fp32, new Transformer(m.effectiveWeights()), eval, 1);
                System.out.printf("| %s | %.1f %% | %.1f %% | %.4f | %.2f |%n", spec, 100 * m.sizeRatio(),
                        100 * r.top1Agreement(), r.klDivergence(), r.snrDb());
            }
            System.out.println();
            System.out.println("| draft (gamma = 4) | cost ratio c | alpha greedy | tokens/pass greedy | expected speedup greedy "
                    + "| alpha T=1 | tokens/pass T=1 | expected speedup T=1 |");
            System.out.println("|---|---|---|---|---|---|---|---|");
            int[] prompt = SyntheticPrompts.prompt(c, 32, 11);
            for (String d : DRAFTS) {
                String draft = String.format(d, c.layers() / 2);
                DraftSpec spec = DraftSpec.parse("draft=" + draft + ",gamma=4");
                DraftFactory.Draft built = DraftFactory.build(spec, w, calibration);
                SpeculativeResult g = new SpeculativeDecoder(fp32, built.model(), 4, SamplerConfig.greedy()).generate(prompt, 96);
                SpeculativeResult s = new SpeculativeDecoder(fp32, built.model(), 4, SamplerConfig.temperature(1f, 5))
                        .generate(prompt, 96);
                System.out.printf("| %s | %.3f | %.3f | %.2f | %.2fx | %.3f | %.2f | %.2fx |%n", draft, built.costRatio(),
                        g.acceptanceRate(), g.tokensPerPass(), SpeculativeResult.expectedSpeedup(g.acceptanceRate(), 4, built.costRatio()),
                        s.acceptanceRate(), s.tokensPerPass(), SpeculativeResult.expectedSpeedup(s.acceptanceRate(), 4, built.costRatio()));
            }
        }
    }
}
