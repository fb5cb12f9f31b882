package org.llmnpu.sw.run;

/**
 * Results of {@code npu sw run}. Accuracy fields compare the run's model with the FP32 model,
 * teacher-forced on the prompt plus the generated tokens. Speculative fields are NaN when speculative
 * decoding was not used; {@code recovery} describes the recovery fine-tuning (null without); accuracy covers every position after the first; {@code staticMaxAbsLogitDiff} is NaN unless the static-shape runtime ran.
 */
public record RunReport(String model, String compression, String mode, int promptLen, int generated,
                        double tokensPerSecond, double weightSizeRatio, double snrDb, double klDivergence,
                        double top1Agreement, double staticMaxAbsLogitDiff, double acceptanceRate,
                        double acceptedPerPass, double tokensPerPass, double draftCostRatio,
                        double expectedSpeedup, int[] tokens, String text, String recovery) {

    public String toText() {
        StringBuilder s = new StringBuilder();
        s.append(String.format("model %s, weights %s (%.1f %% of FP32 bytes), %s%n", model, compression,
                100 * weightSizeRatio, mode));
        s.append(String.format("prompt %d tokens, generated %d tokens at %.1f tokens/s (Java executor)%n",
                promptLen, generated, tokensPerSecond));
        s.append(String.format("vs FP32: logits SNR %.2f dB, KL %.5f nats, top-1 agreement %.1f %%%n",
                snrDb, klDivergence, 100 * top1Agreement));
        if (recovery != null) {
            s.append("recovery: ").append(recovery).append(System.lineSeparator());
        }
        if (!Double.isNaN(staticMaxAbsLogitDiff)) {
            s.append(String.format("static vs dynamic shape: max |logit difference| %.3g%n", staticMaxAbsLogitDiff));
        }
        if (!Double.isNaN(acceptanceRate)) {
            s.append(String.format("speculative: acceptance rate %.3f, accepted drafts per target pass %.2f, "
                            + "tokens per target pass %.2f, draft cost ratio c %.3f, expected speedup %.2fx%n",
                    acceptanceRate, acceptedPerPass, tokensPerPass, draftCostRatio, expectedSpeedup));
        }
        if (text != null) {
            s.append("output: ").append(text).append(System.lineSeparator());
        }
        return s.toString();
    }
}
