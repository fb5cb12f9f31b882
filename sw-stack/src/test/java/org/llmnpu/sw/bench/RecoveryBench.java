package org.llmnpu.sw.bench;

import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.llmnpu.hdl.bench.BenchRecord;
import org.llmnpu.sw.compress.CompressedModel;
import org.llmnpu.sw.compress.CompressionSpec;
import org.llmnpu.sw.compress.ModelCompressor;
import org.llmnpu.sw.compress.PruneMethod;
import org.llmnpu.sw.compress.QuantMethod;
import org.llmnpu.sw.eval.HeldOutEvaluation;
import org.llmnpu.sw.eval.SampledSequences;
import org.llmnpu.sw.io.ModelCatalog;
import org.llmnpu.sw.model.ModelWeights;
import org.llmnpu.sw.model.Transformer;
import org.llmnpu.sw.run.EvalOptions;
import org.llmnpu.sw.train.RecoveredCompression;
import org.llmnpu.sw.train.RecoveryMethod;
import org.llmnpu.sw.train.RecoveryOptions;

/**
 * Recovery fine-tuning on stories260K: perplexity, KL and top-1 agreement against FP32 on the held-out set of
 * {@code sw eval} (16 × 129 tokens sampled from the FP32 model, calibration 8 × 128) for 2:4 and 4:8 pruning
 * (magnitude, Wanda, SparseGPT) before recovery and after LoRA and masked fine-tuning with the default options
 * (distillation, 4 × 64 tokens a step) for {@code -Drecover.steps} steps (default 50, to keep the run near 15
 * minutes on the shared 2-core machine), with training wall time and throughput. No cache: every row trains.
 * Run with {@code mvn -q -o -pl sw-stack -am test -Dbench -Dtest='RecoveryBench#recoveryOnStories260K'
 * -Dsurefire.failIfNoSpecifiedTests=false} (about 15 minutes on a shared machine; {@code #twoHundredStepsOnSparseGpt}:
 * the default 200 steps on SparseGPT 2:4 and 4:8, about 10 minutes).
 */
@ExtendWith(BenchRecord.class)
class RecoveryBench {

    @Test
    void recoveryOnStories260K() throws Exception {
        main(new String[0]);
    }

    /** The CLI's default of 200 steps, on the best pruning of each pattern (SparseGPT): what more steps recover. */
    @Test
    void twoHundredStepsOnSparseGpt() throws Exception {
        table(200, List.of(PruneMethod.SPARSEGPT));
    }

    public static void main(String[] args) throws Exception {
        table(Integer.getInteger("recover.steps", 50), List.of(PruneMethod.values()));
    }

    private static void table(int steps, List<PruneMethod> methods) throws Exception {
        long start = System.nanoTime();
        ModelWeights fp32 = ModelCatalog.load("stories260K", 1);
        Transformer reference = new Transformer(fp32);
        int[][] calibration = SampledSequences.sample(reference, EvalOptions.CALIBRATION_SEQUENCES, EvalOptions.CALIBRATION_LENGTH,
                SampledSequences.CALIBRATION_SEED);
        int[][] heldOut = SampledSequences.sample(reference, EvalOptions.EVAL_SEQUENCES, EvalOptions.EVAL_LENGTH,
                SampledSequences.EVALUATION_SEED);
        HeldOutEvaluation.Reference ref = HeldOutEvaluation.Reference.of(reference, heldOut);
        System.out.printf(Locale.ROOT, "stories260K, held-out %d tokens, FP32 perplexity %.3f; recovery %d steps x %d x %d tokens "
                        + "(distill); %d cores, load average %.1f at start (the machine is shared with other jobs)%n",
                ref.positions(), HeldOutEvaluation.evaluate(ref, reference, "fp32").perplexity(), steps, RecoveryOptions.DEFAULT_BATCH,
                RecoveryOptions.DEFAULT_SEQUENCE_LENGTH, Runtime.getRuntime().availableProcessors(), load());
        System.out.println("| pruning | recovery | perplexity | KL vs FP32 (nats) | top-1 agreement | training | tokens/s |");
        System.out.println("|---|---|---|---|---|---|---|");
        List<Double> throughput = new ArrayList<>();
        for (String pattern : List.of("2:4", "4:8")) {
            for (PruneMethod method : methods) {
                CompressionSpec spec = CompressionSpec.parse(pattern, QuantMethod.MINMAX, method);
                CompressedModel pruned = ModelCompressor.compress(fp32, spec, calibration);
                row(spec, "none", HeldOutEvaluation.evaluate(ref, new Transformer(pruned.effectiveWeights()), spec.toString()), "", "");
                for (RecoveryMethod recovery : List.of(RecoveryMethod.LORA, RecoveryMethod.MASKED)) {
                    RecoveryOptions o = RecoveryOptions.defaults(recovery, steps, 0);
                    RecoveredCompression.Result r = RecoveredCompression.compress(fp32, spec, calibration, o, Optional.empty(),
                            Optional.empty());
                    HeldOutEvaluation e = HeldOutEvaluation.evaluate(ref, new Transformer(r.model().effectiveWeights()), spec + " " + recovery);
                    throughput.add(r.report().tokensPerSecond());
                    row(spec, o.label() + String.format(Locale.ROOT, " (lr %s)", o.learningRate()), e,
                            String.format(Locale.ROOT, "%.1f s, %d tokens", r.report().seconds(), r.report().tokens()),
                            String.format(Locale.ROOT, "%.0f", r.report().tokensPerSecond()));
                }
            }
        }
        System.out.printf(Locale.ROOT, "training throughput %.0f-%.0f tokens/s (forward + backward, 2 sequences in parallel on "
                        + "2 shared cores); load average %.1f at the end; bench wall time %.0f s%n",
                throughput.stream().mapToDouble(Double::doubleValue).min().orElse(0),
                throughput.stream().mapToDouble(Double::doubleValue).max().orElse(0), load(), (System.nanoTime() - start) / 1e9);
    }

    private static void row(CompressionSpec spec, String recovery, HeldOutEvaluation e, String training, String tokensPerSecond) {
        System.out.printf(Locale.ROOT, "| %s | %s | %.2f | %.3f | %.1f %% | %s | %s |%n", spec, recovery, e.perplexity(),
                e.klDivergence(), 100 * e.top1Agreement(), training, tokensPerSecond);
    }

    private static double load() {
        return ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage();
    }
}
