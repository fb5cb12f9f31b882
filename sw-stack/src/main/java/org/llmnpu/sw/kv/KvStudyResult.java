package org.llmnpu.sw.kv;

/**
 * One KV setting measured against the full FP32 cache over teacher-forced decode steps: logits KL,
 * top-1 agreement and SNR; the KV bytes (unquantized entries counted as FP16) a decode step reads at the start of decoding (and relative to a
 * full FP16 cache); mean KV rows kept per head; and the measured Java decode time per token.
 */
public record KvStudyResult(String setting, double klDivergence, double top1Agreement, double snrDb,
                            long kvBytesPerDecodeToken, double bytesVsFp16, double meanKeptTokens,
                            double decodeMillisPerToken) {
}
