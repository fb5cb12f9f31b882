package org.llmnpu.cli.sw;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.Callable;
import org.llmnpu.sw.compress.CompressionSpec;
import org.llmnpu.sw.compress.PruneMethod;
import org.llmnpu.sw.compress.QuantMethod;
import org.llmnpu.sw.io.ModelFileException;
import org.llmnpu.sw.run.EvalOptions;
import org.llmnpu.sw.run.EvalRow;
import org.llmnpu.sw.run.SwEval;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * {@code npu sw eval}: compresses a model several ways and measures each on held-out sequences sampled
 * from the FP32 model: perplexity, KL and top-1 agreement against FP32, logits SNR.
 */
@Command(name = "eval", mixinStandardHelpOptions = true,
        description = "Accuracy of compressed models on held-out sequences sampled from the FP32 model.")
public final class SwEvalCommand implements Callable<Integer> {

    /** The comparison of the sw-stack README. */
    static final String DEFAULT_COMPRESSIONS = "fp32,int8,int8@gptq,int4-g32,int4-g32@clip,int4-g32@gptq,int4-g32@awq,mxint8,mxfp8,mxfp6,mxfp4,"
            + "2:4,2:4@wanda,2:4@sparsegpt,4:8,4:8@wanda,4:8@sparsegpt,int4-g32+2:4,int4-g32@gptq+2:4@wanda,"
            + "int4-g32@gptq+2:4@sparsegpt,int4-g32+4:8,int4-g32@gptq+4:8@wanda,int4-g32@gptq+4:8@sparsegpt";

    @Option(names = "--model", defaultValue = "stories260K", description = "stories260K (real, shipped), tiny, medium or a "
            + "Hugging Face model directory (default ${DEFAULT-VALUE}).")
    String model;

    @Option(names = "--weights", description = "llama2.c .bin checkpoint instead of --model.")
    Path weights;

    @Option(names = "--compressions", split = ",",
            description = "Comma-separated compressions, each like int4-g32@gptq+2:4@sparsegpt (methods: minmax, clip, gptq, awq; "
                    + "magnitude, wanda, sparsegpt; default: the README table, or fp32 and --sparsity@--prune).")
    List<String> compressions;

    @Option(names = "--sparsity", description = "Evaluate fp32 and this N:M pruning (2:4 or 4:8) instead of --compressions.")
    String sparsity;

    @Option(names = "--prune", defaultValue = "magnitude",
            description = "How --sparsity chooses the kept weights: magnitude, wanda or sparsegpt (default ${DEFAULT-VALUE}).")
    String prune;

    @Option(names = "--tokenizer", description = "llama2.c tokenizer.bin or tokenizer.json for --train-text (default: the model "
            + "directory's tokenizer.json).")
    Path tokenizer;

    @Mixin
    RecoveryMixin recovery;

    @Option(names = "--calibration", defaultValue = "8x128", description = "Calibration sequences x tokens, sampled from "
            + "the FP32 model (default ${DEFAULT-VALUE}).")
    String calibration;

    @Option(names = "--held-out", defaultValue = "16x129", description = "Held-out sequences x tokens, sampled from the FP32 "
            + "model with other seeds (default ${DEFAULT-VALUE}: 2,048 predicted tokens).")
    String heldOut;

    @Option(names = "--seed", defaultValue = "0", description = "Offsets the sampling seeds (default ${DEFAULT-VALUE}).")
    long seed;

    @Option(names = "--json", description = "Print JSON instead of a table.")
    boolean json;

    @Override
    public Integer call() throws Exception {
        EvalOptions options;
        try {
            if (weights == null) {
                BadParameter.modelConfig(model);
            }
            if (sparsity != null && compressions != null) {
                throw new BadParameter("--sparsity: give --sparsity (with --prune) or --compressions, not both");
            }
            PruneMethod pm = BadParameter.parse("--prune", () -> PruneMethod.parse(prune));
            List<String> names = sparsity != null ? List.of("fp32", sparsity + "@" + pm.label())
                    : compressions != null ? compressions : List.of(DEFAULT_COMPRESSIONS.split(","));
            if (sparsity != null) {
                BadParameter.parse("--sparsity", () -> org.llmnpu.numerics.sparse.NmPattern.parse(sparsity));
            }
            org.llmnpu.sw.train.RecoveryOptions recoveryOptions = recovery.options(seed);
            List<CompressionSpec> specs = new ArrayList<>();
            for (String c : names) {
                specs.add(BadParameter.parse("--compressions", () -> CompressionSpec.parse(c, QuantMethod.MINMAX, PruneMethod.MAGNITUDE)));
            }
            int[] cal = BadParameter.parse("--calibration", () -> sizes(calibration));
            int[] held = BadParameter.parse("--held-out", () -> sizes(heldOut));
            if (!recoveryOptions.isNone() && specs.stream().noneMatch(c -> c.sparsity().isPresent())) {
                throw new BadParameter("--recover: " + recoveryOptions.method().label() + " needs an N:M pruning to recover "
                        + "(--sparsity 2:4 or 4:8, or one in --compressions); allowed otherwise: none");
            }
            options = BadParameter.parse("--calibration/--held-out", () -> new EvalOptions(model, Optional.ofNullable(weights), specs,
                    cal[0], cal[1], held[0], held[1], seed, recoveryOptions, Optional.ofNullable(tokenizer)));
        } catch (BadParameter e) {
            System.err.println(e.getMessage());
            return 2;
        }
        List<EvalRow> rows;
        try {
            rows = SwEval.run(options);
        } catch (ModelFileException e) {
            System.err.println("sw eval: " + e.getMessage());
            return 2;
        } catch (IllegalArgumentException e) {
            System.err.println((e.getMessage().startsWith("--") ? "sw eval: " : "--calibration/--held-out: ") + e.getMessage());
            return 2;
        } catch (IllegalStateException e) {
            System.err.println("sw eval: " + e.getMessage());
            return 1;
        }
        if (json) {
            System.out.println(SwJson.write(rows));
        } else {
            System.out.printf("%s: %d held-out tokens, FP32 perplexity %.3f%n", weights != null ? weights : model,
                    rows.get(0).positions(), rows.get(0).fp32Perplexity());
            System.out.print(SwEval.table(rows));
        }
        return 0;
    }

    /** Parses {@code NxL} (sequences x tokens). */
    static int[] sizes(String text) {
        String[] p = text.toLowerCase(java.util.Locale.ROOT).split("x");
        try {
            if (p.length == 2) {
                int n = Integer.parseInt(p[0].trim());
                int len = Integer.parseInt(p[1].trim());
                if (n >= 1 && len >= 2) {
                    return new int[] {n, len};
                }
            }
        } catch (NumberFormatException e) {
            // fall through
        }
        throw new IllegalArgumentException("must be SEQUENCESxTOKENS with >= 1 sequence of >= 2 tokens, e.g. 16x129; got '" + text + "'");
    }
}
