package org.llmnpu.sw.run;

/**
 * One compressed model measured on the held-out set: projection bytes relative to FP32, perplexity
 * (and the FP32 model's on the same tokens), KL(FP32 ‖ model) in nats, top-1 agreement with FP32,
 * logits SNR in dB (null in JSON when infinite, i.e. identical logits), over {@code positions} tokens.
 */
public record EvalRow(String compression, double bytesVsFp32, double perplexity, double fp32Perplexity,
                      double klDivergence, double top1Agreement, double snrDb, int positions) {
}
