package org.llmnpu.sw.bench;

import java.util.List;
import java.util.Optional;
import org.llmnpu.sw.compress.CompressionSpec;
import org.llmnpu.sw.run.EvalOptions;
import org.llmnpu.sw.run.SwEval;

/**
 * The weight-compression table of the sw-stack README on the real stories260K checkpoint: every format
 * and method on 1,024 calibration tokens and 2,048 held-out tokens sampled from the FP32 model
 * (seed 0). Same figures as {@code ./npu sw eval --model stories260K --compressions <list>}.
 */
public final class RealModelFigures {

    /** The compressions of the table, in order. */
    public static final List<String> SPECS = List.of(
            "fp32", "int8", "int8@gptq",
            "int4-g32", "int4-g32@clip", "int4-g32@gptq", "int4-g32@awq",
            "mxint8", "mxfp8", "mxfp6", "mxfp4",
            "2:4", "2:4@wanda", "2:4@sparsegpt",
            "4:8", "4:8@wanda", "4:8@sparsegpt",
            "int4-g32+2:4", "int4-g32@gptq+2:4@wanda", "int4-g32@gptq+2:4@sparsegpt",
            "int4-g32+4:8", "int4-g32@gptq+4:8@wanda", "int4-g32@gptq+4:8@sparsegpt");

    private RealModelFigures() {
    }

    public static void main(String[] args) throws Exception {
        String model = args.length > 0 ? args[0] : "stories260K";
        List<CompressionSpec> specs = SPECS.stream().map(s -> CompressionSpec.parse(s, false)).toList();
        EvalOptions o = new EvalOptions(model, Optional.empty(), specs, EvalOptions.CALIBRATION_SEQUENCES,
                EvalOptions.CALIBRATION_LENGTH, EvalOptions.EVAL_SEQUENCES, EvalOptions.EVAL_LENGTH, 0);
        long t0 = System.nanoTime();
        var rows = SwEval.run(o);
        System.out.printf("#### %s: %d held-out positions, FP32 perplexity %.3f (%.1f s)%n%n", model, rows.get(0).positions(),
                rows.get(0).fp32Perplexity(), (System.nanoTime() - t0) / 1e9);
        System.out.println(SwEval.table(rows));
    }
}
