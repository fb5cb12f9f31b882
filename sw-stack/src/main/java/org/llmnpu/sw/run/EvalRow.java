package org.llmnpu.sw.run;

/**
 * One compressed model measured on the held-out set: projection bytes relative to FP32, perplexity
 * (and the FP32 model's on the same tokens), KL(FP32 ‖ model) in nats, top-1 agreement with FP32,
 * logits SNR in dB (null in JSON when infinite, i.e. identical logits), over {@code positions} tokens.
 * {@code recovery} names the recovery fine-tuning applied after pruning ({@code none}, or e.g.
 * {@code lora r8, 200 steps}), with its training wall time and throughput (NaN without training; the time of the
 * run that trained when the weights came from the cache).
 */
public record EvalRow(String compression, double bytesVsFp32, double perplexity, double fp32Perplexity,
                      double klDivergence, double top1Agreement, double snrDb, int positions, String recovery,
                      double trainSeconds, double trainTokensPerSecond) {

    /** A row without recovery. */
    public EvalRow(String compression, double bytesVsFp32, double perplexity, double fp32Perplexity, double klDivergence,
                   double top1Agreement, double snrDb, int positions) {
        this(compression, bytesVsFp32, perplexity, fp32Perplexity, klDivergence, top1Agreement, snrDb, positions, "none",
                Double.NaN, Double.NaN);
    }
}
