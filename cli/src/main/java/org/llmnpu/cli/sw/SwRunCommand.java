package org.llmnpu.cli.sw;

import java.nio.file.Path;
import java.util.Optional;
import java.util.concurrent.Callable;
import org.llmnpu.sw.compress.CompressionSpec;
import org.llmnpu.sw.compress.PruneMethod;
import org.llmnpu.sw.compress.QuantMethod;
import org.llmnpu.sw.io.ModelFileException;
import org.llmnpu.sw.run.RunOptions;
import org.llmnpu.sw.run.RunReport;
import org.llmnpu.sw.run.SwRun;
import org.llmnpu.sw.runtime.StaticShape;
import org.llmnpu.sw.sample.SamplerConfig;
import org.llmnpu.sw.spec.DraftSpec;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * {@code npu sw run}: generates tokens with the Java executor of the software stack and reports speed
 * and accuracy against the FP32 model (logits SNR, KL divergence, top-1 agreement), plus acceptance
 * figures when speculative decoding is on.
 */
@Command(name = "run", mixinStandardHelpOptions = true,
        description = "Run a LLaMA-style model with compression, static shapes or speculative decoding.")
public final class SwRunCommand implements Callable<Integer> {

    @Option(names = "--model", defaultValue = "stories260K", description = "stories260K (the real trained checkpoint shipped "
            + "with the toolkit, MIT licence), a synthetic model: tiny or medium, or a Hugging Face model directory "
            + "(config.json, model.safetensors, tokenizer.json) (default ${DEFAULT-VALUE}).")
    String model;

    @Option(names = "--weights", description = "llama2.c .bin checkpoint (or a Hugging Face model directory) to load instead of --model.")
    Path weights;

    @Option(names = "--tokenizer", description = "llama2.c tokenizer.bin or Hugging Face tokenizer.json, to give --prompt as text and see the "
            + "output as text (default: the model directory's tokenizer.json).")
    Path tokenizer;

    @Option(names = "--prompt", description = "Prompt text (needs --tokenizer); otherwise a synthetic prompt of --prompt-len tokens.")
    String prompt;

    @Option(names = "--prompt-len", defaultValue = "32", description = "Synthetic prompt tokens (default ${DEFAULT-VALUE}).")
    int promptLen;

    @Option(names = "--max-new", defaultValue = "64", description = "Tokens to generate (default ${DEFAULT-VALUE}).")
    int maxNew;

    @Option(names = "--quant", defaultValue = "fp32",
            description = "Weights: fp32, int8, int4-g32, int4-g32-asym, mxfp8, mxfp6, mxfp4, mxint8, s2_4 (= int8 with 2:4 "
                    + "pruning, the NPU lowering's sparse format; ./npu cosim decoder --quant s2_4 runs it on the NPU) "
                    + "(default ${DEFAULT-VALUE}).")
    String quant;

    @Option(names = "--sparsity", description = "N:M pruning along K: 2:4 or 4:8.")
    String sparsity;

    @Option(names = "--quant-method", defaultValue = "clip",
            description = "How INT scales are chosen: minmax, clip (calibrated clip ratio), gptq (activation-aware, "
                    + "error-compensating) or awq (activation-aware channel scaling) (default ${DEFAULT-VALUE}).")
    String quantMethod;

    @Option(names = "--no-calibration", description = "Same as --quant-method minmax.")
    boolean noCalibration;

    @Option(names = "--prune", defaultValue = "magnitude",
            description = "How --sparsity chooses the kept weights: magnitude, wanda or sparsegpt (default ${DEFAULT-VALUE}).")
    String prune;

    @Option(names = "--static", description = "Static-shape runtime, e.g. slp=64,slr=128.")
    String staticShape;

    @Option(names = "--speculative", description = "Speculative decoding, e.g. draft=int4,gamma=4 (draft: int8, int4-g32, "
            + "int4+2:4, skipN, file:path.bin).")
    String speculative;

    @Option(names = "--temperature", defaultValue = "0", description = "0 = greedy (default ${DEFAULT-VALUE}).")
    float temperature;

    @Option(names = "--top-k", defaultValue = "0", description = "0 = off (default ${DEFAULT-VALUE}).")
    int topK;

    @Option(names = "--top-p", defaultValue = "1", description = "1 = off (default ${DEFAULT-VALUE}).")
    float topP;

    @Option(names = "--seed", defaultValue = "1", description = "Seed of weights, prompt and sampling (default ${DEFAULT-VALUE}).")
    long seed;

    @Option(names = "--json", description = "Print JSON instead of text.")
    boolean json;

    @Mixin
    RecoveryMixin recovery;

    @Override
    public Integer call() throws Exception {
        RunOptions options;
        try {
            String spec = sparsity == null ? quant : quant + "+" + sparsity;
            QuantMethod qm = noCalibration ? QuantMethod.MINMAX : BadParameter.parse("--quant-method", () -> QuantMethod.parse(quantMethod));
            PruneMethod pm = BadParameter.parse("--prune", () -> PruneMethod.parse(prune));
            CompressionSpec compression = BadParameter.parse("--quant/--sparsity", () -> CompressionSpec.parse(spec, qm, pm));
            Optional<StaticShape> shape = staticShape == null ? Optional.empty()
                    : Optional.of(BadParameter.parse("--static", () -> StaticShape.parse(staticShape)));
            Optional<DraftSpec> draft = speculative == null ? Optional.empty()
                    : Optional.of(BadParameter.parse("--speculative", () -> DraftSpec.parse(speculative)));
            SamplerConfig sampler = BadParameter.parse("--temperature/--top-k/--top-p",
                    () -> new SamplerConfig(temperature, topK, topP, seed));
            if (weights == null) {
                BadParameter.modelConfig(model);
            }
            if (prompt != null && tokenizer == null && weights == null && !org.llmnpu.sw.io.ModelCatalog.isDirectory(model)) {
                throw new BadParameter("--prompt: needs --tokenizer (a llama2.c tokenizer.bin or a tokenizer.json) or a model directory with tokenizer.json");
            }
            org.llmnpu.sw.train.RecoveryOptions recoveryOptions = recovery.options(seed);
            if (!recoveryOptions.isNone() && compression.sparsity().isEmpty()) {
                throw new BadParameter("--recover: " + recoveryOptions.method().label() + " needs --sparsity 2:4 or 4:8 "
                        + "(recovery fine-tunes a pruned model); allowed without --sparsity: none");
            }
            options = BadParameter.parse("--prompt-len/--max-new", () -> new RunOptions(model, Optional.ofNullable(weights),
                    Optional.ofNullable(tokenizer), Optional.ofNullable(prompt), promptLen, maxNew, compression, shape, draft, sampler,
                    recoveryOptions));
        } catch (BadParameter e) {
            System.err.println(e.getMessage());
            return 2;
        }
        RunReport report;
        try {
            report = SwRun.run(options);
        } catch (IllegalArgumentException e) {
            System.err.println("sw run: " + e.getMessage());
            return 2;
        } catch (ModelFileException e) {
            System.err.println("sw run: " + e.getMessage());
            return 2;
        } catch (java.io.IOException e) {
            System.err.println("sw run: " + e.getMessage());
            return 1;
        }
        if (json) {
            System.out.println(SwJson.write(report));
        } else {
            System.out.print(report.toText());
        }
        return 0;
    }
}
