package org.llmnpu.sw.model;

/**
 * Shape of a decoder-only LLaMA-style transformer: embedding width {@code dim}, SwiGLU hidden width
 * {@code hiddenDim}, {@code layers} blocks, {@code heads} query heads sharing {@code kvHeads} key/value
 * heads (grouped-query attention), vocabulary size and the longest sequence the model supports.
 */
public record ModelConfig(int dim, int hiddenDim, int layers, int heads, int kvHeads, int vocabSize, int maxSeqLen,
                          float ropeTheta, float normEps) {

    public ModelConfig {
        require(dim >= 2, "dim must be >= 2, got " + dim);
        require(hiddenDim >= 1, "hiddenDim must be >= 1, got " + hiddenDim);
        require(layers >= 1, "layers must be >= 1, got " + layers);
        require(heads >= 1 && dim % heads == 0, "heads must be >= 1 and divide dim " + dim + ", got " + heads);
        require((dim / heads) % 2 == 0, "head dimension dim/heads must be even for RoPE, got " + dim / heads);
        require(kvHeads >= 1 && heads % kvHeads == 0, "kvHeads must be >= 1 and divide heads " + heads + ", got " + kvHeads);
        require(vocabSize >= 2, "vocabSize must be >= 2, got " + vocabSize);
        require(maxSeqLen >= 1, "maxSeqLen must be >= 1, got " + maxSeqLen);
        require(ropeTheta > 1f, "ropeTheta must be > 1, got " + ropeTheta);
        require(normEps > 0f, "normEps must be > 0, got " + normEps);
    }

    public ModelConfig(int dim, int hiddenDim, int layers, int heads, int kvHeads, int vocabSize, int maxSeqLen) {
        this(dim, hiddenDim, layers, heads, kvHeads, vocabSize, maxSeqLen, 10000f, 1e-5f);
    }

    /** 4 layers, 128 wide, 4 heads over 2 KV heads, 512 tokens: fast enough for unit tests. */
    public static ModelConfig tiny() {
        return new ModelConfig(128, 352, 4, 4, 2, 512, 4096);
    }

    /** 6 layers, 256 wide, 4 heads over 2 KV heads, 1024 tokens. */
    public static ModelConfig medium() {
        return new ModelConfig(256, 704, 6, 4, 2, 1024, 4096);
    }

    /**
     * The shape of stories260K, the real trained checkpoint shipped with the toolkit: dim 64, hidden 172
     * (a multiple of neither 8 nor 32), 5 layers, 8 heads over 4 KV heads, vocabulary 512, 512 tokens.
     */
    public static ModelConfig stories260K() {
        return new ModelConfig(64, 172, 5, 8, 4, 512, 512);
    }

    /** Model names {@link #named} knows: the shipped real model first, then the synthetic ones. */
    public static final java.util.List<String> NAMES = java.util.List.of("stories260K", "tiny", "medium");

    /** {@code stories260K} (real, shipped), {@code tiny} or {@code medium} (synthetic). */
    public static ModelConfig named(String name) {
        return switch (name) {
            case "stories260K" -> stories260K();
            case "tiny" -> tiny();
            case "medium" -> medium();
            default -> throw new IllegalArgumentException("model must be one of " + String.join(", ", NAMES)
                    + " (or give --weights), got '" + name + "'");
        };
    }

    /** True for the models generated from a seed (not trained). */
    public static boolean isSynthetic(String name) {
        return name.equals("tiny") || name.equals("medium");
    }

    public int headDim() {
        return dim / heads;
    }

    public int kvDim() {
        return kvHeads * headDim();
    }

    /** Query heads per KV head. */
    public int groupSize() {
        return heads / kvHeads;
    }

    private static void require(boolean ok, String message) {
        if (!ok) {
            throw new IllegalArgumentException(message);
        }
    }
}
