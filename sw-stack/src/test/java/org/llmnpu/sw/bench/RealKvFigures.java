package org.llmnpu.sw.bench;

import java.util.ArrayList;
import java.util.List;
import org.llmnpu.sw.io.ModelCatalog;
import org.llmnpu.sw.kv.BudgetSchedule;
import org.llmnpu.sw.kv.EvictionConfig;
import org.llmnpu.sw.kv.KvGrouping;
import org.llmnpu.sw.kv.KvQuantConfig;
import org.llmnpu.sw.kv.KvSetting;
import org.llmnpu.sw.kv.KvStudy;
import org.llmnpu.sw.kv.KvStudyResult;
import org.llmnpu.sw.model.ModelWeights;

/**
 * KV-cache figures of the sw-stack README on the real stories260K: for each of {@code sequences}
 * sequences sampled from the FP32 model (seeds 0 …), the first {@code context} tokens are prefilled and
 * the next {@code 512 − context} (at most 64) decoded teacher-forced; KL, top-1 and SNR are the means over
 * sequences. Quantization g32 (per-token groups cover the whole 8-wide head), r32; SnapKV w32, k5, avg.
 * Run: {@code java -cp ... org.llmnpu.sw.bench.RealKvFigures [context] [sequences]}; the same single-sequence
 * measurement is {@code ./npu sw kv --context N --kv ... --evict ...}.
 */
public final class RealKvFigures {

    private RealKvFigures() {
    }

    public static void main(String[] args) throws Exception {
        int context = args.length > 0 ? Integer.parseInt(args[0]) : 448;
        int sequences = args.length > 1 ? Integer.parseInt(args[1]) : 8;
        ModelWeights w = ModelCatalog.load("stories260K", 0);
        int decode = Math.min(64, w.config().maxSeqLen() - context);
        List<KvStudy> studies = new ArrayList<>();
        for (int s = 0; s < sequences; s++) {
            studies.add(KvStudy.forModel(w, false, context, decode, s));
        }
        System.out.printf("#### KV cache, stories260K, context %d, %d decode tokens, mean over %d sampled sequences%n", context,
                decode, sequences);
        header("KV quantization (g32, r32)");
        print(studies, KvSetting.full());
        for (int bits : new int[] {8, 4, 2}) {
            for (KvGrouping g : KvGrouping.values()) {
                print(studies, KvSetting.of(new KvQuantConfig(g, bits, 32, 32), null));
            }
        }
        header("SnapKV eviction (w32, k5, avg), uniform budgets");
        for (int budget : new int[] {48, 64, 96, 128, 192, 256}) {
            if (budget < context) {
                print(studies, KvSetting.of(null, new EvictionConfig(32, 5, false, budget, BudgetSchedule.UNIFORM)));
            }
        }
        for (int budget : new int[] {128, 96, 64}) {
            if (budget < context) {
                header("per-layer budget schedules, average budget " + budget);
                for (BudgetSchedule s : BudgetSchedule.values()) {
                    print(studies, KvSetting.of(null, new EvictionConfig(32, 5, false, budget, s)));
                }
            }
        }
        header("joint: hybrid 4-bit (g32, r32) + eviction");
        for (int budget : new int[] {64, 128, 256}) {
            if (budget < context) {
                print(studies, KvSetting.of(new KvQuantConfig(KvGrouping.HYBRID, 4, 32, 32),
                        new EvictionConfig(32, 5, false, budget, BudgetSchedule.UNIFORM)));
            }
        }
    }

    private static void header(String title) {
        System.out.printf("%n##### %s%n%n| setting | KL (nats) | top-1 agreement | logits SNR (dB) | KV bytes read per decode token "
                + "| vs full FP16 | kept tokens per head |%n|---|---|---|---|---|---|---|%n", title);
    }

    private static void print(List<KvStudy> studies, KvSetting setting) {
        double kl = 0;
        double top1 = 0;
        double snr = 0;
        KvStudyResult last = null;
        for (KvStudy s : studies) {
            last = s.measure(setting);
            kl += last.klDivergence();
            top1 += last.top1Agreement();
            snr += last.snrDb();
        }
        int n = studies.size();
        System.out.printf("| %s | %.5f | %.1f %% | %s | %d | %.3f | %.0f |%n", last.setting(), kl / n, 100 * top1 / n,
                Double.isInfinite(snr) ? "∞" : String.format("%.2f", snr / n), last.kvBytesPerDecodeToken(), last.bytesVsFp16(),
                last.meanKeptTokens());
    }
}
