package org.llmnpu.sw.io.hf;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.llmnpu.sw.io.ModelFileException;
import org.llmnpu.sw.model.ModelConfig;

/**
 * The {@code config.json} of a Hugging Face {@code LlamaForCausalLM}: {@code hidden_size},
 * {@code intermediate_size}, {@code num_hidden_layers}, {@code num_attention_heads}, {@code vocab_size}
 * (required); {@code num_key_value_heads} (default: the heads, no GQA), {@code max_position_embeddings}
 * (2048), {@code rope_theta} (10000), {@code rms_norm_eps} (1e-6), {@code tie_word_embeddings} (false) and
 * {@code bos_token_id} (1) — the defaults of the published {@code LlamaConfig}.
 *
 * <p>Refused, one line naming the file and the field: an {@code architectures} list without
 * {@code LlamaForCausalLM} (or, without that list, a {@code model_type} other than {@code llama}); an
 * activation other than {@code silu}; {@code rope_scaling}; attention or MLP biases; a {@code head_dim} other
 * than hidden / heads; a shape {@link ModelConfig} rejects.
 */
public record HfConfig(ModelConfig config, boolean tiedEmbeddings, int bosTokenId) {

    /** The one architecture read. */
    public static final String ARCHITECTURE = "LlamaForCausalLM";
    /** Thread-safe once configured; shared because building one costs more than parsing a small header. */
    private static final ObjectMapper JSON = new ObjectMapper();
    static final List<String> REQUIRED = List.of("hidden_size", "intermediate_size", "num_hidden_layers",
            "num_attention_heads", "vocab_size");

    /** Reads {@code dir/config.json}. */
    public static HfConfig read(Path dir) throws IOException {
        Path file = dir.resolve("config.json");
        ModelFileException.checkRegularFile(file, "the model's config.json");
        JsonNode root;
        try {
            root = JSON.readTree(file.toFile());
        } catch (IOException e) {
            throw new ModelFileException(file + ": not valid JSON (" + e.getMessage().lines().findFirst().orElse("") + ")", e);
        }
        if (root == null || !root.isObject()) {
            throw new ModelFileException(file + ": not a JSON object");
        }
        checkArchitecture(root, file);
        String act = root.path("hidden_act").asText("silu");
        if (!act.equals("silu")) {
            throw new ModelFileException(file + ": hidden_act '" + act + "' is not supported (allowed: silu, LLaMA's SwiGLU)");
        }
        if (root.hasNonNull("rope_scaling")) {
            throw new ModelFileException(file + ": rope_scaling " + root.get("rope_scaling") + " is not supported (allowed: null)");
        }
        for (String bias : List.of("attention_bias", "mlp_bias")) {
            if (root.path(bias).asBoolean(false)) {
                throw new ModelFileException(file + ": " + bias + " = true is not supported (LLaMA has no biases)");
            }
        }
        List<String> missing = new ArrayList<>();
        for (String f : REQUIRED) {
            if (!root.path(f).isIntegralNumber()) {
                missing.add(f);
            }
        }
        if (!missing.isEmpty()) {
            throw new ModelFileException(file + ": lacks the integer field(s) " + String.join(", ", missing));
        }
        int dim = root.get("hidden_size").asInt();
        int heads = root.get("num_attention_heads").asInt();
        if (root.hasNonNull("head_dim") && heads > 0 && root.get("head_dim").asInt() * heads != dim) {
            throw new ModelFileException(file + ": head_dim " + root.get("head_dim") + " differs from hidden_size / "
                    + "num_attention_heads = " + dim + " / " + heads + " (allowed: equal)");
        }
        try {
            ModelConfig c = new ModelConfig(dim, root.get("intermediate_size").asInt(), root.get("num_hidden_layers").asInt(),
                    heads, integer(root, "num_key_value_heads", heads, file), root.get("vocab_size").asInt(),
                    integer(root, "max_position_embeddings", 2048, file), (float) number(root, "rope_theta", 10000, file),
                    (float) number(root, "rms_norm_eps", 1e-6, file));
            return new HfConfig(c, root.path("tie_word_embeddings").asBoolean(false), integer(root, "bos_token_id", 1, file));
        } catch (IllegalArgumentException e) {
            throw new ModelFileException(file + ": " + e.getMessage(), e);
        }
    }

    private static void checkArchitecture(JsonNode root, Path file) throws ModelFileException {
        JsonNode archs = root.get("architectures");
        if (archs != null && !archs.isNull()) {
            List<String> names = new ArrayList<>();
            archs.forEach(a -> names.add(a.asText()));
            if (!names.contains(ARCHITECTURE)) {
                throw new ModelFileException(file + ": architectures " + names + " is not supported (allowed: " + ARCHITECTURE + ")");
            }
        } else if (!root.path("model_type").asText("").equals("llama")) {
            throw new ModelFileException(file + ": model_type '" + root.path("model_type").asText("")
                    + "' without architectures is not supported (allowed: llama / " + ARCHITECTURE + ")");
        }
    }

    /** The config.json text of {@code c} (what {@link #read} reads back to the same values). */
    public static String json(ModelConfig c, boolean tied) {
        ObjectMapper json = new ObjectMapper();
        ObjectNode root = json.createObjectNode();
        root.putArray("architectures").add(ARCHITECTURE);
        root.put("model_type", "llama");
        root.put("hidden_act", "silu");
        root.put("hidden_size", c.dim());
        root.put("intermediate_size", c.hiddenDim());
        root.put("num_hidden_layers", c.layers());
        root.put("num_attention_heads", c.heads());
        root.put("num_key_value_heads", c.kvHeads());
        root.put("head_dim", c.headDim());
        root.put("vocab_size", c.vocabSize());
        root.put("max_position_embeddings", c.maxSeqLen());
        root.put("rope_theta", (double) c.ropeTheta());
        root.put("rms_norm_eps", (double) c.normEps());
        root.putNull("rope_scaling");
        root.put("attention_bias", false);
        root.put("mlp_bias", false);
        root.put("tie_word_embeddings", tied);
        root.put("bos_token_id", 1);
        root.put("eos_token_id", 2);
        root.put("torch_dtype", "float32");
        try {
            return json.writerWithDefaultPrettyPrinter().writeValueAsString(root) + "\n";
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }

    private static int integer(JsonNode root, String field, int absent, Path file) throws ModelFileException {
        JsonNode v = root.get(field);
        if (v == null || v.isNull()) {
            return absent;
        }
        if (!v.isIntegralNumber()) {
            throw new ModelFileException(file + ": " + field + " must be an integer, got " + v);
        }
        return v.asInt();
    }

    private static double number(JsonNode root, String field, double absent, Path file) throws ModelFileException {
        JsonNode v = root.get(field);
        if (v == null || v.isNull()) {
            return absent;
        }
        if (!v.isNumber()) {
            throw new ModelFileException(file + ": " + field + " must be a number, got " + v);
        }
        return v.asDouble();
    }
}
