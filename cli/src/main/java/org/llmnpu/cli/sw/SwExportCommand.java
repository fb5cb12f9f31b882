package org.llmnpu.cli.sw;

import java.nio.file.Path;
import java.util.Optional;
import java.util.concurrent.Callable;
import org.llmnpu.sw.io.ModelFileException;
import org.llmnpu.sw.model.ModelWeights;
import org.llmnpu.sw.run.SwExport;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code npu sw export}: writes a model as a Hugging Face directory or a llama2.c checkpoint ({@link SwExport}). */
@Command(name = "export", mixinStandardHelpOptions = true,
        description = "Write a model as a Hugging Face directory (config.json + model.safetensors) or a llama2.c .bin.")
public final class SwExportCommand implements Callable<Integer> {

    @Option(names = "--model", defaultValue = "stories260K", description = "stories260K, tiny, medium or a Hugging Face "
            + "model directory (default ${DEFAULT-VALUE}).")
    String model;

    @Option(names = "--weights", description = "llama2.c .bin checkpoint (or Hugging Face directory) instead of --model.")
    Path weights;

    @Option(names = "--format", required = true, description = "hf (directory: config.json, model.safetensors F32 with "
            + "q/k in Hugging Face's rotate-half order) or llama2c (one .bin file).")
    String format;

    @Option(names = "--tokenizer", description = "With hf: a llama2.c tokenizer.bin (converted) or tokenizer.json (copied) "
            + "to write as DIR/tokenizer.json.")
    Path tokenizer;

    @Option(names = {"-o", "--output"}, required = true, description = "Output directory (hf) or file (llama2c).")
    Path output;

    @Override
    public Integer call() throws Exception {
        if (!SwExport.FORMATS.contains(format)) {
            System.err.println("--format: must be one of " + String.join(", ", SwExport.FORMATS) + ", got '" + format + "'");
            return 2;
        }
        ModelWeights w;
        try {
            w = SwExport.export(model, Optional.ofNullable(weights), format, output, Optional.ofNullable(tokenizer));
        } catch (IllegalArgumentException | ModelFileException e) {
            System.err.println("sw export: " + e.getMessage());
            return 2;
        }
        System.out.printf("wrote %s (%s): %d layers, dim %d, %,d parameters%n", output, format, w.config().layers(),
                w.config().dim(), w.projectionParameters() + (long) w.config().vocabSize() * w.config().dim());
        return 0;
    }
}
