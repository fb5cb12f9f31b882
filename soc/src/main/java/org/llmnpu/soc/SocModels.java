package org.llmnpu.soc;

import java.util.ArrayList;
import java.util.List;
import org.llmnpu.sw.estimate.ModelShapes;
import org.llmnpu.sw.model.ModelConfig;

/**
 * The models a SoC analysis runs on: the estimate's named shapes ({@link ModelShapes}) and the LLaMA-3.x shapes the
 * stage-level study (seed 001) measured, or a directory with a Hugging Face {@code config.json}.
 */
public final class SocModels {
  /** Shapes this module adds to {@link ModelShapes#NAMES}. */
  static final List<String> ADDED = List.of("llama-3.2-3b", "llama-3.1-8b");

  private SocModels() {
  }

  /** Every named model. */
  public static List<String> names() {
    List<String> all = new ArrayList<>(ModelShapes.NAMES);
    all.addAll(ADDED);
    return all;
  }

  /**
   * The shape of {@code model}.
   *
   * @throws IllegalArgumentException naming {@code --model} and the allowed values
   */
  public static ModelShapes.Shape of(String model) {
    switch (model) {
      // Llama-3.2-3B: 3072 wide, 28 layers of 24 heads over 8 KV heads (head dim 128), SwiGLU 8192, 128256 tokens
      case "llama-3.2-3b":
        return new ModelShapes.Shape(model, new ModelConfig(3072, 8192, 28, 24, 8, 128256, 131072, 500000f, 1e-5f),
            "published shape of Llama-3.2-3B (config.json of meta-llama/Llama-3.2-3B)");
      // Llama-3.1-8B: the shape of Llama-3-8B with a 128k context
      case "llama-3.1-8b":
        return new ModelShapes.Shape(model, new ModelConfig(4096, 14336, 32, 32, 8, 128256, 131072, 500000f, 1e-5f),
            "published shape of Llama-3.1-8B (config.json of meta-llama/Llama-3.1-8B)");
      default:
        try {
          return ModelShapes.of(model);
        } catch (IllegalArgumentException e) {
          throw new IllegalArgumentException("--model: '" + model + "' is neither a named model ("
              + String.join(", ", names()) + ") nor a directory holding a Hugging Face config.json");
        }
    }
  }
}
