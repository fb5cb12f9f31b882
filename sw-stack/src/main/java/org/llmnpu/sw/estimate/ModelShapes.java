package org.llmnpu.sw.estimate;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.llmnpu.sw.model.ModelConfig;

/**
 * The shapes of the models an estimate runs on, without weights: named presets with the published shapes of
 * their model cards, or a directory holding a Hugging Face-style {@code config.json} (LLaMA-family field names).
 * Only the shape matters to the cycle model; RoPE theta and the norm epsilon are kept for completeness.
 */
public final class ModelShapes {
  /** A model's shape and what it was read from. */
  public record Shape(String name, ModelConfig config, String source) {
  }

  /** The named presets. */
  public static final List<String> NAMES = List.of("llama-2-7b", "llama-3-8b", "qwen2.5-1.5b", "stories260K");

  /** Fields of {@code config.json} an estimate needs. */
  static final List<String> REQUIRED = List.of("hidden_size", "intermediate_size", "num_hidden_layers",
      "num_attention_heads", "vocab_size");

  private ModelShapes() {
  }

  /**
   * A named preset ({@link #NAMES}) or, when {@code model} is a directory, its {@code config.json}.
   *
   * @throws IllegalArgumentException naming {@code --model} and the allowed values
   */
  public static Shape of(String model) {
    Shape named = named(model);
    if (named != null) {
      return named;
    }
    Path dir = Path.of(model);
    if (Files.isDirectory(dir)) {
      return fromConfigJson(dir);
    }
    throw new IllegalArgumentException("--model: '" + model + "' is neither a named model (" + String.join(", ", NAMES)
        + ") nor a directory holding a Hugging Face config.json");
  }

  /** The preset called {@code name}, or null. */
  static Shape named(String name) {
    return switch (name) {
      // LLaMA-2-7B: 4096 wide, 32 layers of 32 heads (no GQA), SwiGLU 11008, 32000 tokens, 4096 positions
      case "llama-2-7b" -> new Shape(name, new ModelConfig(4096, 11008, 32, 32, 32, 32000, 4096, 10000f, 1e-5f),
          "published shape of Llama-2-7b (config.json of meta-llama/Llama-2-7b-hf)");
      // LLaMA-3-8B: 32 query heads over 8 KV heads, SwiGLU 14336, 128256 tokens, RoPE theta 500000
      case "llama-3-8b" -> new Shape(name, new ModelConfig(4096, 14336, 32, 32, 8, 128256, 8192, 500000f, 1e-5f),
          "published shape of Meta-Llama-3-8B (config.json of meta-llama/Meta-Llama-3-8B)");
      // Qwen2.5-1.5B: 12 heads over 2 KV heads, SwiGLU 8960, 151936 tokens, tied embeddings (the LM head is
      // the embedding matrix: the NPU still streams it once per step)
      case "qwen2.5-1.5b" -> new Shape(name, new ModelConfig(1536, 8960, 28, 12, 2, 151936, 32768, 1000000f, 1e-6f),
          "published shape of Qwen2.5-1.5B (config.json of Qwen/Qwen2.5-1.5B)");
      case "stories260K" -> new Shape(name, ModelConfig.stories260K(), "the shipped stories260K checkpoint's header");
      default -> null;
    };
  }

  /**
   * The shape in {@code dir/config.json}: {@code hidden_size}, {@code intermediate_size}, {@code num_hidden_layers},
   * {@code num_attention_heads}, {@code vocab_size} required; {@code num_key_value_heads} defaults to the heads (no
   * grouped-query attention), {@code max_position_embeddings} to 4096, {@code rope_theta} to 10000,
   * {@code rms_norm_eps} to 1e-6; a {@code head_dim} other than {@code hidden_size / num_attention_heads} is refused.
   */
  public static Shape fromConfigJson(Path dir) {
    Path file = dir.resolve("config.json");
    if (!Files.isRegularFile(file)) {
      throw new IllegalArgumentException("--model: directory " + dir + " has no config.json");
    }
    JsonNode root;
    try {
      root = new ObjectMapper().readTree(file.toFile());
    } catch (IOException e) {
      throw new IllegalArgumentException("--model: " + file + " is not valid JSON: " + e.getMessage(), e);
    }
    if (root == null || !root.isObject()) {
      throw new IllegalArgumentException("--model: " + file + " is not a JSON object");
    }
    List<String> missing = new ArrayList<>();
    for (String f : REQUIRED) {
      if (!root.path(f).isIntegralNumber()) {
        missing.add(f);
      }
    }
    if (!missing.isEmpty()) {
      throw new IllegalArgumentException("--model: " + file + " lacks the shape field(s) " + String.join(", ", missing)
          + " (integers; an estimate needs " + String.join(", ", REQUIRED) + ")");
    }
    int dim = root.get("hidden_size").asInt();
    int heads = root.get("num_attention_heads").asInt();
    int kvHeads = integer(root, "num_key_value_heads", heads, file);
    if (root.has("head_dim") && !root.get("head_dim").isNull() && heads > 0
        && root.get("head_dim").asInt() * heads != dim) {
      throw new IllegalArgumentException("--model: " + file + " has head_dim " + root.get("head_dim").asInt()
          + " but hidden_size / num_attention_heads = " + dim + " / " + heads + "; the cost model needs them equal");
    }
    try {
      ModelConfig c = new ModelConfig(dim, root.get("intermediate_size").asInt(),
          root.get("num_hidden_layers").asInt(), heads, kvHeads, root.get("vocab_size").asInt(),
          integer(root, "max_position_embeddings", 4096, file), (float) number(root, "rope_theta", 10000, file),
          (float) number(root, "rms_norm_eps", 1e-6, file));
      return new Shape(dir.getFileName() == null ? dir.toString() : dir.getFileName().toString(), c,
          "shape read from " + file);
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException("--model: " + file + ": " + e.getMessage(), e);
    }
  }

  private static int integer(JsonNode root, String field, int absent, Path file) {
    JsonNode v = root.get(field);
    if (v == null || v.isNull()) {
      return absent;
    }
    if (!v.isIntegralNumber()) {
      throw new IllegalArgumentException("--model: " + file + ": " + field + " must be an integer, got " + v);
    }
    return v.asInt();
  }

  private static double number(JsonNode root, String field, double absent, Path file) {
    JsonNode v = root.get(field);
    if (v == null || v.isNull()) {
      return absent;
    }
    if (!v.isNumber()) {
      throw new IllegalArgumentException("--model: " + file + ": " + field + " must be a number, got " + v);
    }
    return v.asDouble();
  }
}
