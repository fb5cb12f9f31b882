package org.llmnpu.sw.bench;

import org.llmnpu.sw.kv.BudgetSchedule;
import org.llmnpu.sw.kv.EvictionConfig;
import org.llmnpu.sw.kv.KvGrouping;
import org.llmnpu.sw.kv.KvQuantConfig;
import org.llmnpu.sw.kv.KvSetting;
import org.llmnpu.sw.kv.KvStudy;
import org.llmnpu.sw.kv.KvStudyResult;
import org.llmnpu.sw.model.ModelConfig;
import org.llmnpu.sw.model.SyntheticPrompts;
import org.llmnpu.sw.model.SyntheticWeights;
import org.llmnpu.sw.model.Transformer;

/**
 * KV-cache figures of the sw-stack README (issue 7): quantization grouping × bits, eviction budget
 * sweep, per-layer budget schedules, and quantization + eviction, for a synthetic model (seed 42)
 * with a synthetic context and 64 teacher-forced decode tokens. Run:
 * {@code java -cp ... org.llmnpu.sw.bench.KvFigures [model] [context]}.
 */
public final class KvFigures {

    public static void main(String[] args) {
        String name = args.length > 0 ? args[0] : "tiny";
        int context = args.length > 1 ? Integer.parseInt(args[1]) : 2048;
        ModelConfig c = ModelConfig.named(name);
        Transformer model = new Transformer(SyntheticWeights.generate(c, 42));
        KvStudy study = new KvStudy(model, SyntheticPrompts.prompt(c, context, 21), SyntheticPrompts.prompt(c, 64, 22));
        System.out.printf("## KV cache, %s model, context %d, 64 decode tokens%n%n", name, context);
        header("KV quantization (g32, r32)");
        print(study.measure(KvSetting.full()));
        for (int bits : new int[] {8, 4, 2}) {
            for (KvGrouping g : KvGrouping.values()) {
                print(study.measure(KvSetting.of(new KvQuantConfig(g, bits, 32, 32), null)));
            }
        }
        header("SnapKV eviction (w32, k5, avg), uniform budgets");
        for (int budget : new int[] {64, 128, 256, 512, 1024}) {
            if (budget < context) {
                print(study.measure(KvSetting.of(null, new EvictionConfig(32, 5, false, budget, BudgetSchedule.UNIFORM))));
            }
        }
        for (int budget : new int[] {256, 192, 128}) {
            header("per-layer budget schedules, average budget " + budget);
            for (BudgetSchedule s : BudgetSchedule.values()) {
                print(study.measure(KvSetting.of(null, new EvictionConfig(32, 5, false, budget, s))));
            }
        }
        header("joint: hybrid 4-bit (g32, r32) + eviction");
        for (int budget : new int[] {128, 256, 512, 1024}) {
            if (budget < context) {
                print(study.measure(KvSetting.of(new KvQuantConfig(KvGrouping.HYBRID, 4, 32, 32),
                        new EvictionConfig(32, 5, false, budget, BudgetSchedule.UNIFORM))));
            }
        }
    }

    private static void header(String title) {
        System.out.printf("%n### %s%n%n| setting | KL (nats) | top-1 agreement | logits SNR (dB) | KV bytes read per decode token "
                + "| vs full FP16 | kept tokens per head | Java decode ms/token |%n|---|---|---|---|---|---|---|---|%n", title);
    }

    private static void print(KvStudyResult r) {
        System.out.printf("| %s | %.5f | %.1f %% | %.2f | %d | %.3f | %.0f | %.2f |%n", r.setting(), r.klDivergence(),
                100 * r.top1Agreement(), r.snrDb(), r.kvBytesPerDecodeToken(), r.bytesVsFp16(), r.meanKeptTokens(),
                r.decodeMillisPerToken());
    }
}
