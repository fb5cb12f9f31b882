package org.llmnpu.cli.sw;

import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.Callable;
import org.llmnpu.sw.io.ModelCatalog;
import org.llmnpu.sw.io.ModelFileException;
import org.llmnpu.sw.kv.EvictionConfig;
import org.llmnpu.sw.kv.KvQuantConfig;
import org.llmnpu.sw.kv.KvSetting;
import org.llmnpu.sw.kv.KvStudy;
import org.llmnpu.sw.kv.KvStudyResult;
import org.llmnpu.sw.model.ModelConfig;
import org.llmnpu.sw.model.ModelWeights;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code npu sw kv}: prefills a synthetic context, compresses the KV cache (hybrid group quantization
 * and/or SnapKV eviction) and decodes teacher-forced tokens; prints the accuracy against the full FP32
 * cache and the KV bytes each decode token reads, next to the uncompressed cache.
 */
@Command(name = "kv", mixinStandardHelpOptions = true,
        description = "KV-cache quantization and eviction: accuracy and bytes read per decode token.")
public final class SwKvCommand implements Callable<Integer> {

    @Option(names = "--model", defaultValue = "stories260K", description = "stories260K (real, shipped), a synthetic "
            + "model: tiny or medium, or a Hugging Face model directory (default ${DEFAULT-VALUE}).")
    String model;

    @Option(names = "--weights", description = "llama2.c .bin checkpoint instead of synthetic weights.")
    Path weights;

    @Option(names = "--context", defaultValue = "448", description = "Prefill tokens (default ${DEFAULT-VALUE}; "
            + "context + decode must fit the model's maximum sequence length, 512 for stories260K).")
    int context;

    @Option(names = "--decode", defaultValue = "32", description = "Teacher-forced decode tokens measured (default ${DEFAULT-VALUE}).")
    int decode;

    @Option(names = "--kv", description = "KV quantization: hybrid|pertoken|perchannel + bits (2..8), gN, rN; e.g. hybrid4,g32,r32.")
    String kv;

    @Option(names = "--evict", description = "Eviction: snapkv,wN,budgetN[,kN][,avg|max][,uniform|pyramid|head-heavy|tail-heavy].")
    String evict;

    @Option(names = "--seed", defaultValue = "1", description = "Seed of weights and tokens (default ${DEFAULT-VALUE}).")
    long seed;

    @Option(names = "--json", description = "Print JSON instead of text.")
    boolean json;

    @Override
    public Integer call() throws Exception {
        KvSetting setting;
        ModelConfig config;
        try {
            Optional<KvQuantConfig> q = kv == null ? Optional.empty() : Optional.of(BadParameter.parse("--kv", () -> KvQuantConfig.parse(kv)));
            Optional<EvictionConfig> e = evict == null ? Optional.empty()
                    : Optional.of(BadParameter.parse("--evict", () -> EvictionConfig.parse(evict)));
            setting = new KvSetting(q, e);
            config = weights == null ? BadParameter.modelConfig(model) : null;
            if (context < 2) {
                throw new BadParameter("--context: must be >= 2 tokens, got " + context);
            }
            if (decode < 1) {
                throw new BadParameter("--decode: must be >= 1 token, got " + decode);
            }
        } catch (BadParameter e) {
            System.err.println(e.getMessage());
            return 2;
        }
        ModelWeights w;
        try {
            w = ModelCatalog.load(model, Optional.ofNullable(weights), seed);
        } catch (ModelFileException e) {
            System.err.println("sw kv: " + e.getMessage());
            return 2;
        }
        ModelConfig c = w.config();
        if (context + decode > c.maxSeqLen()) {
            System.err.println("--context: context + decode = " + (context + decode) + " exceeds the model's maximum sequence length "
                    + c.maxSeqLen());
            return 2;
        }
        try {
            setting.quant().ifPresent(qc -> qc.checkHeadDim(c.headDim()));
        } catch (IllegalArgumentException e) {
            System.err.println("--kv: " + e.getMessage());
            return 2;
        }
        KvStudy study = KvStudy.forModel(w, weights == null && ModelConfig.isSynthetic(model), context, decode, seed);
        List<KvStudyResult> rows = setting.quant().isEmpty() && setting.eviction().isEmpty()
                ? List.of(study.measure(KvSetting.full()))
                : List.of(study.measure(KvSetting.full()), study.measure(setting));
        if (json) {
            System.out.println(SwJson.write(rows));
        } else {
            System.out.printf("context %d tokens, %d teacher-forced decode tokens, compared with the full FP32 cache%n", context, decode);
            for (KvStudyResult r : rows) {
                System.out.printf("%-48s KL %.5f nats, top-1 %.1f %%, SNR %.2f dB, KV read %d bytes/token (%.3f of FP16), "
                                + "%.0f tokens/head kept, %.2f ms/token%n", r.setting(), r.klDivergence(), 100 * r.top1Agreement(),
                        r.snrDb(), r.kvBytesPerDecodeToken(), r.bytesVsFp16(), r.meanKeptTokens(), r.decodeMillisPerToken());
            }
        }
        return 0;
    }
}
