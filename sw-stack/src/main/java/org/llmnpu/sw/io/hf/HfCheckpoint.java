package org.llmnpu.sw.io.hf;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.llmnpu.sw.io.ModelFileException;
import org.llmnpu.sw.model.LayerWeights;
import org.llmnpu.sw.model.ModelConfig;
import org.llmnpu.sw.model.ModelWeights;

/**
 * A Hugging Face LLaMA model directory: {@code config.json} ({@link HfConfig}), the weights in
 * {@code model.safetensors} or in shards listed by {@code model.safetensors.index.json} (its {@code weight_map}
 * names each tensor's file), and optionally {@code tokenizer.json} ({@link HfTokenizer}).
 *
 * <p>Tensor names and their layout in {@link ModelWeights} (Linear weights are [out, in], as llama2.c's):
 * {@code model.embed_tokens.weight} → embedding; {@code model.layers.N.input_layernorm.weight} → attnNorm;
 * {@code self_attn.q_proj/k_proj/v_proj/o_proj.weight} → wq/wk/wv/wo, q and k converted from rotate-half to
 * the interleaved RoPE order ({@link RopeLayout}); {@code post_attention_layernorm.weight} → ffnNorm;
 * {@code mlp.gate_proj/down_proj/up_proj.weight} → w1/w2/w3; {@code model.norm.weight} → finalNorm;
 * {@code lm_head.weight} → LM head, or the embedding array itself when {@code tie_word_embeddings} is true.
 *
 * <p>Every fault is a one-line {@link ModelFileException} naming the file and tensor: those of
 * {@link SafetensorsFile} and {@link HfConfig}, a missing tensor, a shape that disagrees with config.json, a
 * tensor the architecture does not have (e.g. a bias), an untied model without {@code lm_head.weight}, a shard
 * name that leaves the directory, weights that do not fit in the heap.
 */
public final class HfCheckpoint {

    public static final String CONFIG = "config.json";
    public static final String WEIGHTS = "model.safetensors";
    public static final String INDEX = "model.safetensors.index.json";
    public static final String TOKENIZER = "tokenizer.json";

    private HfCheckpoint() {
    }

    /** True if {@code dir} looks like a Hugging Face model directory (has a config.json). */
    public static boolean isModelDirectory(Path dir) {
        return Files.isDirectory(dir) && Files.isRegularFile(dir.resolve(CONFIG));
    }

    /** Reads the model in {@code dir}, refusing it when its FP32 weights do not fit in the heap the JVM may still use. */
    public static ModelWeights read(Path dir) throws IOException {
        if (!Files.isDirectory(dir)) {
            throw new ModelFileException(dir + ": not a directory (expected a Hugging Face model directory with config.json)");
        }
        HfConfig hf = HfConfig.read(dir);
        ModelConfig c = hf.config();
        try (TensorSource src = TensorSource.open(dir)) {
            checkMemory(c, hf.tiedEmbeddings(), dir);
            Set<String> used = new HashSet<>();
            Reader r = (name, rows, cols) -> {
                used.add(name);
                return src.file(name).read(name, rows, cols, CONFIG);
            };
            int dim = c.dim();
            float[][] embedding = r.read("model.embed_tokens.weight", c.vocabSize(), dim);
            LayerWeights[] layers = new LayerWeights[c.layers()];
            for (int l = 0; l < c.layers(); l++) {
                String p = "model.layers." + l + ".";
                float[] attnNorm = r.read(p + "input_layernorm.weight", 1, dim)[0];
                float[][] wq = RopeLayout.rotateHalfToInterleaved(r.read(p + "self_attn.q_proj.weight", dim, dim), c.heads(), c.headDim());
                float[][] wk = RopeLayout.rotateHalfToInterleaved(r.read(p + "self_attn.k_proj.weight", c.kvDim(), dim),
                        c.kvHeads(), c.headDim());
                float[][] wv = r.read(p + "self_attn.v_proj.weight", c.kvDim(), dim);
                float[][] wo = r.read(p + "self_attn.o_proj.weight", dim, dim);
                float[] ffnNorm = r.read(p + "post_attention_layernorm.weight", 1, dim)[0];
                float[][] w1 = r.read(p + "mlp.gate_proj.weight", c.hiddenDim(), dim);
                float[][] w2 = r.read(p + "mlp.down_proj.weight", dim, c.hiddenDim());
                float[][] w3 = r.read(p + "mlp.up_proj.weight", c.hiddenDim(), dim);
                layers[l] = new LayerWeights(attnNorm, wq, wk, wv, wo, ffnNorm, w1, w2, w3);
            }
            float[] finalNorm = r.read("model.norm.weight", 1, dim)[0];
            float[][] head;
            if (hf.tiedEmbeddings()) {
                head = embedding;
                used.add("lm_head.weight");
            } else if (!src.has("lm_head.weight")) {
                throw new ModelFileException(dir.resolve(CONFIG) + ": tie_word_embeddings is false but the weights have no "
                        + "lm_head.weight (set tie_word_embeddings to true if the LM head is the embedding)");
            } else {
                head = r.read("lm_head.weight", c.vocabSize(), dim);
            }
            for (String name : src.names()) {
                if (!used.contains(name) && !name.endsWith("rotary_emb.inv_freq")) {
                    throw new ModelFileException(src.fileName(name) + ": tensor " + name + " is not part of " + HfConfig.ARCHITECTURE
                            + " (no biases or extra weights are supported)");
                }
            }
            return new ModelWeights(c, embedding, layers, finalNorm, head);
        }
    }

    @FunctionalInterface
    private interface Reader {
        float[][] read(String name, int rows, int cols) throws IOException;
    }

    private static void checkMemory(ModelConfig c, boolean tied, Path dir) throws ModelFileException {
        long perLayer = 2L * c.dim() + 2L * c.dim() * c.dim() + 2L * c.kvDim() * c.dim() + 3L * c.dim() * c.hiddenDim();
        long floats = (long) c.vocabSize() * c.dim() * (tied ? 1 : 2) + c.layers() * perLayer + c.dim();
        Runtime rt = Runtime.getRuntime();
        long available = rt.maxMemory() - (rt.totalMemory() - rt.freeMemory());
        if (4 * floats > available) {
            throw new ModelFileException(String.format(java.util.Locale.ROOT,
                    "%s: the weights need %.2f GB of Java heap as FP32 but only %.2f GB is available; run with a larger heap "
                            + "(e.g. JAVA_OPTS=-Xmx%dg) or use a smaller model", dir, 4 * floats / 1e9, available / 1e9,
                    (long) Math.ceil(4 * floats * 1.25 / (1L << 30)) + 1));
        }
    }

    /** The safetensors files of a directory and which file holds each tensor. */
    private static final class TensorSource implements AutoCloseable {
        private final Map<String, SafetensorsFile> byTensor = new LinkedHashMap<>();
        private final List<SafetensorsFile> files = new ArrayList<>();

        static TensorSource open(Path dir) throws IOException {
            TensorSource s = new TensorSource();
            try {
                Path index = dir.resolve(INDEX);
                if (Files.isRegularFile(index)) {
                    s.openSharded(dir, index);
                } else if (Files.isRegularFile(dir.resolve(WEIGHTS))) {
                    SafetensorsFile f = SafetensorsFile.open(dir.resolve(WEIGHTS));
                    s.files.add(f);
                    f.entries().keySet().forEach(n -> s.byTensor.put(n, f));
                } else {
                    throw new ModelFileException(dir + ": has neither " + WEIGHTS + " nor " + INDEX);
                }
                return s;
            } catch (IOException | RuntimeException e) {
                s.close();
                throw e;
            }
        }

        private void openSharded(Path dir, Path index) throws IOException {
            JsonNode map;
            try {
                map = SafetensorsFile.JSON.readTree(index.toFile()).path("weight_map");
            } catch (IOException e) {
                throw new ModelFileException(index + ": not valid JSON", e);
            }
            if (!map.isObject() || map.isEmpty()) {
                throw new ModelFileException(index + ": has no weight_map object");
            }
            Map<String, SafetensorsFile> shards = new LinkedHashMap<>();
            for (Iterator<Map.Entry<String, JsonNode>> it = map.fields(); it.hasNext(); ) {
                Map.Entry<String, JsonNode> e = it.next();
                String shard = e.getValue().asText("");
                if (shard.isEmpty() || shard.contains("/") || shard.contains("\\") || shard.startsWith(".")) {
                    throw new ModelFileException(index + ": tensor " + e.getKey() + " maps to '" + shard
                            + "', not a file name inside the model directory");
                }
                SafetensorsFile f = shards.get(shard);
                if (f == null) {
                    f = SafetensorsFile.open(dir.resolve(shard));
                    shards.put(shard, f);
                    files.add(f);
                }
                if (!f.entries().containsKey(e.getKey())) {
                    throw new ModelFileException(f.file() + ": no tensor named " + e.getKey() + " although " + INDEX + " maps it here");
                }
                byTensor.put(e.getKey(), f);
            }
            for (SafetensorsFile f : files) {
                for (String n : f.entries().keySet()) {
                    if (!byTensor.containsKey(n)) {
                        throw new ModelFileException(f.file() + ": tensor " + n + " is missing from " + INDEX);
                    }
                }
            }
        }

        boolean has(String name) {
            return byTensor.containsKey(name);
        }

        Set<String> names() {
            return byTensor.keySet();
        }

        String fileName(String name) {
            return byTensor.get(name).file().toString();
        }

        SafetensorsFile file(String name) throws ModelFileException {
            SafetensorsFile f = byTensor.get(name);
            if (f == null) {
                Path where = files.size() == 1 ? files.get(0).file() : files.get(0).file().resolveSibling(INDEX);
                throw new ModelFileException(where + ": no tensor named " + name + " (needed by " + HfConfig.ARCHITECTURE + ")");
            }
            return f;
        }

        @Override
        public void close() throws IOException {
            for (SafetensorsFile f : files) {
                f.close();
            }
        }
    }

    /**
     * Writes {@code w} as a Hugging Face directory: {@code config.json}, {@code model.safetensors} in {@code dtype}
     * with q/k rows permuted to rotate-half, and {@code tokenizer.json} when {@code tokenizerJson} is given. A new
     * directory is built beside {@code dir} and renamed into place; an existing one gets each file atomically,
     * config.json last.
     */
    public static void write(ModelWeights w, Path dir, SafetensorsDtype dtype, String tokenizerJson) throws IOException {
        write(w, dir, dtype, tokenizerJson, 1);
    }

    /**
     * As {@link #write(ModelWeights, Path, SafetensorsDtype, String)}, the tensors split over {@code shards} files
     * {@code model-0000i-of-0000n.safetensors} listed in {@code model.safetensors.index.json} when {@code shards > 1}.
     */
    public static void write(ModelWeights w, Path dir, SafetensorsDtype dtype, String tokenizerJson, int shards)
            throws IOException {
        if (shards < 1) {
            throw new IllegalArgumentException("shards must be >= 1, got " + shards);
        }
        Path target = dir.toAbsolutePath();
        boolean fresh = !Files.exists(target);
        Files.createDirectories(target.getParent());
        Path out = fresh ? AtomicFiles.ordinary(Files.createTempDirectory(target.getParent(), "." + target.getFileName() + "."))
                : target;
        try {
            writeFiles(w, out, dtype, tokenizerJson, shards);
            if (fresh) {
                AtomicFiles.move(out, target);
            }
        } finally {
            if (fresh && Files.exists(out)) {
                try (var s = Files.list(out)) {
                    for (Path p : (Iterable<Path>) s::iterator) {
                        Files.deleteIfExists(p);
                    }
                }
                Files.deleteIfExists(out);
            }
        }
    }

    private static void writeFiles(ModelWeights w, Path dir, SafetensorsDtype dtype, String tokenizerJson, int shards)
            throws IOException {
        ModelConfig c = w.config();
        boolean tied = w.lmHead() == w.tokenEmbedding();
        Map<String, float[][]> tensors = new LinkedHashMap<>();
        tensors.put("model.embed_tokens.weight", w.tokenEmbedding());
        for (int l = 0; l < c.layers(); l++) {
            LayerWeights lw = w.layers()[l];
            String p = "model.layers." + l + ".";
            tensors.put(p + "input_layernorm.weight", new float[][] {lw.attnNorm()});
            tensors.put(p + "self_attn.q_proj.weight", RopeLayout.interleavedToRotateHalf(lw.wq(), c.heads(), c.headDim()));
            tensors.put(p + "self_attn.k_proj.weight", RopeLayout.interleavedToRotateHalf(lw.wk(), c.kvHeads(), c.headDim()));
            tensors.put(p + "self_attn.v_proj.weight", lw.wv());
            tensors.put(p + "self_attn.o_proj.weight", lw.wo());
            tensors.put(p + "post_attention_layernorm.weight", new float[][] {lw.ffnNorm()});
            tensors.put(p + "mlp.gate_proj.weight", lw.w1());
            tensors.put(p + "mlp.down_proj.weight", lw.w2());
            tensors.put(p + "mlp.up_proj.weight", lw.w3());
        }
        tensors.put("model.norm.weight", new float[][] {w.finalNorm()});
        if (!tied) {
            tensors.put("lm_head.weight", w.lmHead());
        }
        List<String> names = new ArrayList<>(tensors.keySet());
        int perShard = (names.size() + shards - 1) / shards;
        ObjectMapper json = new ObjectMapper();
        var index = json.createObjectNode();
        var weightMap = index.putObject("metadata").put("total_size", 0L);
        var map = index.putObject("weight_map");
        long totalBytes = 0;
        for (int s = 0; s < shards; s++) {
            String file = shards == 1 ? WEIGHTS : String.format("model-%05d-of-%05d.safetensors", s + 1, shards);
            SafetensorsWriter st = new SafetensorsWriter().metadata("format", "pt");
            for (String n : names.subList(Math.min(names.size(), s * perShard), Math.min(names.size(), (s + 1) * perShard))) {
                float[][] t = tensors.get(n);
                if (n.endsWith("norm.weight")) {
                    st.vector(n, dtype, t[0]);
                    totalBytes += (long) t[0].length * dtype.bytes();
                } else {
                    st.matrix(n, dtype, t);
                    totalBytes += (long) t.length * t[0].length * dtype.bytes();
                }
                map.put(n, file);
            }
            st.write(dir.resolve(file));
        }
        if (shards > 1) {
            weightMap.put("total_size", totalBytes);
            AtomicFiles.writeString(dir.resolve(INDEX), json.writerWithDefaultPrettyPrinter().writeValueAsString(index) + "\n");
        }
        if (tokenizerJson != null) {
            AtomicFiles.writeString(dir.resolve(TOKENIZER), tokenizerJson);
        }
        AtomicFiles.writeString(dir.resolve(CONFIG), HfConfig.json(c, tied));
    }
}
